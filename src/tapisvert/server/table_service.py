"""What people do at tables: open one, sit down, leave, watch, play, set it up, rematch.

A request goes to the table where it is served, here or on another node (see
``Cluster.on_table``); ``operate`` does it on a table served here, whichever node asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from tapisvert.bots import make_bot
from tapisvert.core.errors import OptionError
from tapisvert.core.registry import fewest_players, game_class, game_names, load_game
from tapisvert.server.connection import Connection
from tapisvert.server.connections import Connections
from tapisvert.server.errors import ServerError
from tapisvert.server.notices import new_line, removed_from, said_to
from tapisvert.server.own_bots import BotSeats
from tapisvert.server.protocol import ChatLine, Unsay
from tapisvert.server.pubsub import seat_channel, table_channel
from tapisvert.server.quotas import Quotas
from tapisvert.server.rooms import no_such_room
from tapisvert.server.seats import Seat
from tapisvert.server.speeds import TimeoutRule
from tapisvert.server.storage import TableRow
from tapisvert.server.table_life import TableLife
from tapisvert.server.tables import GameTable
from tapisvert.server.users import User

QUICK_PLAYERS = 4
"""Seats of a table opened to play at once, where the game allows so many (``play_now``)."""
OPEN_TABLES_PER_ROOM = 100
"""Open tables one room may hold at once (on each node)."""
OPEN_TABLES_PER_PERSON = 3
"""Open tables one person may sit at at once."""
OPEN_TABLES_PER_ADDRESS = 6
"""Open tables the people of one address may have opened (on each node): a few addresses
cannot keep a room full."""


class TableService:
    """The requests about tables, from WebSocket, HTTP and chat commands alike."""

    def __init__(
        self, life: TableLife, connections: Connections, quotas: Quotas, bot_seats: BotSeats
    ) -> None:
        self.life = life
        self.bot_seats = bot_seats
        self.cluster = life.cluster
        self.registry = life.registry
        self.connections = connections
        self.quotas = quotas
        self._opening: Counter[tuple[str, str]] = Counter()
        """Tables being opened, by person, address and room (see ``_opening_table``)."""
        self._rematching = asyncio.Lock()
        """Held while a rematch table is made: a second request waits for it, not a copy."""

    async def create_table(
        self,
        user: User,
        room: str,
        game: str,
        players: int,
        options: dict[str, Any],
        clock: float | None,
        rated: bool = True,
        timeout: TimeoutRule = "bot",
    ) -> GameTable:
        """A new open table with the person at seat 1; ``timeout``: over days, what happens
        when a person's clock runs out (see ``speeds``)."""
        if room not in self.life.presence.in_rooms:
            raise no_such_room(room)
        try:
            load_game(game, players, **options)
        except OptionError as error:
            raise ServerError.wrapping("bad_option", error) from None
        options = {name: value for name, value in options.items() if value is not None}
        seats = [Seat() for _ in range(players)]
        with self._opening_table(user, room):
            table = await self._open_table(room, game, options, clock, seats, rated, timeout)
            table.opened_from = user.address
            await self.join(user, table.id, 0)
        return table

    async def play_now(
        self, user: User, room: str, game: str, level: str, friends: bool = False
    ) -> int:
        """A game in one request: a table of the person and bots of ``level`` in every other
        seat (``QUICK_PLAYERS`` seats where the game allows), with the game's own options,
        started at once; with ``friends``, the other seats are left open for the people the
        person invites, and the table waits for them."""
        if game not in game_names():
            raise ServerError("no_such_game", game=game, games=", ".join(game_names()))
        spec = game_class(game)
        players = max(fewest_players(game), min(QUICK_PLAYERS, spec.max_players))
        try:
            make_bot(level, load_game(game, players))  # before a table is opened for it
        except OptionError as error:
            raise ServerError.wrapping("bad_bot", error) from None
        table = await self.create_table(user, room, game, players, {}, None)
        if friends:
            return table.id
        for _ in range(players - 1):
            await self.add_bot(user, table.id, level, None)
        await self.start_game(user, table.id)
        return table.id

    @contextlib.contextmanager
    def _opening_table(self, user: User, room: str) -> Iterator[None]:
        """Count a new table against its person's and address's quotas, within the bounds
        on open tables (a room full of empty tables is of use to nobody); tables being
        opened count as open until they are. A node that is stopping opens none: the
        client asks again, of another node."""
        if self.cluster.draining:
            raise ServerError("draining", status=503)
        opening = (("person", str(user.id)), ("address", user.address), ("room", room))
        waiting = self._opening[opening[0]] + sum(
            table.status == "open" for table, _ in self.registry.seated_tables(user.id)
        )
        if waiting >= OPEN_TABLES_PER_PERSON:
            raise ServerError("too_many_open_tables", status=429, limit=OPEN_TABLES_PER_PERSON)
        open_here = self.registry.open_tables()
        from_address = self._opening[opening[1]] + sum(
            table.opened_from == user.address for table in open_here
        )
        if from_address >= OPEN_TABLES_PER_ADDRESS:
            raise ServerError("address_tables", status=429, limit=OPEN_TABLES_PER_ADDRESS)
        in_room = self._opening[opening[2]] + sum(table.room == room for table in open_here)
        if in_room >= OPEN_TABLES_PER_ROOM:
            raise ServerError("room_full", status=429, limit=OPEN_TABLES_PER_ROOM)
        self.quotas.take("tables_per_address", user.address)
        self.quotas.take("tables", user.id)
        self._opening.update(opening)
        try:
            yield
        finally:
            self._opening.subtract(opening)
            self._opening += Counter()  # drops the zeros

    async def _open_table(
        self,
        room: str,
        game: str,
        options: dict[str, Any],
        clock: float | None,
        seats: list[Seat],
        rated: bool,
        timeout: TimeoutRule = "bot",
    ) -> GameTable:
        """A new open table, stored, with these seats; nobody is told of it yet."""
        row = TableRow(
            room=room,
            game=game,
            players=len(seats),
            options=options,
            seed=random.SystemRandom().getrandbits(62),
            clock=clock,
            status="open",
            seats=[seat.stored() for seat in seats],
            rated=rated,
            timeout=timeout,
        )
        lease = self.life.settings.lease_seconds
        row.id = await self.life.storage.tables.create(row, self.cluster.node, lease)
        table = GameTable(row, self.life)
        table.fence = 1
        self.registry.hold(table)
        return table

    async def open_started(
        self,
        room: str,
        game: str,
        options: dict[str, Any],
        clock: float | None,
        seats: list[Seat],
    ) -> GameTable:
        """A rated table with these seats, its game started at once (a tournament's): the
        people seated follow it, wherever they are connected."""
        table = await self._open_table(room, game, options, clock, seats, rated=True)
        await table.begin()
        await self._announce(table)
        return table

    async def _announce(self, table: GameTable) -> None:
        """Tell the room of a table opened for people who did not ask for it themselves
        (a rematch, a tournament's round): those seated follow it, wherever connected."""
        self.life.table_changed(table)
        for index, seat in enumerate(table.seats):
            if seat.kind == "human" and seat.user_id is not None:
                await self.connections.follow_all(seat.user_id, table.id, index)

    async def rematch(self, user: User, table_id: int) -> int:
        """The table of the rematch of a finished game: the same game, options, clock, bots
        and people, each seat moved one along (seat 1's player to seat 2…); asked again,
        the same table. Anybody who sat at the finished table may ask."""
        rematch: int = await self.cluster.on_table(table_id, "rematch", user)
        return rematch

    async def _rematch_here(self, table: GameTable, user: User) -> int:
        if table.seat_of(user.id) is None:
            raise ServerError("not_seated", status=403)
        if table.status != "finished":
            raise ServerError("not_over", status=409)
        async with self._rematching:
            if table.rematch is None:
                seats = [  # a bot account sits again only if invited again, while connected
                    Seat()
                    if seat.owner is not None
                    else replace(seat, replaced=False, forfeited=False)
                    for seat in table.seats
                ]
                with self._opening_table(user, table.room):
                    rematch = await self._open_table(
                        table.room,
                        table.game.name,
                        table.options,
                        table.clock,
                        seats[-1:] + seats[:-1],
                        table.rated,
                        table.timeout,
                    )
                    rematch.opened_from = user.address
                table.rematch = rematch.id
                await self._announce(rematch)
                self.life.tell(
                    table,
                    "server.notice.rematch",
                    rematch=rematch.id,
                    name=user.name,
                    number=rematch.id,
                )
        return table.rematch

    async def join(self, user: User, table_id: int, seat: int | None) -> int:
        owner = await self.bot_seats.owner_of(user, table_id)
        index: int = await self.cluster.on_table(table_id, "join", user, seat=seat, owner=owner)
        await self.connections.follow_all(user.id, table_id, index)
        return index

    async def leave(self, user: User, table_id: int) -> None:
        await self.cluster.on_table(table_id, "leave", user)
        self.connections.unfollow_all(user.id, table_id)

    async def watch(self, connection: Connection, table_id: int) -> None:
        """Follow a table as a spectator; someone seated there follows their own seat."""
        seat: int | None = await self.cluster.on_table(table_id, "watch", connection.user)
        await self.connections.follow(connection, table_id, seat)

    async def act(
        self, user: User, table_id: int, action: str, seq: int, request: str | None = None
    ) -> int:
        position: int = await self.cluster.on_table(
            table_id, "act", user, action=action, seq=seq, request=request
        )
        return position

    async def take_back(
        self, user: User, table_id: int, seq: int | None, answer: str = "ask"
    ) -> int:
        """Take back the user's last move, or answer another player's request to (see
        ``taking_back``); the table's position after it."""
        position: int = await self.cluster.on_table(table_id, "undo", user, seq=seq, answer=answer)
        return position

    async def start_game(self, user: User, table_id: int) -> None:
        await self.cluster.on_table(table_id, "start", user)

    async def set_option(self, user: User, table_id: int, name: str, value: str) -> None:
        await self.cluster.on_table(table_id, "option", user, name=name, value=value)

    async def add_bot(self, user: User, table_id: int, level: str, seat: int | None) -> None:
        await self.cluster.on_table(table_id, "bot", user, level=level, seat=seat)

    async def view(self, user: User, table_id: int) -> str:
        """The user's view of a table (a spectator's where they do not sit), as JSON."""
        frame: str = await self.cluster.on_table(table_id, "view", user)
        return frame

    # -- on a table served here -------------------------------------------------------

    async def operate(
        self, table: GameTable, operation: str, user: User, arguments: dict[str, Any]
    ) -> Any:
        """A request for a table served here; what it answers crosses between nodes."""
        match operation:
            case "act":
                return await self._act(table, user, arguments)
            case "undo":
                return await table.take_backs.request(
                    user.id, arguments["seq"], arguments["answer"]
                )
            case "join":
                index = await table.join(
                    user.id, user.name, arguments["seat"], arguments.get("owner")
                )
                if table.spectators.pop(user.id, None) is not None:
                    self.life.table_changed(table)
                return index
            case "leave":
                if user.id in table.spectators:
                    self.life.unwatch(table, user.id)
                else:
                    await table.leave(user.id)
            case "watch":
                seat = table.seat_of(user.id)
                if seat is None:
                    table.spectators[user.id] = table.spectators.get(user.id, 0) + 1
                    self.life.table_changed(table)
                return seat
            case "unwatch":
                if user.id in table.spectators:
                    self.life.unwatch(table, user.id)
            case "start":
                await table.start(user.id)
            case "option":
                await table.set_option(user.id, arguments["name"], arguments["value"])
            case "bot":
                return await table.add_bot(user.id, arguments["level"], arguments["seat"])
            case "invite":
                return await table.invite(
                    user.id,
                    arguments["bot_id"],
                    arguments["name"],
                    arguments["owner"],
                    arguments["seat"],
                )
            case "rematch":
                return await self._rematch_here(table, user)
            case "chat":
                if table.seat_of(user.id) is None and user.id not in table.spectators:
                    raise ServerError("chat_not_at_table", status=403, table=table.id)
                line = new_line(arguments["text"], user.name, table=table.id)
                table.history.append(line)
                self.life.pubsub.publish(table_channel(table.id), line.model_dump_json())
            case "kick":
                return await table.remove(arguments["target"], self.life.settings.replacement_level)
            case "close":
                await self.life.shut(table)
            case "unsay":
                return self._unsay(table, arguments["line"], arguments["sender"])
            case "said":
                return [said.model_dump(mode="json") for said in _lines(table)]
            case "who":
                return table.people()
            case "info":
                return table.info().model_dump(mode="json")
            case "view":
                return table.views.frame(table.seat_of(user.id))
            case "snapshot":
                return await self._snapshot(table, user, **arguments)
            case _:
                raise ServerError("node_failed", status=500)
        return None

    async def _act(self, table: GameTable, user: User, arguments: dict[str, Any]) -> int:
        """A person's move, counted as accepted or refused (see ``metrics``)."""
        metrics = self.life.metrics
        try:
            position = await table.act(
                user.id, arguments["action"], arguments["seq"], arguments["request"]
            )
        except ServerError as refusal:
            metrics.refused(table.game.name, refusal.code)
            raise
        metrics.accepted(table.game.name)
        return position

    def _unsay(self, table: GameTable, line: str | None, sender: str | None) -> Any:
        """Remove a chat line from the table's history and every client's log."""
        history = list(table.history)
        removed = removed_from(history, line, sender)
        if removed is None:
            return None
        table.history.clear()
        table.history.extend(history)
        gone = Unsay(table=table.id, line=removed.line or "")
        self.life.pubsub.publish(table_channel(table.id), gone.model_dump_json())
        return removed.model_dump(mode="json")

    async def _snapshot(
        self, table: GameTable, user: User, seat: int | None, history: bool, returning: bool
    ) -> dict[str, Any]:
        """What a connection that starts following the table is sent: the table, what was
        said there (``history``), the seat's view; ``returning``: the user is back."""
        self.life.pubsub.expect(seat_channel(table.id, seat))
        snapshot = {
            "seq": table.seq,
            "info": table.info().model_dump(mode="json"),
            "history": [said_to(said) for said in table.history] if history else [],
            "view": None if table.state is None else table.views.frame(seat),
        }
        if returning:
            self.life.review_attendance(table)
            await table.come_back(user.id)
        return snapshot

    async def take_over(self, row: TableRow, fence: int) -> None:
        """Serve the table of a node that stopped: its players, wherever they are
        connected, hear the position as it is now."""
        table = await self.life.bring_back(row, fence)
        self.life.table_changed(table)
        if table.state is not None:
            table.views.publish()
        for index, seat in enumerate(table.seats):
            if seat.user_id is not None:
                await self.connections.follow_all(seat.user_id, table.id, index)


def _lines(table: GameTable) -> list[ChatLine]:
    """The chat lines the table keeps (its notices left out)."""
    return [said for said in table.history if isinstance(said, ChatLine)]
