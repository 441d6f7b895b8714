"""This node among the others: its leases of tables, the tables it takes over from nodes
that stopped, and requests for tables that another node serves.

A node serves the tables it holds a lease of in the database (see ``storage``); alone
(``sole``: no bus, so no other node can reach its clients) it takes every table at
start, even from a process that was killed a moment ago. With other nodes, it takes
the tables nobody serves, at start, whenever a node's leases run out, and at once when a
stopping node hands its tables over (``hand_over``). Every write of a table carries the
fencing token of its lease: a node that lost it can store nothing more.

A table over days asleep (see ``table_life``) is served by no node: a request for it wakes
it where the request arrives (``wake``), and any node, alone or not, wakes those whose
clock ran out when it renews its leases.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from dataclasses import asdict
from typing import Any, Protocol

from tapisvert.server.errors import ServerError, StorageError, TableMoved
from tapisvert.server.logs import USER, about_table
from tapisvert.server.metrics import Metrics
from tapisvert.server.peers import Peers
from tapisvert.server.presence import Presence
from tapisvert.server.pubsub import LEASES_CHANNEL, Frame, PubSub
from tapisvert.server.registry import TableRegistry
from tapisvert.server.settings import Settings
from tapisvert.server.storage import Storage, TableRow
from tapisvert.server.tables import GameTable
from tapisvert.server.users import ANYONE, User, user_from

_log = logging.getLogger(__name__)
_SERVED = ("open", "playing")
"""The statuses of a table that a node serves (the others are over: their records only)."""


def node_name() -> str:
    """A name for this server process among the platform's nodes, new at every start."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


class TableOperator(Protocol):
    """What the cluster needs of the tables' side: to do a request on a table served here,
    and to serve a table taken over from a node that stopped."""

    async def operate(
        self, table: GameTable, operation: str, user: User, arguments: dict[str, Any]
    ) -> Any: ...

    async def take_over(self, row: TableRow, fence: int) -> None: ...


class Cluster:
    """The leases of this node and the calls between nodes (``peers``: ``None`` alone)."""

    def __init__(
        self,
        storage: Storage,
        pubsub: PubSub,
        settings: Settings,
        registry: TableRegistry,
        presence: Presence,
        sole: bool,
        metrics: Metrics,
    ) -> None:
        self.storage = storage
        self.pubsub = pubsub
        self.settings = settings
        self.registry = registry
        self.presence = presence
        self.sole = sole
        self.metrics = metrics
        self.node = presence.node
        self.peers: Peers | None = None
        """Calls to and from the other nodes; ``None`` for a node alone."""
        self.nodes_of: dict[int, str] = {}
        """The node serving each table served elsewhere, as last found."""
        self.keeper: asyncio.Task[None] | None = None
        """Renews this node's leases and takes over the tables of nodes that stopped."""
        self.operator: TableOperator | None = None
        """The tables' side, set by the lobby once both are made."""
        self.draining = False
        """This node is stopping: it takes no table, and refuses new tables and connections."""
        self._wake = asyncio.Event()
        """Set when another node let its tables go: the keeper takes them now."""
        self._waking = asyncio.Lock()
        """Held while a sleeping table is woken here: a second request waits for it."""

    async def claim(self) -> dict[int, int]:
        """The leases this node takes at start (every table's, alone), with their fences."""
        return await self.storage.leases.take(
            self.node, self.settings.lease_seconds, force=self.sole
        )

    def start(self) -> None:
        """Answer the other nodes (unless alone) and keep the leases from now on."""
        if not self.sole:
            self.peers = Peers(self.pubsub, self.node, self._answer)
            self.peers.start()
            self.pubsub.subscribe(LEASES_CHANNEL, self._released)
        self.keeper = asyncio.get_running_loop().create_task(self._keep_leases())

    def stop(self) -> None:
        if self.keeper is not None:
            self.keeper.cancel()
        if self.peers is not None:
            self.peers.close()
            self.pubsub.unsubscribe(LEASES_CHANNEL, self._released)

    async def hand_over(self) -> None:
        """Stop serving every table here and let their leases go at once (this node is
        stopping): the other nodes, told so, take them over now rather than once the leases
        have run out, as they would from a node killed outright. Writes already queued are
        committed before the leases go (the writer keeps their order); none comes after,
        for the tables are fenced off here first. The keeper stops first: a renewal of this
        node's leases after they went would take them back until they ran out again. Alone,
        the next start takes them back."""
        self.draining = True
        keeper, self.keeper = self.keeper, None
        if keeper is not None:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        for table in list(self.registry.tables.values()):
            self._forget(table)
        released = await self.storage.leases.release_all(self.node)
        _log.warning("this node is stopping: it let %d tables go", released)
        if self.peers is not None:
            self.pubsub.publish(LEASES_CHANNEL, self.node)

    def _released(self, frame: Frame) -> None:
        if frame != self.node:
            self._wake.set()

    def _operator(self) -> TableOperator:
        if self.operator is None:
            raise RuntimeError("the cluster has no tables to operate on yet")
        return self.operator

    async def _keep_leases(self) -> None:
        """Renew this node's leases; let go of the tables another node took; take over
        the tables of nodes whose leases ran out."""
        seconds = self.settings.lease_seconds
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), seconds / 4)
            self._wake.clear()
            if not self.sole:
                self.presence.announce()
                self.presence.expire(seconds)
            leased = [table for table in self.registry.tables.values() if table.fence is not None]
            try:
                held = await self.storage.leases.renew(self.node, seconds)
                for table in leased:
                    if table.id not in held:
                        self.lost(table)
                if not self.draining:  # alone, it finds only the tables whose clock ran out
                    await self._take_over(await self.storage.leases.take(self.node, seconds))
            except StorageError:
                continue  # the database is away: the leases are renewed when it is back
            except Exception:
                _log.exception("keeping this node's leases failed; trying again")

    async def _take_over(self, leases: dict[int, int]) -> None:
        """Serve the tables of a node that stopped, and the tables over days asleep whose
        clock ran out (one at a time with ``wake``: a table comes back here once)."""
        for table_id, fence in leases.items():
            async with self._waking:
                here = self.registry.tables.get(table_id)
                if here is not None:
                    # Woken here meanwhile, by a request that took this lease again after
                    # these leases were taken: its fence is the newer, and the table keeps it.
                    here.fence = max(here.fence or 0, fence)
                    continue
                row = await self.storage.tables.load(table_id)
                if row is None or row.status not in _SERVED:
                    continue
                await self._serve(row, fence, "a clock ran out")

    def lost(self, table: GameTable) -> None:
        """Another node serves ``table`` now: this one forgets it (its timers too) and
        stores nothing more of it."""
        if not table.moved:
            _log.warning("table %d is served by another node now", table.id)
            self.metrics.leases_lost.inc()
            self._forget(table)

    def _forget(self, table: GameTable) -> None:
        """Store nothing more of ``table`` and let it go from memory, its timers too."""
        table.moved = True
        table.stop_timers()
        self.registry.let_go(table)

    # -- where a table is served ------------------------------------------------------

    async def on_table(self, table_id: int, operation: str, user: User, **arguments: Any) -> Any:
        """Do ``operation`` on a table where it is served: here, or on the node that holds
        its lease (asked over the bus). The answer is JSON's kind of value either way."""
        with about_table(table_id):
            return await self._on_table(table_id, operation, user, arguments)

    async def _on_table(
        self, table_id: int, operation: str, user: User, arguments: dict[str, Any]
    ) -> Any:
        tables = self.registry.tables
        table = tables.get(table_id)
        if table is None and self.peers is None:
            table = await self.wake(table_id)
        if table is not None:
            return await self._operate_here(table, operation, user, arguments)
        if self.peers is None:
            raise ServerError("no_such_table", status=404, table=table_id)
        request = {"table": table_id, "operation": operation, **arguments}
        if user is not ANYONE:
            request["user"] = asdict(user)
        in_transit: ServerError | None = None
        for attempt in range(2):
            node = await self.node_of(table_id, fresh=attempt > 0)
            table = tables.get(table_id)  # taken over here meanwhile
            if table is None and node is None:
                table = await self.wake(table_id)
            if table is not None:
                return await self._operate_here(table, operation, user, arguments)
            if node is None:
                break
            if node == self.node:  # leased here, not served yet: being taken over here
                self.nodes_of.pop(table_id, None)
                in_transit = TableMoved(table_id)
                continue
            try:
                return await self.peers.call(node, request)
            except ServerError as refusal:
                self.nodes_of.pop(table_id, None)
                if refusal.code not in ("table_moved", "node_unreachable"):
                    raise
                in_transit = refusal
                await asyncio.sleep(self.settings.lease_seconds / 4 * attempt)
        # a table still changing nodes exists: the request may be sent again, unlike one
        # that no node serves and none could wake
        raise in_transit or ServerError("no_such_table", status=404, table=table_id)

    async def _operate_here(
        self, table: GameTable, operation: str, user: User, arguments: dict[str, Any]
    ) -> Any:
        """Do ``operation`` on a table served here; one that fell asleep while the request
        waited for it is woken again for it."""
        try:
            return await self._operator().operate(table, operation, user, arguments)
        except TableMoved:
            if not table.moved or table.id in self.registry.tables:
                raise
            woken = await self.wake(table.id)
            if woken is None:
                raise
            return await self._operator().operate(woken, operation, user, arguments)

    async def wake(self, table_id: int) -> GameTable | None:
        """Serve here a table that no node serves, if no other node took it first: one
        over days that sleeps in the database (see ``table_life``), or one whose node's
        lease ran out (a node stopped, or too slow to renew it) before the keepers' next
        round took it over. Asked for it, a node serves it at once rather than answer that
        there is no such table. The table, or ``None``."""
        async with self._waking:
            table = self.registry.tables.get(table_id)
            if table is not None or self.draining:
                return table
            row = await self.storage.tables.load(table_id)
            if row is None or row.status not in _SERVED:
                return None
            seconds = self.settings.lease_seconds
            taken = await self.storage.leases.take(self.node, seconds, [table_id])
            row = await self.storage.tables.load(table_id)  # as it is, now that it is ours
            if table_id not in taken or row is None or row.status not in _SERVED:
                return None
            await self._serve(row, taken[table_id], "someone came")
            return self.registry.tables.get(table_id)

    async def _serve(self, row: TableRow, fence: int, woken_by: str) -> None:
        """Serve here a table whose lease this node just took: one asleep wakes (for the
        reason ``woken_by``), one left by its node is taken over (and counted)."""
        if row.asleep:
            _log.info("table %d wakes: %s", row.id, woken_by)
        else:
            _log.warning("table %d was left by its node: it is served here now", row.id)
            self.metrics.leases_taken_over.inc()
        await self._operator().take_over(row, fence)

    async def node_of(self, table_id: int, fresh: bool) -> str | None:
        """The node that serves a table, as last found in the database."""
        if fresh or table_id not in self.nodes_of:
            node = await self.storage.leases.holder(table_id)
            if node is None:
                return None
            self.nodes_of[table_id] = node
        return self.nodes_of[table_id]

    async def _answer(self, request: dict[str, Any]) -> Any:
        """Another node's request for a table served here."""
        table_id = request.pop("table")
        operation, user = (
            request.pop("operation"),
            user_from(request.pop("user")) if "user" in request else ANYONE,
        )
        table = self.registry.tables.get(table_id)
        if table is None:
            raise TableMoved(table_id)
        if user is not ANYONE:
            self.presence.names[user.id] = user.name
            USER.set(user.name)  # this request's own task
        with about_table(table_id):
            return await self._operator().operate(table, operation, user, request)
