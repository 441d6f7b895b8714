"""Reports of a chat line, a person or a table, and what moderators made of them."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Connection, func, insert, select, update

from tapisvert.server.storage.schema import reports_table, users_table
from tapisvert.server.storage.writer import Writer


@dataclass(frozen=True)
class ReportRow:
    id: int
    reporter_id: int
    reporter: str
    kind: str
    target: str
    reason: str
    context: dict[str, Any]
    made_at: float
    status: str
    handled_by: str | None
    handled_at: float | None


class ReportStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def add(
        self, reporter_id: int, kind: str, target: str, reason: str, context: dict[str, Any]
    ) -> int:
        values = {
            "reporter_id": reporter_id,
            "kind": kind,
            "target": target[:64],
            "reason": reason,
            "context": orjson.dumps(context).decode(),
            "made_at": time.time(),
            "status": "open",
        }

        def work(connection: Connection) -> int:
            key = connection.execute(insert(reports_table).values(values)).inserted_primary_key
            assert key is not None
            return int(key[0])

        return await self._writer.run(work)

    async def open_by(self, reporter_id: int) -> int:
        """How many of the person's reports wait for a moderator."""
        query = select(func.count()).where(
            (reports_table.c.reporter_id == reporter_id) & (reports_table.c.status == "open")
        )
        return await self._writer.run(lambda c: int(c.execute(query).scalar() or 0))

    async def listed(self, status: str, latest: int) -> list[ReportRow]:
        query = (
            select(reports_table, users_table.c.name.label("reporter"))
            .join(users_table, users_table.c.id == reports_table.c.reporter_id)
            .where(reports_table.c.status == status)
            .order_by(reports_table.c.id)
            .limit(latest)
        )
        return await self._writer.run(lambda c: [_report(row) for row in c.execute(query)])

    async def handle(self, report_id: int, status: str, by: str) -> ReportRow | None:
        """Close an open report; the report as it is now, or None if none was open."""

        def work(connection: Connection) -> ReportRow | None:
            mine = (reports_table.c.id == report_id) & (reports_table.c.status == "open")
            values = {"status": status, "handled_by": by, "handled_at": time.time()}
            if connection.execute(update(reports_table).where(mine).values(values)).rowcount == 0:
                return None
            return _one(connection, reports_table.c.id == report_id)

        return await self._writer.run(work)

    async def unnotified(self, reporter_id: int) -> list[ReportRow]:
        """The person's handled reports they were not told of yet; from now, they are."""

        def work(connection: Connection) -> list[ReportRow]:
            mine = (
                (reports_table.c.reporter_id == reporter_id)
                & (reports_table.c.status != "open")
                & (reports_table.c.notified == False)  # noqa: E712 (SQL, not Python)
            )
            query = (
                select(reports_table, users_table.c.name.label("reporter"))
                .join(users_table, users_table.c.id == reports_table.c.reporter_id)
                .where(mine)
            )
            rows = [_report(row) for row in connection.execute(query)]
            connection.execute(update(reports_table).where(mine).values(notified=True))
            return rows

        return await self._writer.run(work)

    async def notified(self, report_id: int) -> None:
        mine = reports_table.c.id == report_id
        await self._writer.run(
            lambda c: c.execute(update(reports_table).where(mine).values(notified=True))
        )


def _one(connection: Connection, condition: Any) -> ReportRow | None:
    query = (
        select(reports_table, users_table.c.name.label("reporter"))
        .join(users_table, users_table.c.id == reports_table.c.reporter_id)
        .where(condition)
    )
    row = connection.execute(query).first()
    return None if row is None else _report(row)


def _report(row: Any) -> ReportRow:
    return ReportRow(
        row.id,
        row.reporter_id,
        row.reporter,
        row.kind,
        row.target,
        row.reason,
        orjson.loads(row.context),
        row.made_at,
        row.status,
        row.handled_by,
        row.handled_at,
    )
