"""What the open database of games reads: finished games a page at a time, with their logs,
results and what their players' accounts allow, and those accounts' choices."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, select, update

from tapisvert.server.storage.ratings import seat_result
from tapisvert.server.storage.rows import LoggedAction, SeatResult, TableRow
from tapisvert.server.storage.schema import (
    actions_table,
    results_table,
    tables_table,
    users_table,
)
from tapisvert.server.storage.tables import LOG_COLUMNS, logged_action, table_row
from tapisvert.server.storage.writer import Writer


@dataclass(frozen=True)
class ExportChoices:
    """What an account lets the open database of games show (both off at first)."""

    name: bool = False
    """Its name, where the others get a pseudonym."""
    unrated: bool = False
    """Its unrated games (each goes in only if every person at it allowed it)."""


@dataclass(frozen=True)
class FinishedGame:
    """A finished table as the export reads it."""

    table: TableRow
    log: list[LoggedAction]
    results: list[SeatResult]
    """One per seat, in seat order."""
    choices: dict[int, ExportChoices]
    """Of each person's account seated at it."""


def seated_people(table: TableRow) -> list[int | None]:
    """The account of each seat a person played (``None``: an account deleted since)."""
    return [seat.get("user_id") for seat in table.seats if seat.get("kind") == "human"]


class ExportStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def choices(self, user_id: int) -> ExportChoices:
        query = select(users_table.c.export_name, users_table.c.export_unrated).where(
            users_table.c.id == user_id
        )
        found = await self._writer.run(lambda c: c.execute(query).first())
        return ExportChoices() if found is None else ExportChoices(*map(bool, found))

    async def choose(self, user_id: int, choices: ExportChoices) -> None:
        statement = (
            update(users_table)
            .where(users_table.c.id == user_id)
            .values(export_name=choices.name, export_unrated=choices.unrated)
        )
        await self._writer.run(lambda c: c.execute(statement))

    async def finished(self, game: str, since: float, after: int, count: int) -> list[FinishedGame]:
        """Up to ``count`` games of ``game`` finished at ``since`` or later (seconds since
        1970), of tables numbered above ``after``, in the tables' order: one read each, so
        that an export of any length holds one page at a time and lets moves be written
        between its pages."""

        def work(connection: Connection) -> list[FinishedGame]:
            tables = [
                table_row(row._mapping)
                for row in connection.execute(
                    select(tables_table)
                    .where(
                        tables_table.c.game == game,
                        tables_table.c.status == "finished",
                        tables_table.c.finished_at >= since,
                        tables_table.c.id > after,
                    )
                    .order_by(tables_table.c.id)
                    .limit(count)
                ).all()
            ]
            ids = [table.id for table in tables]
            logs: dict[int, list[LoggedAction]] = {table_id: [] for table_id in ids}
            for table_id, *entry in connection.execute(
                select(actions_table.c.table_id, *LOG_COLUMNS)
                .where(actions_table.c.table_id.in_(ids))
                .order_by(actions_table.c.table_id, actions_table.c.seq)
            ).all():
                logs[table_id].append(logged_action(*entry))
            results: dict[int, list[SeatResult]] = {table_id: [] for table_id in ids}
            for row in connection.execute(
                select(results_table)
                .where(results_table.c.table_id.in_(ids))
                .order_by(results_table.c.table_id, results_table.c.seat)
            ).all():
                results[row.table_id].append(seat_result(row._mapping))
            people = {
                person for table in tables for person in seated_people(table) if person is not None
            }
            choices = {
                user_id: ExportChoices(bool(name), bool(unrated))
                for user_id, name, unrated in connection.execute(
                    select(
                        users_table.c.id, users_table.c.export_name, users_table.c.export_unrated
                    ).where(users_table.c.id.in_(people))
                ).all()
            }
            return [
                FinishedGame(
                    table,
                    logs[table.id],
                    results[table.id],
                    {
                        person: choices.get(person, ExportChoices())
                        for person in seated_people(table)
                        if person is not None
                    },
                )
                for table in tables
            ]

        return await self._writer.run(work)
