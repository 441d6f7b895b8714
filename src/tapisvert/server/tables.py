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
import random
import time
from collections import deque
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

import orjson

from tapisvert.bots import make_bot
from tapisvert.core.errors import IllegalActionError, OptionError
from tapisvert.core.game import CHANCE, Game, State
from tapisvert.core.registry import load_game
from tapisvert.server.errors import ServerError, StorageError, TableMoved
from tapisvert.server.notices import CHAT_HISTORY, Said
from tapisvert.server.protocol import SeatRating, SeatView, TableInfo
from tapisvert.server.pubsub import PubSub, seat_channel
from tapisvert.server.ratings import Standing, places
from tapisvert.server.settings import Settings
from tapisvert.server.storage import LoggedAction, SeatResult, Storage, TableRow
from tapisvert.server.thinking import Thinking

RETRY_FIRST = 0.25
RETRY_LONGEST = 10.0
"""Seconds before a bot's move or a seat's change the database did not take is stored
again, doubling each time up to the longest."""


class TableHost(Protocol):
    """What a table needs of the node that serves it (see ``table_life.TableLife``)."""

    storage: Storage
    pubsub: PubSub
    settings: Settings
    thinking: Thinking
    sole: bool
    """No other node: a write carries no fencing token (see ``GameTable.write_fence``)."""
    bot_accounts: dict[str, int]

    def is_online(self, user_id: int | None) -> bool: ...

    def user_name(self, user_id: int) -> str: ...

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None: ...

    def lost(self, table: GameTable) -> None: ...

    def tell(
        self, table: GameTable, key: str, rematch: int | None = None, **arguments: Any
    ) -> None: ...

    def table_changed(self, table: GameTable) -> None: ...


@dataclass
class Seat:
    kind: Literal["empty", "human", "bot"] = "empty"
    user_id: int | None = None
    name: str | None = None
    level: str | None = None
    replaced: bool = False
    """An absent person's seat, played by a bot until they come back."""

    def stored(self) -> dict[str, Any]:
        """The seat as its table's row keeps it (``asdict`` copies deeply, and slowly)."""
        return dict(vars(self))


class GameTable:
    def __init__(self, row: TableRow, host: TableHost) -> None:
        self.id = row.id
        self.room = row.room
        self.host = host
        self.seed = row.seed
        self.clock = row.clock
        self.status = row.status
        self.result = row.result
        self.rated = row.rated
        self.finished_at = row.finished_at
        self.results: list[SeatResult] | None = None
        """Each seat's place and rating change, once the game is over."""
        self.options: dict[str, Any] = dict(row.options)
        self.game: Game[Any] = load_game(row.game, row.players, **self.options)
        self.seats = [Seat(**seat) for seat in row.seats]
        self.moves = [0] * len(self.seats)
        self.stand_in_moves = [0] * len(self.seats)
        """Each seat's moves, and those a bot played for its absent person."""
        self.state: State | None = None
        self.seq = 0
        self.deadline: float | None = None
        self.spectators: dict[int, int] = {}
        """Watching user id → number of their connections watching."""
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._sent: dict[int | None, dict[str, Any]] = {}
        """The observation last sent to each seat's channel: the next frame sends the changes."""
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
        )

    def info(self) -> TableInfo:
        return TableInfo(
            table=self.id,
            room=self.room,
            game=self.game.name,
            players=self.game.players,
            options=dict(self.game.options),
            clock=self.clock,
            status=self.status,  # type: ignore[arg-type]
            seats=[
                SeatView(
                    name=seat.name,
                    kind=seat.kind,
                    level=seat.level,
                    present=seat.kind == "bot" or self.host.is_online(seat.user_id),
                    replaced=seat.replaced,
                )
                for seat in self.seats
            ],
            spectators=len(self.spectators),
            result=self.result,
            rated=self.rated,
            ratings=None if self.results is None else seat_ratings(self.results),
        )

    def view_frame(
        self, seat: int | None, since: dict[str, Any] | None = None, ack: str | None = None
    ) -> str:
        """The view of ``seat`` (``None``: a spectator) as a JSON text.

        With ``since`` (the observation last sent on that seat's channel) the frame carries
        only the parts of the observation that changed: a finished round is not sent again
        with every card. ``full`` tells which kind a frame is; ``ack`` answers the move
        that led to it.
        """
        state = self.state
        if state is None:
            raise ServerError("not_started")
        observation = state.view(seat)
        appended: dict[str, Any] = {}
        if since is None:
            shown = observation
        else:
            shown = {
                key: value
                for key, value in observation.items()
                if (sent := since.get(key)) is not value and sent != value
            }
            histories = self.game.observation_class.histories
            for key in histories & shown.keys():  # grown: only the new items
                gained = _gained(shown[key], since.get(key))
                if gained is not None:
                    del shown[key]
                    appended[key] = gained
        self._sent[seat] = observation
        to_act = state.current_player()
        acting = to_act >= 0
        legal = state.legal_strings() if acting and to_act == seat else []
        frame = {
            "type": "view",
            "table": self.id,
            "seq": self.seq,
            "seat": seat,
            "ack": ack,
            "to_act": to_act if acting else None,
            "legal": legal,
            "deadline": self.deadline if acting else None,
            "full": since is None,
            "view": shown,
            "result": self.result,
            "winners": None if self.result is None else state.winners(),
        }
        if appended:
            frame["append"] = appended
        return orjson.dumps(frame).decode()

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
        """Someone is at the table: a seated person who is connected, or a spectator."""
        return bool(self.spectators) or any(
            seat.kind == "human" and self.host.is_online(seat.user_id) for seat in self.seats
        )

    def people(self) -> list[str]:
        seated = [f"P{index + 1} {seat.name}" for index, seat in enumerate(self.seats) if seat.name]
        watching = [self.host.user_name(user) for user in self.spectators]
        return seated + [f"({name})" for name in watching]

    # -- before the start -------------------------------------------------------------

    async def join(self, user_id: int, name: str, seat: int | None) -> int:
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
        index = self._free_seat(seat)
        async with self._changing():
            self.seats[index] = Seat("human", user_id, name)
        self.host.tell(self, "server.notice.sat", name=name, seat=index + 1)
        return index

    async def add_bot(self, user_id: int, level: str, seat: int | None) -> int:
        self._require_open(user_id)
        try:
            make_bot(level, self.game)
        except OptionError as error:
            raise ServerError.wrapping("bad_bot", error) from None
        index = self._free_seat(seat)
        level = level.lower()
        bot = Seat("bot", name=self._bot_name(level), level=level)
        async with self._changing():
            self.seats[index] = bot
        name = self.host.user_name(user_id)
        self.host.tell(self, "server.notice.bot_added", name=name, bot=bot.name, seat=index + 1)
        return index

    def _bot_name(self, level: str) -> str:
        """``bot hard``, then ``bot hard 2``…: each seat's name says who it is.

        A person's name has no space, so no person is taken for a bot.
        """
        taken = {seat.name for seat in self.seats}
        name = f"bot {level}"
        number = 2
        while name in taken:
            name, number = f"bot {level} {number}", number + 1
        return name

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
            self.next_turn()

    async def start(self, user_id: int) -> None:
        self._require_open(user_id)
        if any(seat.kind == "empty" for seat in self.seats):
            raise ServerError("seats_empty", status=409)
        async with self._lock:
            # the table says "playing" only once its first chance outcomes are stored with it
            entries = await self._store(self.game.new_initial_state(), [], "playing")
            self.status = "playing"
            self.host.tell(self, "server.notice.started")
            self.host.table_changed(self)
            self._adopt(entries)

    def _require_open(self, user_id: int) -> None:
        if self.status != "open":
            raise ServerError("already_started", status=409)
        if self.seat_of(user_id) is None:
            raise ServerError("not_seated", status=403)

    def _free_seat(self, seat: int | None) -> int:
        if seat is None:
            for index, candidate in enumerate(self.seats):
                if candidate.kind == "empty":
                    return index
            raise ServerError("table_full", status=409)
        if not 0 <= seat < len(self.seats):
            raise ServerError("no_such_seat", seat=seat + 1, seats=len(self.seats))
        if self.seats[seat].kind != "empty":
            raise ServerError("seat_taken", status=409, seat=seat + 1)
        return seat

    def _changed(self) -> None:
        """A change that stands whatever the database says (a bot takes over a seat, a
        person comes back): told now, stored as soon as the database takes it."""
        self.host.table_changed(self)
        self.host.spawn(self.save_until_stored())

    async def save_until_stored(self) -> None:
        """Store the table's row as it is at each attempt, until the database takes it."""
        wait = RETRY_FIRST
        while not self.moved:
            try:
                await self.host.storage.save_table(self.row(), self.write_fence())
                return
            except TableMoved:
                self.host.lost(self)
                return
            except StorageError:
                await asyncio.sleep(wait)
                wait = min(2 * wait, RETRY_LONGEST)

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
            await self.host.storage.save_table(self.row(), self.write_fence())
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
            await self.come_back(user_id)
        return await self._play(seat, text, seq, request)

    async def _play(
        self,
        seat: int,
        text: str | int,
        seq: int,
        request: str | None = None,
        stand_in: bool = False,
    ) -> int:
        async with self._lock:
            state = self.state
            if state is None or self.status != "playing":
                raise ServerError("not_playing", status=409)
            if seq != self.seq:
                raise ServerError("stale", status=409, seq=seq, current=self.seq)
            if state.current_player() != seat:
                raise ServerError("not_your_turn", status=409)
            following = state.clone()
            try:
                action = following.string_to_action(text) if isinstance(text, str) else text
                following.apply_action(action)
            except IllegalActionError as error:
                raise ServerError.wrapping("illegal", error) from None
            entries = await self._store(following, [(seat, action)], stand_in=stand_in)
            self._adopt(entries, request)
            return self.seq

    async def _store(
        self,
        state: State,
        moves: list[tuple[int, int]],
        status: str | None = None,
        stand_in: bool = False,
    ) -> _Stored:
        """Draw pending chance and log the moves, with the table's row when its ``status``
        changes or the game ends, and then the results and ratings: all in one transaction.
        ``stand_in``: the move is a bot's, for an absent person.

        The caller holds the lock. Until the commit returns, the table shows the position
        before the move, so nobody hears of a move that might still be lost; if the
        commit fails, :class:`StorageError` leaves the table as it was.
        """
        if state.current_player() == CHANCE:
            state.resolve_chance(random.Random(f"{self.seed}:{self.seq + len(moves)}"))
            drawn = state.history_since(self.state)[len(moves) :]
            moves = moves + [(CHANCE, action) for action in drawn]
        entries = [
            LoggedAction(self.seq + index, actor, action, stand_in and index == 0)
            for index, (actor, action) in enumerate(moves)
        ]
        if self.moved:
            raise TableMoved(self.id)
        storage = self.host.storage
        try:
            if state.is_terminal():
                row = replace(
                    self.row(), status="finished", result=state.returns(), finished_at=time.time()
                )
                standings = self._standings(state, entries)
                fence = self.write_fence()
                results = await storage.finish(self.id, entries, row, standings, fence)
                return _Stored(state, moves, entries, row.finished_at, results)
            changed = None if status is None else replace(self.row(), status=status)
            await storage.append(self.id, entries, changed, self.write_fence())
        except TableMoved:
            self.host.lost(self)
            raise
        return _Stored(state, moves, entries)

    def _standings(self, state: State, entries: list[LoggedAction]) -> list[Standing]:
        """Each seat at the end: its account, points, whether it won, whether a bot played
        most of its moves. A bot level's account is rated once per game, by its best seat."""
        moves, stand_ins = self._counted(entries)
        scores, winners = state.returns(), state.winners()
        absent = [
            seat.kind == "human" and 2 * stand_ins[index] > moves[index]
            for index, seat in enumerate(self.seats)
        ]
        ranks = places(scores, winners, absent)
        accounts = [self._account(seat) for seat in self.seats]
        best: dict[int, int] = {}
        for index in sorted(range(len(self.seats)), key=lambda index: ranks[index]):
            account = accounts[index]
            if account is not None:
                best.setdefault(account, index)
        return [
            Standing(
                seat=index,
                account=accounts[index],
                score=scores[index],
                won=index in winners,
                absent=absent[index],
                rated=self.rated and index in best.values(),
            )
            for index in range(len(self.seats))
        ]

    def _account(self, seat: Seat) -> int | None:
        if seat.kind == "bot" and seat.level is not None:
            return self.host.bot_accounts.get(seat.level)
        return seat.user_id

    def _counted(self, entries: list[LoggedAction]) -> tuple[list[int], list[int]]:
        """Each seat's moves and stand-in moves, with ``entries`` counted in."""
        moves, stand_ins = list(self.moves), list(self.stand_in_moves)
        for entry in entries:
            if entry.actor >= 0:
                moves[entry.actor] += 1
                stand_ins[entry.actor] += entry.stand_in
        return moves, stand_ins

    def _adopt(self, stored: _Stored, request: str | None = None) -> None:
        """``stored`` is the table's position now: publish it to every seat."""
        state, moves = stored.state, stored.moves
        self.state = state
        self.seq += len(stored.entries)
        self.moves, self.stand_in_moves = self._counted(stored.entries)
        if state.is_terminal():
            self.status = "finished"
            self.fence = None  # the lease ended with the game
            self.result = state.returns()
            self.finished_at = stored.finished_at
            self.results = stored.results
            self.host.table_changed(self)
        self.next_turn()
        self.publish_views(moves[0][0] if request is not None else None, request)
        if state.is_terminal():
            # after the last views, so that a log tells the last move before the end
            results, winners = self._final_words(state)
            self.host.tell(self, "server.notice.finished", results=results, winners=winners)

    def _final_words(self, state: State) -> tuple[str, str]:
        """The final scores by name ("Ana 80, Bob 60") and the winners as the game decides
        them (its tie-breaks included), for the table's notice."""
        names = [seat.name or f"P{index + 1}" for index, seat in enumerate(self.seats)]
        scored = zip(names, state.returns(), strict=True)
        return (
            ", ".join(f"{name} {points:g}" for name, points in scored),
            ", ".join(names[seat] for seat in state.winners()),
        )

    def publish_views(self, mover: int | None = None, request: str | None = None) -> None:
        """Each followed seat's changes, and the spectators'; a seat nobody follows is skipped.

        The mover's view carries ``request``, the id of the move it answers.
        """
        pubsub = self.host.pubsub
        for seat in [*range(len(self.seats)), None]:
            channel = seat_channel(self.id, seat)
            if pubsub.has_subscribers(channel):
                ack = request if seat == mover else None
                pubsub.publish(channel, self.view_frame(seat, self._sent.get(seat), ack))
            else:
                self._sent.pop(seat, None)

    def stop_timers(self) -> None:
        """No clock runs out, and no countdown closes the table."""
        for timer in (self._timer, self.unattended):
            if timer is not None:
                timer.cancel()
        self._timer = self.unattended = None

    def next_turn(self) -> None:
        """Start the clock of the seat to act, or let a bot play for it."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.deadline = None
        state = self.state
        if state is None or self.status != "playing":
            return
        to_act = state.current_player()
        seat = self.seats[to_act]
        if seat.kind == "bot" or seat.replaced:
            asyncio.get_running_loop().call_later(
                self.host.settings.bot_delay, self.host.spawn, self._bot_turn(to_act, self.seq)
            )
        elif self.clock is not None:
            self.deadline = time.time() + self.clock
            self._timer = asyncio.get_running_loop().call_later(
                self.clock, self._time_out, to_act, self.seq
            )

    def _time_out(self, seat: int, seq: int) -> None:
        if self.seq != seq or self.status != "playing":
            return
        self.seats[seat].replaced = True
        self.host.tell(self, "server.notice.timeout", name=self.seats[seat].name)
        self._changed()
        self.next_turn()

    async def _bot_turn(self, seat: int, seq: int, wait: float = RETRY_FIRST) -> None:
        """Choose and play the bot's move; if the database does not take it, play again
        after ``wait`` seconds, then twice as long each time, until it does."""
        state = self.state
        if state is None or self.moved or self.seq != seq or state.current_player() != seat:
            return
        level = self.seats[seat].level or self.host.settings.replacement_level
        action = await self.host.thinking.choose(
            self.game.name,
            self.game.players,
            self.options,
            level,
            state.observation(seat),
            state.legal_actions(),
            f"{self.seed}:bot:{seq}",
        )
        seat_info = self.seats[seat]
        if seat_info.kind == "bot" or seat_info.replaced:
            try:
                await self._play(seat, action, seq, stand_in=seat_info.kind == "human")
            except StorageError:
                again = self._bot_turn(seat, seq, min(2 * wait, RETRY_LONGEST))
                asyncio.get_running_loop().call_later(wait, self.host.spawn, again)
            except ServerError:  # the person came back and played first
                return

    # -- absence ----------------------------------------------------------------------

    async def come_back(self, user_id: int) -> None:
        seat = self.seat_of(user_id)
        if seat is None or not self.seats[seat].replaced or self.status != "playing":
            return
        self.seats[seat].replaced = False
        self.host.tell(self, "server.notice.back", name=self.seats[seat].name)
        self._changed()
        self.next_turn()
        self.publish_views()

    def went_away(self, user_id: int) -> None:
        """The person's last connection closed long ago: a bot takes over their seat."""
        seat = self.seat_of(user_id)
        if seat is None or self.status != "playing" or self.seats[seat].replaced:
            return
        self.seats[seat].replaced = True
        self.host.tell(self, "server.notice.replaced", name=self.seats[seat].name)
        self._changed()
        if self.state is not None and self.state.current_player() == seat:
            self.next_turn()

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
        self.moves, self.stand_in_moves = self._counted(entries)
        self.state = state
        if state.is_terminal() and self.status != "finished":  # the log ends it, the row did not
            stored = await self._store(state, [])
            self.status, self.result, self.fence = "finished", state.returns(), None
            self.finished_at, self.results = stored.finished_at, stored.results
        elif self.status == "finished":
            self.results = await self.host.storage.results(self.id) or None


def seat_ratings(results: list[SeatResult]) -> list[SeatRating | None]:
    """Each seat's rating before and after the game, as shown; ``None`` where unrated."""
    return [
        None
        if result.before is None or result.after is None
        else SeatRating(before=result.before.shown, after=result.after.shown)
        for result in results
    ]


@dataclass(frozen=True)
class _Stored:
    """Moves committed to the log, not yet the table's position."""

    state: State
    moves: list[tuple[int, int]]
    entries: list[LoggedAction]
    finished_at: float | None = None
    results: list[SeatResult] | None = None


def _gained(value: Any, sent: Any) -> list[Any] | None:
    """The items ``value`` added at the end of the sequence ``sent``, if that is all that
    changed (a history starting again is sent whole)."""
    if (
        type(value) is type(sent)
        and isinstance(value, (list, tuple))
        and 0 < len(sent) < len(value)
        and value[: len(sent)] == sent
    ):
        return list(value[len(sent) :])
    return None
