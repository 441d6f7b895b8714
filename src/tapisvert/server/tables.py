"""One game table: its seats, its game, and the actor that applies moves in order.

A move is checked, applied, logged with the chance outcomes it led to, committed,
and only then acknowledged and published: one view per seat, derived from that seat's
observation, and one for spectators. A move or a change the database does not take is
refused with a ``storage`` error, and the table stays as it was. The chance outcomes
of a table come from its secret seed and the move number, so a table restored from its
log after a crash goes on exactly as it would have.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

from tapisvert.bots import make_bot
from tapisvert.core.errors import IllegalActionError, OptionError
from tapisvert.core.game import CHANCE, Game, State
from tapisvert.core.registry import load_game
from tapisvert.server.errors import ServerError, StorageError, TableMoved
from tapisvert.server.notices import CHAT_HISTORY, Said, said_to
from tapisvert.server.protocol import SeatView, TableInfo
from tapisvert.server.pubsub import PubSub
from tapisvert.server.results import counted, final_standings, final_words, seat_ratings
from tapisvert.server.retrying import retrying_async
from tapisvert.server.seats import Seat, bot_name, free_seat, stored_seat
from tapisvert.server.speeds import speed_of
from tapisvert.server.storage import LoggedAction, SeatResult, Storage, TableRow
from tapisvert.server.taking_back import TakeBacks
from tapisvert.server.turns import RETRY_FIRST, RETRY_LONGEST, TurnHost, Turns
from tapisvert.server.views import Views

_log = logging.getLogger(__name__)


class TableHost(TurnHost, Protocol):
    """What a table needs of the node that serves it (see ``table_life.TableLife``)."""

    storage: Storage
    pubsub: PubSub
    sole: bool
    """No other node: a write carries no fencing token (see ``GameTable.write_fence``)."""
    bot_accounts: dict[str, int]

    def is_online(self, user_id: int | None) -> bool: ...

    def user_name(self, user_id: int) -> str: ...

    def lost(self, table: GameTable) -> None: ...

    def tell(
        self, table: GameTable, key: str, rematch: int | None = None, **arguments: Any
    ) -> None: ...

    def table_changed(self, table: GameTable) -> None: ...

    def your_turn(self, table: GameTable, user_id: int) -> None: ...


class GameTable:
    def __init__(self, row: TableRow, host: TableHost) -> None:
        self.id = row.id
        self.room = row.room
        self.host = host
        self.seed = row.seed
        self.clock = row.clock
        self.over_days = speed_of(row.clock) == "days"
        """Played over days (see ``speeds``): it sleeps out of memory while nobody is at it."""
        self.timeout = row.timeout
        """What happens when a person's clock runs out over days (``speeds.TimeoutRule``)."""
        self.deadline = row.deadline
        self.to_act = row.to_act
        """When the clock of the person to act runs out, and who that is (``None``: no clock
        runs, a bot is to act, or the game is not under way), as stored with the position."""
        self.status = row.status
        self.result = row.result
        self.rated = row.rated
        self.finished_at = row.finished_at
        self.results: list[SeatResult] | None = None
        """Each seat's place and rating change, once the game is over."""
        self.options: dict[str, Any] = dict(row.options)
        self.game: Game[Any] = load_game(row.game, row.players, **self.options)
        self.seats = [stored_seat(seat) for seat in row.seats]
        self.moves = [0] * len(self.seats)
        self.stand_in_moves = [0] * len(self.seats)
        """Each seat's moves, and those a bot played for its absent person."""
        self.state: State | None = None
        self.seq = 0
        self.shown_at = time.monotonic()
        """When the table reached its position on this node: a move's time counts from it."""
        self.spectators: dict[int, int] = {}
        """Watching user id → number of their connections watching."""
        self._lock = asyncio.Lock()
        self.turns = Turns(self, host)
        self.views = Views(self, host)
        self.take_backs = TakeBacks(self, host)
        self.history: deque[Said] = deque(maxlen=CHAT_HISTORY)
        """The latest chat lines and notices, for those who come later or reconnect."""
        self.unattended: asyncio.TimerHandle | None = None
        """The countdown that closes this open table while nobody is at it."""
        self.rematch: int | None = None
        self.opened_from = "?"
        """The address of whoever opened it, while this node holds it (for the bound on
        open tables per address)."""
        """The table of this finished game's rematch, once someone asked for it."""
        self.fence: int | None = None
        """The fencing token of this node's lease of the table, carried by every write
        until the game ends: a node that lost the lease can store nothing more."""
        self.moved = False
        """Another node serves the table now: this copy refuses every change."""

    # -- what may be told -------------------------------------------------------------

    def row(self) -> TableRow:
        return TableRow(
            id=self.id,
            room=self.room,
            game=self.game.name,
            players=self.game.players,
            options=self.options,
            seed=self.seed,
            clock=self.clock,
            status=self.status,
            seats=[seat.stored() for seat in self.seats],
            result=self.result,
            rated=self.rated,
            finished_at=self.finished_at,
            timeout=self.timeout,
            deadline=self.deadline,
            to_act=self.to_act,
        )

    def info(self) -> TableInfo:
        return TableInfo(
            table=self.id,
            room=self.room,
            game=self.game.name,
            players=self.game.players,
            options=dict(self.game.options),
            clock=self.clock,
            timeout=self.timeout,
            deadline=self.deadline,
            status=self.status,  # type: ignore[arg-type]
            seats=[
                SeatView(
                    name=seat.name,
                    kind=seat.kind,
                    level=seat.level,
                    present=seat.kind == "bot" or self.host.is_online(seat.user_id),
                    replaced=seat.replaced,
                    owner=seat.owner,
                )
                for seat in self.seats
            ],
            spectators=len(self.spectators),
            result=self.result,
            rated=self.rated,
            ratings=None if self.results is None else seat_ratings(self.results),
            take_back=self.take_backs.shown(),
        )

    def write_fence(self) -> int | None:
        """The token a write carries: none on a node alone, which took every table at start
        and which no other node can reach (the check costs a read of the lease per commit)."""
        return None if self.host.sole else self.fence

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.kind == "human" and seat.user_id == user_id:
                return index
        return None

    def attended(self) -> bool:
        """Someone is at the table: a seated person who is connected, or a spectator (a bot
        account invited there keeps no table open by itself)."""
        return bool(self.spectators) or any(
            seat.kind == "human" and seat.owner is None and self.host.is_online(seat.user_id)
            for seat in self.seats
        )

    def people(self) -> tuple[list[tuple[int, str]], list[str]]:
        """Who sits where (each seat's number, from 1, and name) and who watches."""
        seated = [(index + 1, seat.name) for index, seat in enumerate(self.seats) if seat.name]
        return seated, [self.host.user_name(user) for user in self.spectators]

    # -- before the start -------------------------------------------------------------

    async def join(
        self, user_id: int, name: str, seat: int | None, owner: str | None = None
    ) -> int:
        """Sit down (``owner``: the person who owns this bot account), or come back to
        one's seat once the game is under way."""
        mine = self.seat_of(user_id)
        if self.status != "open":
            if mine is None or (seat is not None and seat != mine):
                raise ServerError("seat_not_yours", status=409)
            await self.come_back(user_id)
            return mine
        if mine is not None:
            if seat is None or seat == mine:
                return mine
            raise ServerError("already_seated", status=409, seat=mine + 1)
        index = free_seat(self.seats, seat)
        async with self._changing():
            self.seats[index] = Seat("human", user_id, name, owner=owner)
        self.host.tell(self, "server.notice.sat", name=name, seat=index + 1)
        return index

    async def add_bot(self, user_id: int, level: str, seat: int | None) -> int:
        self._require_open(user_id)
        try:
            make_bot(level, self.game)
        except OptionError as error:
            raise ServerError.wrapping("bad_bot", error) from None
        index = free_seat(self.seats, seat)
        level = level.lower()
        bot = Seat("bot", name=bot_name(self.seats, level), level=level)
        async with self._changing():
            self.seats[index] = bot
        name = self.host.user_name(user_id)
        self.host.tell(self, "server.notice.bot_added", name=name, bot=bot.name, seat=index + 1)
        return index

    async def invite(
        self, user_id: int, bot_id: int, name: str, owner: str, seat: int | None
    ) -> int:
        """Seat the bot account ``bot_id`` (of ``owner``) as one seats a built-in bot."""
        self._require_open(user_id)
        if self.seat_of(bot_id) is not None:
            raise ServerError("already_seated_there", status=409, name=name)
        return await self.join(bot_id, name, seat, owner)

    async def set_option(self, user_id: int, name: str, value: str) -> None:
        self._require_open(user_id)
        options = {**self.options, name: value}
        try:
            game = load_game(self.game.name, self.game.players, **options)
        except OptionError as error:
            raise ServerError.wrapping("bad_option", error) from None
        async with self._changing():
            self.options, self.game = options, game

    async def leave(self, user_id: int) -> None:
        seat = self.seat_of(user_id)
        if seat is None:
            raise ServerError("not_seated", status=409)
        name = self.seats[seat].name
        async with self._changing():
            if self.status == "open":
                self.seats[seat] = Seat()
            elif self.status == "playing":
                self.seats[seat].replaced = True
        if self.status == "open":
            self.host.tell(self, "server.notice.left", name=name)
        elif self.status == "playing":
            self.host.tell(self, "server.notice.left_game", name=name)
            self.turns.next()

    async def remove(self, user_id: int, level: str) -> bool:
        """A moderator takes the person from the table: a bot of ``level`` plays their seat
        for good (at an open table, the seat is free again); whether they were there."""
        seat = self.seat_of(user_id)
        if seat is None:
            watching = self.spectators.pop(user_id, None) is not None
            if watching:
                self.host.table_changed(self)
            return watching
        if self.status not in ("open", "playing"):
            return False
        name = self.seats[seat].name
        async with self._changing():
            playing = self.status == "playing"
            bot = Seat("bot", name=bot_name(self.seats, level), level=level)
            self.seats[seat] = bot if playing else Seat()
        self.host.tell(self, "server.notice.removed", name=name)
        if self.status == "playing":
            self.turns.next()
        return True

    async def start(self, user_id: int) -> None:
        self._require_open(user_id)
        await self.begin()

    async def begin(self) -> None:
        """Start the game, every seat taken (a tournament's table starts on its own)."""
        if any(seat.kind == "empty" for seat in self.seats):
            raise ServerError("seats_empty", status=409)
        async with self._lock:
            # the table says "playing" only once its first chance outcomes are stored with it
            entries = await self._store(self.game.new_initial_state(), [], "playing")
            self.status = "playing"
            if self.unattended is not None:  # the countdown of an open table nobody is at
                self.unattended.cancel()
                self.unattended = None
            _log.info("the game starts")
            self.host.tell(self, "server.notice.started")
            self.host.table_changed(self)
            self._adopt(entries)

    def _require_open(self, user_id: int) -> None:
        if self.status != "open":
            raise ServerError("already_started", status=409)
        if self.seat_of(user_id) is None:
            raise ServerError("not_seated", status=403)

    def _changed(self) -> None:
        """A change that stands whatever the database says (a bot takes over a seat, a
        person comes back): told now, stored as soon as the database takes it."""
        self.host.table_changed(self)
        self.host.spawn(self.save_until_stored())

    async def save_until_stored(self) -> None:
        """Store the table's row as it is at each attempt, until the database takes it
        (``RETRY_FIRST`` seconds after a failure, then twice as long each time), or until
        another node serves the table."""
        if self.moved:
            return
        attempts = retrying_async(
            StorageError, RETRY_FIRST, RETRY_LONGEST, until=lambda: self.moved
        )

        async def save() -> None:  # a coroutine function: tenacity awaits only those
            await self.host.storage.tables.save(self.row(), self.write_fence())

        try:
            await attempts(save)
        except TableMoved:
            self.host.lost(self)

    @contextlib.asynccontextmanager
    async def _changing(self) -> AsyncIterator[None]:
        """Change the seats, options or status inside, then store them: if the database
        does not take them, they are undone and the request is refused, so that memory and
        database never disagree."""
        before = (
            [replace(seat) for seat in self.seats],
            self.options,
            self.game,
            self.status,
            self.result,
        )
        try:
            yield
            if self.moved:
                raise TableMoved(self.id)
            await self.host.storage.tables.save(self.row(), self.write_fence())
        except BaseException as error:
            self.seats, self.options, self.game, self.status, self.result = before
            if isinstance(error, TableMoved):
                self.host.lost(self)
            raise
        self.host.table_changed(self)

    # -- play -------------------------------------------------------------------------

    async def act(self, user_id: int, text: str, seq: int, request: str | None = None) -> int:
        """Play ``text`` for the user's seat at position ``seq``; returns the new position.

        The seat's view of the new position carries ``request``, the id of the message.
        """
        seat = self.seat_of(user_id)
        if seat is None:
            raise ServerError("not_seated", status=403)
        if self.seats[seat].replaced:
            if self.seats[seat].forfeited:
                raise ServerError("forfeited", status=409)
            if self.seats[seat].owner is not None:
                raise ServerError("bot_replaced", status=409)
            await self.come_back(user_id)
        return await self.play(seat, text, seq, request)

    async def play(
        self,
        seat: int,
        text: str | int,
        seq: int,
        request: str | None = None,
        stand_in: bool = False,
        position: State | None = None,
    ) -> int:
        """Play for ``seat`` at ``seq``; with ``position``, only if the table is still at that
        very position (a move taken back and played again brings the same ``seq`` back)."""
        took = time.monotonic() - self.shown_at
        async with self._lock:
            state = self.state
            if state is None or self.status != "playing":
                raise ServerError("not_playing", status=409)
            if seq != self.seq or (position is not None and position is not state):
                raise ServerError("stale", status=409, seq=seq, current=self.seq)
            if state.current_player() != seat:
                raise ServerError("not_your_turn", status=409)
            following = state.clone()
            try:
                action = following.string_to_action(text) if isinstance(text, str) else text
                following.apply_action(action)
            except IllegalActionError as error:
                raise ServerError.wrapping("illegal", error) from None
            entries = await self._store(following, [(seat, action)], stand_in=stand_in, took=took)
            self._adopt(entries, request)
            return self.seq

    async def _store(
        self,
        state: State,
        moves: list[tuple[int, int]],
        status: str | None = None,
        stand_in: bool = False,
        took: float | None = None,
    ) -> _Stored:
        """Draw pending chance and log the moves, with the table's row when its ``status``
        changes or the game ends, and then the results and ratings: all in one transaction.
        ``stand_in``: the move is a bot's, for an absent person; ``took``: its seconds.

        The caller holds the lock. Until the commit returns, the table shows the position
        before the move, so nobody hears of a move that might still be lost; if the
        commit fails, :class:`StorageError` leaves the table as it was.
        """
        if state.current_player() == CHANCE:
            state.resolve_chance(random.Random(f"{self.seed}:{self.seq + len(moves)}"))
            drawn = state.history_since(self.state)[len(moves) :]
            moves = moves + [(CHANCE, action) for action in drawn]
        entries = [  # a seat's move comes first, with its stand-in and time; then chance
            LoggedAction(self.seq, *moves[0], stand_in, took)
            if index == 0
            else LoggedAction(self.seq + index, actor, action)
            for index, (actor, action) in enumerate(moves)
        ]
        if self.moved:
            raise TableMoved(self.id)
        storage = self.host.storage
        deadline, to_act = self.turns.clock_for(state)
        try:
            if state.is_terminal():
                row = replace(
                    self.row(),
                    status="finished",
                    result=state.returns(),
                    finished_at=time.time(),
                    deadline=None,
                    to_act=None,
                )
                played, stand_ins = counted(self.moves, self.stand_in_moves, entries)
                standings = final_standings(
                    self.seats, state, played, stand_ins, self.rated, self.host.bot_accounts
                )
                fence = self.write_fence()
                results = await storage.tables.finish(self.id, entries, row, standings, fence)
                return _Stored(state, moves, entries, None, None, row.finished_at, results)
            changed = None  # a live table's clock is not stored: it starts again on a restart
            if status is not None or (self.over_days and (deadline or self.deadline)):
                changed = replace(
                    self.row(), status=status or self.status, deadline=deadline, to_act=to_act
                )
            await storage.tables.append(self.id, entries, changed, self.write_fence())
        except TableMoved:
            self.host.lost(self)
            raise
        return _Stored(state, moves, entries, deadline, to_act)

    def _adopt(self, stored: _Stored, request: str | None = None) -> None:
        """``stored`` is the table's position now: publish it to every seat."""
        state, moves = stored.state, stored.moves
        self.state = state
        self.shown_at = time.monotonic()
        self.seq += len(stored.entries)
        waiting_for = self.to_act
        self.deadline, self.to_act = stored.deadline, stored.to_act
        self.moves, self.stand_in_moves = counted(self.moves, self.stand_in_moves, stored.entries)
        asked = self.take_backs.asked
        self.take_backs.logged(stored.entries)
        if asked is not None:
            self.host.table_changed(self)
        if state.is_terminal():
            self.status = "finished"
            self.fence = None  # the lease ended with the game
            self.result = state.returns()
            self.finished_at = stored.finished_at
            self.results = stored.results
            self.host.table_changed(self)
        self.turns.next()
        if self.over_days and self.to_act is not None and self.to_act != waiting_for:
            self.host.your_turn(self, self.to_act)
        # what was played stays out of the log: it may be hidden from some seats
        _log.debug("position %d: %d actions logged", self.seq, len(stored.entries))
        self.views.publish(moves[0][0] if request is not None else None, request)
        if state.is_terminal():
            _log.info("the game is over")
            # after the last views, so that a log tells the last move before the end
            results, winners = final_words(self.seats, state)
            self.host.tell(self, "server.notice.finished", results=results, winners=winners)

    async def rewind(self, start: int, seq: int) -> None:
        """The log from ``start`` on is removed, and the table is at the position before it,
        if it is still at ``seq`` (see ``taking_back``, which decides when this may be)."""
        async with self._lock:
            if self.state is None or self.status != "playing" or seq != self.seq:
                raise ServerError("stale", status=409, seq=seq, current=self.seq)
            count = self.seq - start
            state = self.game.new_initial_state()
            for action in self.state.history()[:-count]:
                state.apply_action(action)
            if self.moved:
                raise TableMoved(self.id)
            try:
                await self.host.storage.tables.take_back(self.id, start, self.write_fence())
            except TableMoved:
                self.host.lost(self)
                raise
            removed = self.take_backs.taken(count)
            self.moves, self.stand_in_moves = counted(
                self.moves, self.stand_in_moves, removed, taken_back=True
            )
            self.state, self.seq = state, start
            self.shown_at = time.monotonic()
            self.deadline = self.to_act = None  # the clock starts again
            _log.debug("position %d: %d actions taken back", self.seq, count)
            self.host.table_changed(self)
            self.turns.next()
            self.views.publish()

    async def fall_asleep(self, node: str) -> bool:
        """Store the table as asleep, to leave memory (see ``table_life``), and end this
        ``node``'s lease of it, if nobody is at it and a person's clock runs; whether it did.
        Nothing is stored of it here after."""
        async with self._lock:
            if self.status != "playing" or self.deadline is None or self.attended() or self.moved:
                return False
            try:
                kept = replace(self.row(), chat=[said_to(said) for said in self.history])
                await self.host.storage.tables.sleep(kept, node, self.write_fence())
            except TableMoved:
                self.host.lost(self)
                return False
            except StorageError:
                return False  # it stays awake, and tries again at the next look
            self.moved = True  # a request that found it before it left is refused
            self.stop_timers()
            _log.info("nobody is at the table: it sleeps until someone comes")
            return True

    def stop_timers(self) -> None:
        """No clock runs out, and no countdown closes the table."""
        self.turns.stop()
        if self.unattended is not None:
            self.unattended.cancel()
            self.unattended = None

    def timed_out(self, seat: int) -> None:
        """The clock of the person at ``seat`` ran out: a bot plays for them until they come
        back; over days, as the table's rule says, a bot plays this one move (see ``Turns``)
        or the person loses, a bot playing their seat to the end."""
        name = self.seats[seat].name
        self.deadline = self.to_act = None
        if self.over_days and self.timeout == "bot":
            self.host.tell(self, "server.notice.timeout_move", name=name)
            return
        self.seats[seat].replaced = True
        if self.over_days:
            self.seats[seat].forfeited = True
            self.host.tell(self, "server.notice.timeout_lost", name=name)
        else:
            self.host.tell(self, "server.notice.timeout", name=name)
        self._changed()

    # -- absence ----------------------------------------------------------------------

    async def come_back(self, user_id: int) -> None:
        seat = self.seat_of(user_id)
        if seat is None or not self.seats[seat].replaced or self.status != "playing":
            return
        if self.seats[seat].owner is not None or self.seats[seat].forfeited:
            return  # a bot account that stopped answering, or a game lost on time
        self.seats[seat].replaced = False
        self.host.tell(self, "server.notice.back", name=self.seats[seat].name)
        self._changed()
        self.turns.next()
        self.views.publish()

    def went_away(self, user_id: int) -> None:
        """The person's last connection closed long ago: a bot takes over their seat (not
        over days, where the clock alone says when a person is late)."""
        seat = self.seat_of(user_id)
        if seat is None or self.status != "playing" or self.seats[seat].replaced:
            return
        if self.over_days:
            return
        self.seats[seat].replaced = True
        self.host.tell(self, "server.notice.replaced", name=self.seats[seat].name)
        self._changed()
        if self.state is not None and self.state.current_player() == seat:
            self.turns.next()

    # -- restore ----------------------------------------------------------------------

    async def restore(self, entries: list[LoggedAction]) -> None:
        """Replay the log of a game that was running when the server stopped.

        A game whose last move was logged just before a stop is marked finished now.
        """
        state = self.game.new_initial_state()
        for entry in entries:
            if entry.seq != self.seq or entry.actor != state.current_player():
                raise RuntimeError(f"table {self.id}: the log does not replay at {entry.seq}")
            state.apply_action(entry.action)
            self.seq += 1
        self.moves, self.stand_in_moves = counted(self.moves, self.stand_in_moves, entries)
        self.take_backs.logged(entries)
        self.state = state
        self.shown_at = time.monotonic()
        if not self.over_days:  # the people were cut off meanwhile: their clock starts again
            self.deadline = self.to_act = None
        if state.is_terminal() and self.status != "finished":  # the log ends it, the row did not
            stored = await self._store(state, [])
            self.status, self.result, self.fence = "finished", state.returns(), None
            self.finished_at, self.results = stored.finished_at, stored.results
        elif self.status == "finished":
            self.results = await self.host.storage.ratings.results(self.id) or None


@dataclass(frozen=True)
class _Stored:
    """Moves committed to the log, not yet the table's position."""

    state: State
    moves: list[tuple[int, int]]
    entries: list[LoggedAction]
    deadline: float | None
    to_act: int | None
    """The clock that starts at the new position (see ``Turns.clock_for``)."""
    finished_at: float | None = None
    results: list[SeatResult] | None = None
