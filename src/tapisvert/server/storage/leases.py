"""Which node serves which table, for how long, under which fencing token.

A node holds a lease of each table it serves and renews them all together; a lease that
runs out may be taken by another node, and the token it then carries is one more, so that
the writes of the node that lost the table are refused (see ``writer``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Float, bindparam, delete, insert, literal_column, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from tapisvert.server.storage.schema import leases_table, tables_table
from tapisvert.server.storage.writer import Writer

_CLOCKS = {
    "postgresql": "EXTRACT(EPOCH FROM clock_timestamp())",
    "sqlite": "(julianday('now') - 2440587.5) * 86400.0",
}
"""The database's clock, in seconds since 1970, by dialect: the one every node's leases are
measured by."""
_FIRST_LEASES = {
    dialect: insert(leases_table).values(
        table_id=bindparam("table_id"),
        node=bindparam("node"),
        fence=1,
        expires_at=literal_column(clock, Float) + bindparam("seconds", type_=Float),
    )
    for dialect, clock in _CLOCKS.items()
}
"""A new table's lease, its end read off the database's clock by the INSERT itself."""
NOBODY = ""
"""The node of a lease that ended with no node serving the table (a table over days
asleep): its fencing token stays, for the next node to take it under the next one."""


class LeaseStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def take(
        self, node: str, seconds: float, tables: Sequence[int] | None = None, force: bool = False
    ) -> dict[int, int]:
        """Make ``node`` the server of these tables (``None``: of every open or playing
        table) for ``seconds``, where no other node's lease runs (``force``: even there);
        the tables taken, each with its new fencing token."""
        asked = None if tables is None else list(tables)  # a copy, made on the event loop

        def work(connection: Connection) -> dict[int, int]:
            now = database_now(connection)
            candidates = asked if asked is not None else _unserved(connection, now, force)
            taken = {}
            for table_id in candidates:
                fence = _take_lease(connection, table_id, node, now, now + seconds, force)
                if fence is not None:
                    taken[table_id] = fence
            return taken

        return await self._writer.run(work)

    async def renew(self, node: str, seconds: float) -> set[int]:
        """Extend every lease of ``node``; the tables it still serves."""

        def work(connection: Connection) -> set[int]:
            until = database_now(connection) + seconds
            statement = (
                update(leases_table)
                .where(leases_table.c.node == node)
                .values(expires_at=until)
                .returning(leases_table.c.table_id)
            )
            return set(connection.execute(statement).scalars())

        return await self._writer.run(work, groupable=True)

    async def release(self, node: str, table_id: int) -> None:
        """``node`` no longer serves the table (it is closed, or finished long enough)."""
        statement = delete(leases_table).where(
            leases_table.c.table_id == table_id, leases_table.c.node == node
        )
        await self._writer.run(lambda connection: connection.execute(statement), groupable=True)

    async def release_all(self, node: str) -> int:
        """``node`` serves no table any more (it is stopping): its leases run out now, so
        that the other nodes may take its tables at once, each under its next fencing
        token; how many it held."""

        def work(connection: Connection) -> int:
            statement = (
                update(leases_table)
                .where(leases_table.c.node == node)
                .values(expires_at=database_now(connection) - 1.0)
            )
            return int(connection.execute(statement).rowcount)

        return await self._writer.run(work)

    async def holder(self, table_id: int) -> str | None:
        """The node whose lease of the table runs now, if one does."""

        def work(connection: Connection) -> str | None:
            query = select(leases_table.c.node).where(
                leases_table.c.table_id == table_id,
                leases_table.c.expires_at >= database_now(connection),
            )
            node = connection.execute(query).scalar()
            return None if node is None else str(node)

        return await self._writer.run(work)


def first_lease(connection: Connection, table_id: int, node: str, seconds: float) -> None:
    """A new table's lease: ``node`` serves it for ``seconds``, under fencing token 1 (one
    statement: each one the driver runs waits for the interpreter's lock, which the event
    loop holds when it is busy, as when many tables start at once)."""
    lease = {"table_id": table_id, "node": node, "seconds": seconds}
    connection.execute(_FIRST_LEASES[_dialect(connection)], lease)


def database_now(connection: Connection) -> float:
    """The database's clock, the one every node's leases are measured by."""
    clock = _CLOCKS[_dialect(connection)]
    return float(connection.exec_driver_sql(f"SELECT {clock}").scalar_one())


def _dialect(connection: Connection) -> str:
    return "postgresql" if connection.dialect.name == "postgresql" else "sqlite"


def _unserved(connection: Connection, now: float, force: bool) -> list[int]:
    """Open and playing tables that no node serves (``force``: all of them), but those
    asleep until their clock runs out (a table over days nobody is at)."""
    query = (
        select(tables_table.c.id)
        .select_from(tables_table.outerjoin(leases_table))
        .where(
            tables_table.c.status.in_(["open", "playing"]),
            tables_table.c.asleep.is_(False) | (tables_table.c.deadline <= now),
        )
        .order_by(tables_table.c.id)
    )
    if not force:
        query = query.where((leases_table.c.table_id.is_(None)) | (leases_table.c.expires_at < now))
    return list(connection.execute(query).scalars())


def _take_lease(
    connection: Connection, table_id: int, node: str, now: float, until: float, force: bool
) -> int | None:
    """The table's new fencing token for ``node``, or ``None`` if another node serves it.

    The lease's row is locked while it is read (on PostgreSQL), so two nodes that both
    see it expired take it one after the other, and the second finds it taken.
    """
    lease = connection.execute(
        select(leases_table.c.node, leases_table.c.fence, leases_table.c.expires_at)
        .where(leases_table.c.table_id == table_id)
        .with_for_update()
    ).first()
    if lease is None:
        inserted = connection.execute(
            _insert_ignoring(connection)
            .values(table_id=table_id, node=node, fence=1, expires_at=until)
            .returning(leases_table.c.fence)
        )
        return 1 if inserted.first() is not None else None  # (rowcount says -1 on psycopg)
    if not force and lease.node != node and lease.expires_at >= now:
        return None
    fence = int(lease.fence) + 1
    connection.execute(
        update(leases_table)
        .where(leases_table.c.table_id == table_id)
        .values(node=node, fence=fence, expires_at=until)
    )
    return fence


def _insert_ignoring(connection: Connection) -> Any:
    """An INSERT of a lease that does nothing where another node just made one."""
    if connection.dialect.name == "postgresql":
        return postgresql_insert(leases_table).on_conflict_do_nothing()
    return sqlite_insert(leases_table).on_conflict_do_nothing()
