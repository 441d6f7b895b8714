"""Rooms: entering one, its listing of tables and people, and the chat of rooms and tables.

A tournament's chat is a room too (``tournament-N``), with the same history, mutes, reports
and removals as the others; a page follows it (``follow``) rather than entering it, so that
the person stays in their room of the lobby meanwhile.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from tapisvert.core.registry import game_names, load_game
from tapisvert.i18n import DEFAULT_LANGUAGE, translate
from tapisvert.server.cluster import Cluster
from tapisvert.server.connection import Connection
from tapisvert.server.errors import ServerError
from tapisvert.server.notices import CHAT_HISTORY, Said, new_line, removed_from
from tapisvert.server.presence import Presence
from tapisvert.server.protocol import ChatLine, People, RoomInfo, SeatView, TableInfo, Unsay
from tapisvert.server.pubsub import Frame, room_channel
from tapisvert.server.storage import TableRow
from tapisvert.server.users import User

MAIN_ROOM = "main"
ROOM_LISTING = 150
"""Tables a room's listing gives at most: the open ones first (those one may join), then
those being played, then the latest finished; changes to the others still reach it."""
LISTED_FIRST = ("open", "playing", "finished", "closed")
TOURNAMENT_ROOM = "tournament-"
"""How the room of a tournament's chat is named: ``tournament-`` and its number."""
TOURNAMENT_CHATS = "tournament-chats"
"""The channel where every node hears every tournament's chat, to keep its history as it
keeps a room's (its readers follow the chat's own room channel)."""


def rooms() -> tuple[str, ...]:
    """The main room, then a room for each installed game."""
    return (MAIN_ROOM, *game_names())


def tournament_room(tournament_id: int) -> str:
    return f"{TOURNAMENT_ROOM}{tournament_id}"


def tournament_of(room: str | None) -> int | None:
    """The tournament whose chat the room is, if it is one."""
    if room is None or not room.startswith(TOURNAMENT_ROOM):
        return None
    number = room.removeprefix(TOURNAMENT_ROOM)
    if not (number.isascii() and number.isdigit()) or number[0] == "0" or len(number) > 10:
        return None
    return int(number) if int(number) < 2**31 else None  # beyond the database's integers: none


def no_such_room(room: str | None) -> ServerError:
    return ServerError("no_such_room", status=404, room=room, rooms=", ".join(rooms()))


class Rooms:
    """The rooms of the platform as this node sees them: the tables it serves, those other
    nodes serve (from the database and their rooms' news), and who is in each."""

    def __init__(self, presence: Presence, cluster: Cluster) -> None:
        self.presence = presence
        self.cluster = cluster
        self.history: dict[str, deque[Said]] = {
            room: deque(maxlen=CHAT_HISTORY) for room in presence.in_rooms
        }
        self.tables_elsewhere: dict[int, TableInfo] = {}
        """The latest description of each table other nodes serve, from their rooms' news."""

    def listen(self) -> None:
        """Hear the rooms' chat and news from the other nodes."""
        for room in self.history:
            self.cluster.pubsub.subscribe(room_channel(room), self._heard_in_room)
        self.cluster.pubsub.subscribe(TOURNAMENT_CHATS, self._heard_in_room)

    async def known(self, room: str) -> bool:
        """Whether the room is a room of the lobby, or the chat of a tournament that exists
        (whose history this node keeps from now on)."""
        if room in self.history:
            return True
        tournament = tournament_of(room)
        if tournament is None:
            return False
        if await self.cluster.storage.tournaments.load(tournament) is None:
            return False
        self._kept(room)
        return True

    async def follow(self, connection: Connection, tournament_id: int | None) -> None:
        """Read a tournament's chat (``None``: none any more): what it said so far, then each
        line as it comes. Reading needs no account; writing does (see ``chat``)."""
        room = None if tournament_id is None else tournament_room(tournament_id)
        if room is not None and not await self.known(room):
            raise ServerError("no_such_tournament", status=404, tournament=tournament_id)
        connection.stop_listening(lambda name: name.startswith(f"room:{TOURNAMENT_ROOM}"))
        if room is None:
            return
        connection.listen(room_channel(room))
        connection.recall(self.history[room])
        await self.cluster.pubsub.following(room_channel(room))  # what is said next comes

    def tell(self, room: str, key: str, **arguments: Any) -> None:
        """A notice to everyone reading the room, in each one's language, kept in its history."""
        notice: dict[str, Any] = {
            "type": "notice",
            "room": room,
            "key": key,
            "arguments": arguments,
            "history": False,
        }
        if self.cluster.sole:  # with other nodes, kept as it is heard on the room's channel
            self.history[room].append(notice)
        self._publish(room, notice)

    async def enter(self, connection: Connection, room: str) -> RoomInfo:
        if room not in self.presence.in_rooms:
            raise no_such_room(room)
        self.presence.enter(connection.user.id, room)
        connection.stop_listening(
            lambda name: name.startswith("room:") and not name.startswith(f"room:{TOURNAMENT_ROOM}")
        )
        connection.listen(room_channel(room))
        if self.cluster.peers is not None:
            self.presence.announce(connection.user.id)
        return await self.room_info(room)

    async def room_info(self, room: str) -> RoomInfo:
        """The room's tables and the people in it, here and on the other nodes."""
        if room not in self.presence.in_rooms:
            raise no_such_room(room)
        served = self.cluster.registry.tables
        here = self.cluster.registry.room_tables(room)
        here.sort(key=lambda table: (LISTED_FIRST.index(table.status), -table.id))
        tables = [table.info() for table in here[:ROOM_LISTING]]
        if self.cluster.peers is not None:
            others = await self.cluster.storage.tables.listed(
                ["open", "playing"], ROOM_LISTING, room
            )
            for row in others:
                if row.id not in served:
                    tables.append(
                        self.tables_elsewhere.get(row.id) or described(row, self.presence.is_online)
                    )
            tables.sort(key=lambda info: (LISTED_FIRST.index(info.status), -info.table))
            del tables[ROOM_LISTING:]
        tables.sort(key=lambda info: info.table)
        people = sorted(self.presence.user_name(user) for user in self.presence.people_in(room))
        return RoomInfo(room=room, tables=tables, people=people)

    async def who(
        self, room: str | None, table_id: int | None, user: User, language: str = DEFAULT_LANGUAGE
    ) -> People:
        """Who is at the table (``P1 ana``…, ``(bob)`` watching) or in the room, and the
        same in words in ``language``, for a person to read."""
        if table_id is not None:
            seated, watching = await self.cluster.on_table(table_id, "who", user)
            seats = [
                translate("server.who.seat", language, seat=n, name=name) for n, name in seated
            ]
            words = [
                translate("server.who.table", language, table=table_id, seats="; ".join(seats))
            ]
            if watching:
                words.append(translate("server.who.watching", language, names=", ".join(watching)))
            people = [f"P{n} {name}" for n, name in seated] + [f"({name})" for name in watching]
            return People(table=table_id, people=people, text=" ".join(words))
        tournament = tournament_of(room)
        if room is not None and tournament is not None:  # its players who are online
            if not await self.known(room):
                raise ServerError("no_such_tournament", status=404, tournament=tournament)
            entrants = await self.cluster.storage.tournaments.entrants(tournament)
            online = [
                entrant.name
                for entrant in entrants
                if entrant.withdrawn_at is None and self.presence.is_online(entrant.user_id)
            ]
            key = "server.who.tournament" if online else "server.who.no_player"
            text = translate(key, language, names=", ".join(online))
            return People(room=room, people=online, text=text)
        info = await self.room_info(room or MAIN_ROOM)
        names = ", ".join(info.people)
        text = translate("server.who.room" if names else "server.who.nobody", language, names=names)
        return People(room=info.room, people=info.people, text=text)

    async def chat(self, user: User, text: str, room: str | None, table_id: int | None) -> None:
        if table_id is not None:
            await self.cluster.on_table(table_id, "chat", user, text=text)
        elif room is not None and await self.known(room):
            if tournament_of(room) is not None and (user.guest or user.owner_id is not None):
                raise ServerError("tournament_chat_accounts", status=403)
            line = new_line(text, user.name, room=room)
            if self.cluster.sole:  # with other nodes, kept as it is heard on the room's channel
                self.history[room].append(line)
            self._publish(room, line.model_dump_json())
        else:
            raise no_such_room(room)

    def unsay(self, room: str, line: str | None, sender: str | None) -> ChatLine | None:
        """Remove a line of the room's chat (``line``: its id; else ``sender``'s latest):
        from what each node keeps, and from every client's log."""
        if room not in self.history:
            raise no_such_room(room)
        history = list(self.history[room])
        removed = removed_from(history, line, sender)
        if removed is not None:
            self.history[room] = deque(history, maxlen=CHAT_HISTORY)
            gone = Unsay(room=room, line=removed.line or "")
            self._publish(room, gone.model_dump_json())
        return removed

    def _publish(self, room: str, frame: Frame) -> None:
        """To the room's readers; a tournament's chat, to every node too (``TOURNAMENT_CHATS``)."""
        self.cluster.pubsub.publish(room_channel(room), frame)
        if not self.cluster.sole and tournament_of(room) is not None:
            self.cluster.pubsub.publish(TOURNAMENT_CHATS, frame)

    def _kept(self, room: str | None) -> deque[Said] | None:
        """What this node keeps of the room's chat: a tournament's, from the first time it
        is read or heard here."""
        if room is None:
            return None
        if room not in self.history and tournament_of(room) is not None:
            self.history[room] = deque(maxlen=CHAT_HISTORY)
        return self.history.get(room)

    def _heard_in_room(self, frame: Frame) -> None:
        """A room's chat, said on any node, is kept for those who enter it later; a table's
        news, for tables served elsewhere, for the room's list."""
        if isinstance(frame, str) and frame.startswith('{"type":"chat"'):
            line = ChatLine.model_validate_json(frame)
            if (kept := self._kept(line.room)) is not None:
                kept.append(line)
            return
        if isinstance(frame, dict) and frame.get("type") == "notice":
            if (kept := self._kept(frame.get("room"))) is not None:
                kept.append(frame)
            return
        if isinstance(frame, str) and frame.startswith('{"type":"unsay"'):
            gone = Unsay.model_validate_json(frame)
            if gone.room in self.history:
                history = list(self.history[gone.room])
                if removed_from(history, gone.line, None) is not None:
                    self.history[gone.room] = deque(history, maxlen=CHAT_HISTORY)
            return
        if not isinstance(frame, str) or not frame.startswith('{"type":"table"'):
            return
        info = TableInfo.model_validate_json(frame)
        if info.table in self.cluster.registry.tables:
            return
        if info.status in ("open", "playing"):
            self.tables_elsewhere[info.table] = info
        else:
            self.tables_elsewhere.pop(info.table, None)


def described(
    row: TableRow, is_online: Callable[[int | None], bool], present: bool = True
) -> TableInfo:
    """What the database tells of a table: served elsewhere, until its node says more
    (``present``: who is online), or finished."""
    return TableInfo(
        table=row.id,
        room=row.room,
        game=row.game,
        players=row.players,
        options=dict(load_game(row.game, row.players, **row.options).options),
        clock=row.clock,
        timeout=row.timeout,
        deadline=row.deadline,
        status=row.status,  # type: ignore[arg-type]
        seats=[
            SeatView(
                name=seat.get("name"),
                kind=seat.get("kind", "empty"),
                level=seat.get("level"),
                present=present and (seat.get("kind") == "bot" or is_online(seat.get("user_id"))),
                replaced=seat.get("replaced", False),
                owner=seat.get("owner"),
            )
            for seat in row.seats
        ],
        spectators=0,
        result=row.result,
        rated=row.rated,
    )
