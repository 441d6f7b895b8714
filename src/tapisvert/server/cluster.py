"""This node among the others: its leases of tables, the tables it takes over from nodes
that stopped, and requests for tables that another node serves.

A node serves the tables it holds a lease of in the database (see ``storage``); alone
(``sole``: no bus, so no other node can reach its clients) it takes every table at
start, even from a process that was killed a moment ago. With other nodes, it takes
the tables nobody serves, at start and whenever a node's leases run out. Every write of
a table carries the fencing token of its lease: a node that lost it can store nothing more.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from dataclasses import asdict
from typing import Any, Protocol

from tapisvert.server.errors import ServerError, StorageError, TableMoved
from tapisvert.server.metrics import Metrics
from tapisvert.server.peers import Peers
from tapisvert.server.presence import Presence
from tapisvert.server.pubsub import PubSub
from tapisvert.server.registry import TableRegistry
from tapisvert.server.settings import Settings
from tapisvert.server.storage import Storage, TableRow
from tapisvert.server.tables import GameTable
from tapisvert.server.users import ANYONE, User, user_from

_log = logging.getLogger(__name__)


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
        self.keeper = asyncio.get_running_loop().create_task(self._keep_leases())

    def stop(self) -> None:
        if self.keeper is not None:
            self.keeper.cancel()
        if self.peers is not None:
            self.peers.close()

    def _operator(self) -> TableOperator:
        if self.operator is None:
            raise RuntimeError("the cluster has no tables to operate on yet")
        return self.operator

    async def _keep_leases(self) -> None:
        """Renew this node's leases; let go of the tables another node took; take over
        the tables of nodes whose leases ran out."""
        seconds = self.settings.lease_seconds
        while True:
            await asyncio.sleep(seconds / 4)
            if not self.sole:
                self.presence.announce()
                self.presence.expire(seconds)
            leased = [table for table in self.registry.tables.values() if table.fence is not None]
            try:
                held = await self.storage.leases.renew(self.node, seconds)
                for table in leased:
                    if table.id not in held:
                        self.lost(table)
                if not self.sole:
                    await self._take_over(await self.storage.leases.take(self.node, seconds))
            except StorageError:
                continue  # the database is away: the leases are renewed when it is back
            except Exception:
                _log.exception("keeping this node's leases failed; trying again")

    async def _take_over(self, leases: dict[int, int]) -> None:
        """Serve the tables of a node that stopped."""
        for table_id, fence in leases.items():
            row = await self.storage.tables.load(table_id)
            if row is None or row.status not in ("open", "playing"):
                continue
            _log.warning("table %d was left by its node: it is served here now", table_id)
            await self._operator().take_over(row, fence)
            self.metrics.leases_taken_over.inc()

    def lost(self, table: GameTable) -> None:
        """Another node serves ``table`` now: this one forgets it (its timers too) and
        stores nothing more of it."""
        if table.moved:
            return
        _log.warning("table %d is served by another node now", table.id)
        self.metrics.leases_lost.inc()
        table.moved = True
        table.stop_timers()
        self.registry.let_go(table)

    # -- where a table is served ------------------------------------------------------

    async def on_table(self, table_id: int, operation: str, user: User, **arguments: Any) -> Any:
        """Do ``operation`` on a table where it is served: here, or on the node that holds
        its lease (asked over the bus). The answer is JSON's kind of value either way."""
        tables = self.registry.tables
        table = tables.get(table_id)
        if table is not None:
            return await self._operator().operate(table, operation, user, arguments)
        if self.peers is None:
            raise ServerError("no_such_table", status=404, table=table_id)
        request = {"table": table_id, "operation": operation, **arguments}
        if user is not ANYONE:
            request["user"] = asdict(user)
        for attempt in range(2):
            node = await self.node_of(table_id, fresh=attempt > 0)
            table = tables.get(table_id)  # taken over here meanwhile
            if table is not None:
                return await self._operator().operate(table, operation, user, arguments)
            if node is None or node == self.node:
                break
            try:
                return await self.peers.call(node, request)
            except ServerError as refusal:
                self.nodes_of.pop(table_id, None)
                if refusal.code not in ("table_moved", "node_unreachable"):
                    raise
                await asyncio.sleep(self.settings.lease_seconds / 4 * attempt)
        raise ServerError("no_such_table", status=404, table=table_id)

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
        return await self._operator().operate(table, operation, user, request)
