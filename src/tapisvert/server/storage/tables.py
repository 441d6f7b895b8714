"""Tables and their action logs: a table's row, saved as it changes, and every move it
accepted, appended before anyone hears of it."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from tapisvert.server.ratings import Standing
from tapisvert.server.speeds import DAYS_CLOCK
from tapisvert.server.storage.leases import NOBODY, database_now, first_lease
from tapisvert.server.storage.ratings import rating
from tapisvert.server.storage.rows import LoggedAction, SeatResult, TableRow
from tapisvert.server.storage.schema import actions_table, leases_table, tables_table
from tapisvert.server.storage.writer import LogRow, Writer, fence_of

_CREATE_TABLE = insert(tables_table)
_SAVE_TABLE = update(tables_table).where(tables_table.c.id == bindparam("saved_id"))
"""Statements of a table's life, built once and their values bound at each use: built each
time, with SQLAlchemy's constructs and their cache keys worked out anew, the saves alone took
about a twelfth of the event loop at 250 tables of Luz (py-spy), most of it as games begin."""


class TableStore:
    """With a ``fence``, a write stores nothing unless the table's lease still carries that
    fencing token: :class:`TableMoved` says another node holds it now."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def create(self, row: TableRow, node: str | None = None, seconds: float = 0) -> int:
        """The new table's id; with ``node``, its lease for ``seconds`` (fencing token 1)."""
        values = _table_values(row)  # here: the writer thread reads no live table's state

        def work(connection: Connection) -> int:
            key = connection.execute(_CREATE_TABLE, values).inserted_primary_key
            assert key is not None
            if node is not None:
                first_lease(connection, key[0], node, seconds)
            return int(key[0])

        return await self._writer.run(work, groupable=True)

    async def save(self, row: TableRow, fence: int | None = None) -> None:
        await self._writer.run(_saving(row), groupable=True, fence=fence_of(row.id, fence))

    async def sleep(self, row: TableRow, node: str, fence: int | None = None) -> None:
        """Save ``row`` (asleep, with its chat) and end ``node``'s lease of it, in one
        transaction: the lease is nobody's (``node`` renews it no more), the next node to
        wake the table takes it under the next fencing token, and a request that finds it
        ended finds the table asleep too."""
        save = _saving(replace(row, asleep=True))

        def work(connection: Connection) -> None:
            save(connection)
            connection.execute(
                update(leases_table)
                .where(leases_table.c.table_id == row.id, leases_table.c.node == node)
                .values(node=NOBODY, expires_at=database_now(connection) - 1.0)
            )

        await self._writer.run(work, fence=fence_of(row.id, fence))

    async def listed(
        self, statuses: Sequence[str], latest: int | None = None, room: str | None = None
    ) -> list[TableRow]:
        """Tables in these states (in ``room`` when given), oldest first; only the
        ``latest`` ones when given."""
        query = select(tables_table).where(tables_table.c.status.in_(list(statuses)))
        if room is not None:
            query = query.where(tables_table.c.room == room)
        query = query.order_by(tables_table.c.id.desc()).limit(latest)
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [table_row(row._mapping) for row in reversed(rows)]

    async def loaded(self, table_ids: Sequence[int]) -> list[TableRow]:
        """These tables' rows, by id (a few hundred a query)."""
        ids = sorted(table_ids)
        rows: list[TableRow] = []
        for start in range(0, len(ids), 500):
            some = ids[start : start + 500]

            def work(connection: Connection, some: list[int] = some) -> list[Any]:
                query = select(tables_table).where(tables_table.c.id.in_(some))
                return list(connection.execute(query).all())

            rows += [table_row(row._mapping) for row in await self._writer.run(work)]
        return sorted(rows, key=lambda row: row.id)

    async def seated(self, user_id: int, statuses: Sequence[str]) -> list[TableRow]:
        """Tables in these states where the user sits, oldest first."""
        query = (
            select(tables_table)
            .where(tables_table.c.status.in_(list(statuses)), seats_may_name(user_id))
            .order_by(tables_table.c.id)
        )
        rows = [
            table_row(row._mapping)
            for row in await self._writer.run(lambda c: c.execute(query).all())
        ]
        return [row for row in rows if any(seat.get("user_id") == user_id for seat in row.seats)]

    async def turns_of(self, user_id: int) -> list[TableRow]:
        """The tables over days where the user is to act, the soonest clock first."""
        query = (
            select(tables_table)
            .where(
                tables_table.c.to_act == user_id,
                tables_table.c.status == "playing",
                tables_table.c.clock >= DAYS_CLOCK,
            )
            .order_by(tables_table.c.deadline)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [table_row(row._mapping) for row in rows]

    async def load(self, table_id: int) -> TableRow | None:
        query = select(tables_table).where(tables_table.c.id == table_id)
        row = await self._writer.run(lambda c: c.execute(query).first())
        return None if row is None else table_row(row._mapping)

    async def append(
        self,
        table_id: int,
        entries: Sequence[LoggedAction],
        table: TableRow | None = None,
        fence: int | None = None,
    ) -> None:
        """Committed when it returns; entries of one table arrive in ``seq`` order.

        With ``table``, that table's row is saved in the same transaction: a game that
        starts or ends is never stored without its moves, nor its moves without it.
        """
        if not entries and table is None:
            return
        work = None if table is None else _saving(table)
        rows = _log_rows(table_id, entries)
        await self._writer.run(work, groupable=True, rows=rows, fence=fence_of(table_id, fence))

    async def take_back(self, table_id: int, start: int, fence: int | None = None) -> None:
        """Remove the log's moves from ``start`` on: a move taken back is no part of the
        game's record (the table's notices say it happened)."""
        statement = delete(actions_table).where(
            actions_table.c.table_id == table_id, actions_table.c.seq >= start
        )
        await self._writer.run(
            lambda connection: connection.execute(statement), fence=fence_of(table_id, fence)
        )

    async def actions(self, table_id: int) -> list[LoggedAction]:
        """The table's log, in ``seq`` order."""
        query = (
            select(*LOG_COLUMNS)
            .where(actions_table.c.table_id == table_id)
            .order_by(actions_table.c.seq)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [logged_action(*row) for row in rows]

    async def finish(
        self,
        table_id: int,
        entries: Sequence[LoggedAction],
        table: TableRow,
        standings: Sequence[Standing],
        fence: int | None = None,
    ) -> list[SeatResult]:
        """Append the game's last moves, save its finished row, write each seat's result and
        update the ratings, in one transaction: a game is never finished and unrated, nor
        rated twice (a table's results are unique per seat)."""
        save = _saving(table)
        rate = rating(table, list(standings))

        def work(connection: Connection) -> list[SeatResult]:
            save(connection)
            return rate(connection)

        result: list[SeatResult] = await self._writer.run(
            work,
            groupable=True,
            rows=_log_rows(table_id, entries),
            fence=fence_of(table_id, fence),
        )
        return result


LOG_COLUMNS = (
    actions_table.c.seq,
    actions_table.c.actor,
    actions_table.c.action,
    actions_table.c.stand_in,
    actions_table.c.took,
)
"""What a log entry is read from (see ``logged_action``)."""


def logged_action(
    seq: int, actor: int, action: int, stand_in: bool, took: float | None
) -> LoggedAction:
    """A log entry from the values of ``LOG_COLUMNS``."""
    return LoggedAction(seq, actor, action, bool(stand_in), took)


def _saving(row: TableRow) -> Callable[[Connection], Any]:
    """The work that saves ``row``, as it is now."""
    values = {"saved_id": row.id, **_table_values(row)}
    return lambda connection: connection.execute(_SAVE_TABLE, values)


def _log_rows(table_id: int, entries: Sequence[LoggedAction]) -> list[LogRow]:
    return [
        (table_id, entry.seq, entry.actor, entry.action, entry.stand_in, entry.took)
        for entry in entries
    ]


def _table_values(row: TableRow) -> dict[str, Any]:
    return {
        "room": row.room,
        "game": row.game,
        "players": row.players,
        "options": json.dumps(row.options),
        "seed": row.seed,
        "clock": row.clock,
        "status": row.status,
        "seats": json.dumps(row.seats),
        "result": None if row.result is None else json.dumps(row.result),
        "rated": row.rated,
        "finished_at": row.finished_at,
        "timeout": row.timeout,
        "deadline": row.deadline,
        "to_act": row.to_act,
        "asleep": row.asleep,
        "chat": json.dumps(row.chat) if row.asleep else None,  # kept only while it sleeps
    }


def seats_may_name(user_id: int) -> Any:
    """A condition true of every table whose seats name the user, and of a few more: the
    database narrows by the seats' text as ``_table_values`` writes it (``"user_id": 5``
    also finds 51); the rows' seats tell exactly."""
    return tables_table.c.seats.like(f'%"user_id": {int(user_id)}%')


def table_row(values: Any) -> TableRow:
    return TableRow(
        id=values["id"],
        room=values["room"],
        game=values["game"],
        players=values["players"],
        options=json.loads(values["options"]),
        seed=values["seed"],
        clock=values["clock"],
        status=values["status"],
        seats=json.loads(values["seats"]),
        result=None if values["result"] is None else json.loads(values["result"]),
        rated=bool(values["rated"]),
        finished_at=values["finished_at"],
        timeout=values["timeout"],
        deadline=values["deadline"],
        to_act=values["to_act"],
        asleep=bool(values["asleep"]),
        chat=json.loads(values["chat"]) if values["chat"] else [],
    )
