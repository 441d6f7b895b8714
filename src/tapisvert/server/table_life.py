"""The life of the tables this node serves, from the outside: their news and notices, the
countdown that closes an open table nobody is at, how long a finished one stays, and how
one comes back from the database. It is what each ``GameTable`` is given as its host.

A table played over days (see ``speeds``) that nobody is at sleeps: after ``asleep_after``
seconds with nobody there and a person's clock running, it is stored as asleep, leaves
memory and lets its lease go. No node serves it then; the first request for it wakes it on
the node that receives it (``Cluster.wake``), and when its clock runs out, the first node
to look (every quarter of a lease) wakes it to apply the table's rule. Ten thousand such
tables cost a node what their rows cost the database, not what ten thousand games in
memory would."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from tapisvert.server.background import Background
from tapisvert.server.cluster import Cluster
from tapisvert.server.notices import said_from, table_notice
from tapisvert.server.presence import Presence
from tapisvert.server.protocol import YourTurn
from tapisvert.server.pubsub import room_channel, table_channel
from tapisvert.server.settings import Settings
from tapisvert.server.social import inbox_channel
from tapisvert.server.storage import TableRow
from tapisvert.server.tables import GameTable
from tapisvert.server.thinking import Thinking

FINISHED_KEPT_SECONDS = 300.0
"""A finished table stays in memory this long for its players; its record stays for good."""


class Followers(Protocol):
    """Those who follow a table, on every node."""

    def unfollow_all(self, user_id: int, table_id: int) -> None: ...


class TableLife:
    """The host of the tables served here (see ``tables.TableHost``).

    ``followers`` is set by the lobby, once the connections exist.
    """

    def __init__(
        self,
        cluster: Cluster,
        presence: Presence,
        settings: Settings,
        thinking: Thinking,
        background: Background,
        bot_accounts: dict[str, int],
    ) -> None:
        self.cluster = cluster
        self.registry = cluster.registry
        self.storage = cluster.storage
        self.pubsub = cluster.pubsub
        self.sole = cluster.sole
        self.metrics = cluster.metrics
        self.presence = presence
        self.settings = settings
        self.thinking = thinking
        self.background = background
        self.bot_accounts = bot_accounts
        """The rated account of each bot level."""
        self.followers: Followers | None = None

    # -- what a table asks of its host --------------------------------------------------

    def is_online(self, user_id: int | None) -> bool:
        return self.presence.is_online(user_id)

    def user_name(self, user_id: int) -> str:
        return self.presence.user_name(user_id)

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        self.background.spawn(work)

    def lost(self, table: GameTable) -> None:
        self.cluster.lost(table)

    def tell(
        self, table: GameTable, key: str, rematch: int | None = None, **arguments: Any
    ) -> None:
        """A notice to the table, rendered for each reader; ``rematch``: the table of the
        rematch it announces, for a link."""
        notice = table_notice(table.id, key, arguments, rematch)
        table.history.append(notice)
        self.pubsub.publish(table_channel(table.id), notice)

    def your_turn(self, table: GameTable, user_id: int) -> None:
        """Tell the person, wherever they are online, that a table over days waits for them."""
        if table.deadline is not None and self.presence.is_online(user_id):
            told = YourTurn(table=table.id, game=table.game.name, deadline=table.deadline)
            self.pubsub.publish(inbox_channel(user_id), told.model_dump_json())

    def table_changed(self, table: GameTable) -> None:
        self.registry.index_seats(table)
        frame = table.info().model_dump_json()
        self.pubsub.publish(room_channel(table.room), frame)
        self.pubsub.publish(table_channel(table.id), frame)
        if table.status == "finished":
            self.background.later(FINISHED_KEPT_SECONDS, self._forget, table)
        self.review_attendance(table)

    # -- attendance -------------------------------------------------------------------

    def review_attendance(self, table: GameTable) -> None:
        """Start the countdown that closes an open table nobody is at, or puts to sleep a
        table over days nobody is at; or stop it, now that someone is there."""
        countdown = None
        if table.status == "open":
            countdown = (self.settings.abandoned_after, self._abandoned)
        elif table.status == "playing" and table.over_days:
            countdown = (self.settings.asleep_after, self._unattended_over_days)
        if countdown is not None and not table.attended():
            if table.unattended is None:
                table.unattended = asyncio.get_running_loop().call_later(*countdown, table)
        elif table.unattended is not None:
            table.unattended.cancel()
            table.unattended = None

    def arrived(self, user_id: int) -> None:
        """The person came online on another node: the tables where they sit count them."""
        for table, _ in self.registry.seated_tables(user_id):
            self.review_attendance(table)

    def went_offline(self, user_id: int) -> None:
        """The user's last connection closed (here, or on another node): the tables
        where they sit count them away, and a bot may play for them later."""
        self.background.later(self.settings.absence_grace, self._check_absent, user_id)
        for table, _ in self.registry.seated_tables(user_id):
            self.review_attendance(table)

    def unwatch(self, table: GameTable, user_id: int) -> None:
        table.spectators.pop(user_id, None)
        self.table_changed(table)

    def _abandoned(self, table: GameTable) -> None:
        table.unattended = None
        if table.status == "open":
            self.background.spawn(self._close(table))

    def _unattended_over_days(self, table: GameTable) -> None:
        self.background.spawn(self._sleep(table))

    async def _sleep(self, table: GameTable) -> None:
        """Store the table as asleep and let it go from memory, if nobody came and a
        person's clock runs (while a bot is to play, it waits for the next look)."""
        table.unattended = None
        if not await table.fall_asleep(self.cluster.node):
            self.review_attendance(table)
            return
        self.registry.let_go(table)
        if self.followers is not None:
            for seat in table.seats:
                if seat.user_id is not None:
                    self.followers.unfollow_all(seat.user_id, table.id)

    async def _close(self, table: GameTable) -> None:
        """Remove an abandoned table for good: from memory, the database and the room."""
        self.registry.let_go(table)
        table.status = "closed"
        self.table_changed(table)
        await table.save_until_stored()
        await self.storage.leases.release(self.cluster.node, table.id)

    async def shut(self, table: GameTable) -> None:
        """Close a table for good at a moderator's word, its game under way or not: its
        players and spectators stop following it."""
        if table.status in ("finished", "closed"):
            return
        self.tell(table, "server.notice.closed")
        table.stop_timers()
        followers = {seat.user_id for seat in table.seats if seat.user_id is not None}
        await self._close(table)
        if self.followers is not None:
            for user_id in followers | table.spectators.keys():
                self.followers.unfollow_all(user_id, table.id)

    def _forget(self, table: GameTable) -> None:
        """A finished table leaves memory (and this node lets its lease go): its record
        stays in the database. Its players and spectators stop following it, on every
        node: nothing is said there any more, and a connection that plays game after game
        would otherwise carry every table it ever sat at."""
        followers = {seat.user_id for seat in table.seats if seat.user_id is not None}
        if self.registry.let_go(table):
            if self.followers is None:
                raise RuntimeError("the tables have no followers yet")
            for user_id in followers | table.spectators.keys():
                self.followers.unfollow_all(user_id, table.id)
            self.background.spawn(self.storage.leases.release(self.cluster.node, table.id))

    # -- coming back ------------------------------------------------------------------

    async def bring_back(self, row: TableRow, fence: int | None) -> GameTable:
        """A table from the database, as it was when its last node stopped serving it."""
        table = GameTable(row, self)
        table.fence = fence
        table.history.extend(said_from(said) for said in row.chat)  # kept while it slept
        if row.status != "open":
            await table.restore(await self.storage.tables.actions(row.id))
        self.registry.hold(table)
        if row.asleep:  # awake from now on, for every node (its row says so once stored)
            self.background.spawn(table.save_until_stored())
        for seat in table.seats:
            if seat.user_id is not None:
                self.presence.names[seat.user_id] = seat.name or "?"
                grace = self.settings.absence_grace
                self.background.later(grace, self._check_absent, seat.user_id)
        if table.status == "playing":
            table.turns.next()
        elif table.status == "finished":
            self.background.later(FINISHED_KEPT_SECONDS, self._forget, table)
        else:
            self.review_attendance(table)
        return table

    def _check_absent(self, user_id: int) -> None:
        if self.presence.is_online(user_id):
            return
        for table, _ in self.registry.seated_tables(user_id):
            table.went_away(user_id)
