"""The connections of this node's people: opening and closing them, the tables each
follows, and what a person's connections on other nodes are told to do."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson

from tapisvert.server.addresses import Addresses, TokenBucket
from tapisvert.server.background import Background
from tapisvert.server.cluster import Cluster
from tapisvert.server.connection import Connection
from tapisvert.server.errors import ServerError
from tapisvert.server.links import Link
from tapisvert.server.notices import said_from
from tapisvert.server.presence import Presence
from tapisvert.server.protocol import Error, TableInfo
from tapisvert.server.pubsub import Frame, PubSub, seat_channel, table_channel, user_channel
from tapisvert.server.quotas import Quotas
from tapisvert.server.registry import TableRegistry
from tapisvert.server.settings import Settings
from tapisvert.server.tables import GameTable
from tapisvert.server.users import User

_log = logging.getLogger(__name__)


class Attendance(Protocol):
    """What a person's coming and going changes at the tables served here."""

    def went_offline(self, user_id: int) -> None: ...

    def unwatch(self, table: GameTable, user_id: int) -> None: ...


class Connections:
    """Every connection of this node, by person (kept in ``presence.connections``)."""

    def __init__(
        self,
        presence: Presence,
        cluster: Cluster,
        registry: TableRegistry,
        settings: Settings,
        quotas: Quotas,
        addresses: Addresses,
        background: Background,
        attendance: Attendance,
    ) -> None:
        self.presence = presence
        self.cluster = cluster
        self.registry = registry
        self.pubsub: PubSub = cluster.pubsub
        self.metrics = cluster.metrics
        self.settings = settings
        self.quotas = quotas
        self.addresses = addresses
        self.background = background
        self.attendance = attendance

    def may_connect(self, user: User) -> None:
        """Refuse a connection beyond the number one person may hold."""
        if len(self.presence.connections.get(user.id, ())) >= self.quotas.sockets():
            raise ServerError("too_many_sockets", status=429, limit=self.quotas.sockets())
        self.quotas.take("connections", user.id)

    async def connect(
        self, user: User, language: str, link: Link, shared: TokenBucket | None = None
    ) -> Connection:
        """A new connection: it follows every table where the user sits, here or on
        another node, with its view. ``shared``: the rate of its address (see
        ``Addresses.open``)."""
        connection = Connection(
            user, language, link, self.pubsub, self.settings, self.flooded, self.metrics, shared
        )
        mine = self.presence.connections.setdefault(user.id, set())
        mine.add(connection)
        if len(mine) == 1 and self.cluster.peers is not None:
            self.pubsub.subscribe(user_channel(user.id), self._heard_for_user)
            self.presence.announce(user.id, online=True)
        try:
            for table_id, seat in await self._seats_of(user.id):
                try:
                    await self.follow(connection, table_id, seat, returning=True)
                except ServerError as refusal:  # its node is away: the table comes back later
                    _log.warning("table %d is out of reach: %s", table_id, refusal.code)
        except BaseException:  # the database failed, say: the connection does not stay
            self.disconnect(connection)
            raise
        if self.cluster.draining:  # greeted while this node began to stop
            connection.reconnect()
        return connection

    async def _seats_of(self, user_id: int) -> list[tuple[int, int]]:
        """The tables where the user sits, with the seat: here, and with other nodes, the
        open and playing ones they serve."""
        seats = [(table.id, seat) for table, seat in self.registry.seated_tables(user_id)]
        if self.cluster.peers is not None:
            for row in await self.cluster.storage.tables.seated(user_id, ["open", "playing"]):
                if row.id not in self.registry.tables:
                    seats.extend(
                        (row.id, index)
                        for index, seat_row in enumerate(row.seats)
                        if seat_row.get("kind") == "human" and seat_row.get("user_id") == user_id
                    )
        return seats

    def flooded(self, address: str) -> None:
        """A socket of ``address`` was cut for flooding: past a few, the address is barred
        and its other sockets are cut too."""
        if self.addresses.flooded(address):
            _log.warning("the address %s is barred for flooding", address)
            barred = ServerError("address_barred", status=429)
            for connections in list(self.presence.connections.values()):
                for connection in list(connections):
                    if connection.link.address == address:
                        connection.drop(barred)

    def reconnect_all(self) -> None:
        """Tell every client here to connect again (this node is stopping)."""
        for connections in list(self.presence.connections.values()):
            for connection in list(connections):
                connection.reconnect()

    def disconnect(self, connection: Connection) -> None:
        watched = [
            int(channel.split(":")[1])
            for channel in connection.channels
            if channel.endswith(":watch") and channel.startswith("table:")
        ]
        connection.close()
        user_id = connection.user.id
        mine = self.presence.connections.get(user_id, set())
        mine.discard(connection)
        self.presence.leave_rooms(user_id)
        peers = self.cluster.peers
        for table_id in watched:
            if table_id in self.registry.tables:
                self.attendance.unwatch(self.registry.tables[table_id], user_id)
            elif peers is not None:
                unwatching = self.cluster.on_table(table_id, "unwatch", connection.user)
                self.background.spawn(quietly(unwatching))
        if mine and peers is not None:
            self.presence.announce(user_id)  # in no room now
        if not mine:
            self.presence.connections.pop(user_id, None)
            if peers is not None:
                self.pubsub.unsubscribe(user_channel(user_id), self._heard_for_user)
                self.presence.announce(user_id, online=False)
            self.attendance.went_offline(user_id)

    # -- following tables --------------------------------------------------------------

    async def follow(
        self, connection: Connection, table_id: int, seat: int | None, returning: bool = False
    ) -> None:
        """Hear the table and one seat's views (``None``: a spectator's), from the table's
        news and history on; a connection that already heard the table gets no history.
        ``returning``: the user connects again, and is back at the table."""
        connection.stop_following(table_id, seat_only=True)
        arriving = table_channel(table_id) not in connection.channels
        connection.listen(table_channel(table_id))
        connection.listen(seat_channel(table_id, seat))
        elsewhere = table_id not in self.registry.tables
        if elsewhere:
            connection.hold(table_id)
            await self.pubsub.following(seat_channel(table_id, seat))
        try:
            snapshot = await self.cluster.on_table(
                table_id,
                "snapshot",
                connection.user,
                seat=seat,
                history=arriving,
                returning=returning,
            )
        except BaseException:
            connection.release(table_id)
            raise
        held = connection.release(table_id)
        connection.send(TableInfo.model_validate(snapshot["info"]))
        if arriving:
            connection.recall(said_from(said) for said in snapshot["history"])
        if snapshot["view"] is not None:
            connection.deliver(snapshot["view"])
        connection.catch_up(held, snapshot["seq"])

    async def follow_all(self, user_id: int, table_id: int, seat: int | None) -> None:
        """Every connection of the user follows the table, on every node."""
        for connection in list(self.presence.connections.get(user_id, ())):
            await self.follow(connection, table_id, seat)
        if self.cluster.peers is not None:
            self._instruct(user_id, follow=table_id, seat=seat)

    def unfollow_all(self, user_id: int, table_id: int) -> None:
        for connection in self.presence.connections.get(user_id, ()):
            connection.stop_following(table_id)
        if self.cluster.peers is not None:
            self._instruct(user_id, unfollow=table_id)

    # -- sessions ---------------------------------------------------------------------

    def end_sessions(self, user: User, others: bool) -> None:
        """Close, on every node, the user's connections opened by their session
        (``others``: by every other session of theirs)."""
        session = user.session
        self._end_sessions(user.id, lambda mine: (mine != session) if others else (mine == session))
        if self.cluster.peers is not None:
            self._instruct(user.id, sessions=session, others=others)

    def _end_sessions(self, user_id: int, ended: Callable[[str], bool]) -> None:
        """Close the user's connections here opened by the sessions that ``ended``."""
        for connection in list(self.presence.connections.get(user_id, ())):
            if ended(connection.user.session):
                signed_out = ServerError("signed_out", status=401)
                message = signed_out.render(connection.language)
                connection.send(Error(code=signed_out.code, message=message))
                connection.close(code=1008)

    # -- a person's connections on other nodes ----------------------------------------

    def _instruct(self, user_id: int, **instruction: Any) -> None:
        """Have the user's connections on the other nodes follow a table, or stop, or close."""
        said = {"node": self.cluster.node, "user": user_id, **instruction}
        self.pubsub.publish(user_channel(user_id), orjson.dumps(said).decode())

    def _heard_for_user(self, frame: Frame) -> None:
        if not isinstance(frame, str):
            return
        said = orjson.loads(frame)
        if said["node"] == self.cluster.node:
            return
        user_id = said["user"]
        if "follow" in said:
            for connection in list(self.presence.connections.get(user_id, ())):
                following = self.follow(connection, said["follow"], said["seat"])
                self.background.spawn(quietly(following))
        elif "unfollow" in said:
            for connection in self.presence.connections.get(user_id, ()):
                connection.stop_following(said["unfollow"])
        elif "sessions" in said:
            session, others = said["sessions"], said["others"]
            self._end_sessions(
                user_id, lambda mine: (mine != session) if others else (mine == session)
            )


async def quietly(work: Awaitable[Any]) -> None:
    """Work for another node whose refusal nobody waits for: it is logged."""
    try:
        await work
    except ServerError as refusal:
        _log.warning("another node refused: %s", refusal.code)
