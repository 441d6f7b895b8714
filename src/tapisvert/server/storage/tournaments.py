"""Tournaments: their settings and schedule, who registered, the tables of each round, and
the lease of the node that runs each one's schedule."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, or_, select, update

from tapisvert.server.storage.schema import (
    tournament_players_table,
    tournament_tables_table,
    tournaments_table,
    users_table,
)
from tapisvert.server.storage.writer import Writer

LIVE = ("registering", "running")
PLANNED_PER_TOURNAMENT = 1_000_000
"""Room for the planned tables' numbers (below zero) of one tournament: rounds × 1,000."""


@dataclass
class TournamentRow:
    name: str
    room: str
    game: str
    options: dict[str, Any]
    clock: float | None
    format: str
    table_size: int
    rounds: int
    advance: int
    fill: str
    bot_level: str
    creator_id: int
    starts_at: float
    registration_ends: float
    status: str = "registering"
    round: int = 0
    winner_id: int | None = None
    fence: int = 0
    cancelled_by: str | None = None
    """The moderator who cancelled it (none: it was cancelled for too few players)."""
    cancel_reason: str | None = None
    id: int = 0


@dataclass(frozen=True)
class Entrant:
    user_id: int
    name: str
    registered_at: float
    withdrawn_at: float | None


@dataclass(frozen=True)
class RoundTable:
    round: int
    table_id: int
    """The table's number; below zero, a table of the round planned and not opened yet."""
    seating: tuple[int | None, ...] = ()
    """Who sits where: an account's id, ``None`` for a bot."""
    absent: frozenset[int] = field(default_factory=frozenset)
    """Who was away when the round began: a bot played for them, and they lost."""

    @property
    def opened(self) -> bool:
        return self.table_id > 0


class TournamentStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def create(self, row: TournamentRow) -> int:
        values = _values(row)

        def work(connection: Connection) -> int:
            key = connection.execute(insert(tournaments_table).values(values)).inserted_primary_key
            assert key is not None
            return int(key[0])

        return await self._writer.run(work)

    async def load(self, tournament_id: int) -> TournamentRow | None:
        query = select(tournaments_table).where(tournaments_table.c.id == tournament_id)
        row = await self._writer.run(lambda c: c.execute(query).first())
        return None if row is None else _row(row._mapping)

    async def listed(self, statuses: tuple[str, ...], latest: int) -> list[TournamentRow]:
        """Tournaments in these states, the latest ``latest``, by start."""
        query = (
            select(tournaments_table)
            .where(tournaments_table.c.status.in_(statuses))
            .order_by(tournaments_table.c.id.desc())
            .limit(latest)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return sorted((_row(row._mapping) for row in rows), key=lambda row: row.starts_at)

    async def live_by(self, creator_id: int) -> int:
        """How many tournaments to come or under way the account made."""
        query = select(func.count()).where(
            tournaments_table.c.creator_id == creator_id, tournaments_table.c.status.in_(LIVE)
        )
        count: int | None = await self._writer.run(lambda c: c.execute(query).scalar())
        return count or 0

    async def won_by(self, user_id: int) -> list[TournamentRow]:
        """The tournaments the account won, the latest first."""
        query = (
            select(tournaments_table)
            .where(tournaments_table.c.winner_id == user_id)
            .order_by(tournaments_table.c.id.desc())
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [_row(row._mapping) for row in rows]

    async def register(self, tournament_id: int, user_id: int) -> bool:
        """Register (again, after a withdrawal); whether it changed anything."""
        now = time.time()
        mine = and_(
            tournament_players_table.c.tournament_id == tournament_id,
            tournament_players_table.c.user_id == user_id,
        )

        def work(connection: Connection) -> bool:
            found = connection.execute(select(tournament_players_table).where(mine)).first()
            if found is None:
                values = {"tournament_id": tournament_id, "user_id": user_id, "registered_at": now}
                connection.execute(insert(tournament_players_table).values(values))
                return True
            if found.withdrawn_at is None:
                return False
            changed = update(tournament_players_table).where(mine)
            connection.execute(changed.values(withdrawn_at=None, registered_at=now))
            return True

        return await self._writer.run(work)

    async def withdraw(self, tournament_id: int, user_id: int) -> bool:
        """Leave the tournament (its later rounds); whether the player was in it."""
        mine = and_(
            tournament_players_table.c.tournament_id == tournament_id,
            tournament_players_table.c.user_id == user_id,
            tournament_players_table.c.withdrawn_at.is_(None),
        )
        changed = update(tournament_players_table).where(mine).values(withdrawn_at=time.time())
        result = await self._writer.run(lambda c: c.execute(changed))
        return bool(result.rowcount)

    async def entrants(self, tournament_id: int) -> list[Entrant]:
        """Everyone who registered, in the order they did."""
        query = (
            select(
                tournament_players_table.c.user_id,
                users_table.c.name,
                tournament_players_table.c.registered_at,
                tournament_players_table.c.withdrawn_at,
            )
            .join(users_table, users_table.c.id == tournament_players_table.c.user_id)
            .where(tournament_players_table.c.tournament_id == tournament_id)
            .order_by(tournament_players_table.c.registered_at, tournament_players_table.c.user_id)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [Entrant(row[0], row[1], row[2], row[3]) for row in rows]

    async def claim(self, node: str, seconds: float) -> list[TournamentRow]:
        """The live tournaments this node runs the schedule of, from now for ``seconds``:
        those it ran already, and those whose node let its lease lapse (a new fence each)."""
        now = time.time()
        live = tournaments_table.c.status.in_(LIVE)
        mine = tournaments_table.c.node == node
        free = or_(tournaments_table.c.node.is_(None), tournaments_table.c.lease_expires < now)

        def work(connection: Connection) -> list[TournamentRow]:
            connection.execute(
                update(tournaments_table).where(live, mine).values(lease_expires=now + seconds)
            )
            connection.execute(
                update(tournaments_table)
                .where(live, ~mine | tournaments_table.c.node.is_(None), free)
                .values(node=node, lease_expires=now + seconds, fence=tournaments_table.c.fence + 1)
            )
            rows = connection.execute(select(tournaments_table).where(live, mine)).all()
            return [_row(row._mapping) for row in rows]

        return await self._writer.run(work)

    async def let_go(self, node: str) -> None:
        """Leave the tournaments ``node`` runs to whichever node looks next."""
        mine = update(tournaments_table).where(tournaments_table.c.node == node)
        await self._writer.run(lambda c: c.execute(mine.values(node=None, lease_expires=None)))

    async def advance(self, row: TournamentRow, node: str) -> bool:
        """Store the tournament's round, status and winner, if this node still holds it at
        the fence it read (another node that took it over changes nothing of it)."""
        changed = (
            update(tournaments_table)
            .where(_held(row, node))
            .values(round=row.round, rounds=row.rounds, status=row.status, winner_id=row.winner_id)
        )
        result = await self._writer.run(lambda c: c.execute(changed))
        return bool(result.rowcount)

    async def plan_round(
        self, row: TournamentRow, node: str, seatings: list[tuple[int | None, ...]]
    ) -> bool:
        """Store the tournament's new round with its tables to open, in one transaction, if
        this node still holds it at the fence it read (see ``advance``)."""
        held = _held(row, node)
        values = {"round": row.round, "rounds": row.rounds, "status": row.status}

        def work(connection: Connection) -> bool:
            if not connection.execute(
                update(tournaments_table).where(held).values(values)
            ).rowcount:
                return False
            for index, seating in enumerate(seatings):
                planned = {
                    "tournament_id": row.id,
                    "round": row.round,
                    "table_id": -(row.id * PLANNED_PER_TOURNAMENT + row.round * 1000 + index + 1),
                    "absent": "[]",
                    "seating": json.dumps(list(seating)),
                }
                connection.execute(insert(tournament_tables_table).values(planned))
            return True

        return await self._writer.run(work)

    async def cancel(self, tournament_id: int, by: str, reason: str) -> bool:
        """A moderator cancels the tournament: no round starts any more (the tables of a
        round planned and not opened yet are forgotten); whether it was still to come or
        under way."""
        live = and_(tournaments_table.c.id == tournament_id, tournaments_table.c.status.in_(LIVE))
        changed = update(tournaments_table).where(live)
        planned = tournament_tables_table.c.tournament_id == tournament_id

        def work(connection: Connection) -> bool:
            values = {"status": "cancelled", "cancelled_by": by, "cancel_reason": reason}
            if not connection.execute(changed.values(values)).rowcount:
                return False
            connection.execute(
                delete(tournament_tables_table).where(
                    planned, tournament_tables_table.c.table_id < 0
                )
            )
            return True

        return await self._writer.run(work)

    async def live(self, tournament_id: int) -> bool:
        """Whether the tournament is still to come or under way (not cancelled meanwhile)."""
        query = select(tournaments_table.c.status).where(tournaments_table.c.id == tournament_id)
        status = await self._writer.run(lambda c: c.execute(query).scalar())
        return status in LIVE

    async def opened(self, planned: RoundTable, table_id: int, absent: frozenset[int]) -> None:
        """A planned table of a round is open now, as ``table_id``."""
        changed = (
            update(tournament_tables_table)
            .where(tournament_tables_table.c.table_id == planned.table_id)
            .values(table_id=table_id, absent=json.dumps(sorted(absent)))
        )
        await self._writer.run(lambda c: c.execute(changed))

    async def tables(self, tournament_id: int) -> list[RoundTable]:
        """The tables of every round so far, by round."""
        query = (
            select(tournament_tables_table)
            .where(tournament_tables_table.c.tournament_id == tournament_id)
            .order_by(tournament_tables_table.c.round, tournament_tables_table.c.table_id)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [
            RoundTable(
                row.round,
                row.table_id,
                tuple(json.loads(row.seating)),
                frozenset(json.loads(row.absent)),
            )
            for row in rows
        ]


def _held(row: TournamentRow, node: str) -> Any:
    """The tournament, if this node still holds it at the fence it read and nobody
    cancelled it meanwhile."""
    return and_(
        tournaments_table.c.id == row.id,
        tournaments_table.c.fence == row.fence,
        tournaments_table.c.node == node,
        tournaments_table.c.status.in_(LIVE),
    )


def _values(row: TournamentRow) -> dict[str, Any]:
    values = {name: getattr(row, name) for name in TournamentRow.__dataclass_fields__}
    del values["id"]
    values["options"] = json.dumps(row.options)
    return values


def _row(values: Any) -> TournamentRow:
    fields = {name: values[name] for name in TournamentRow.__dataclass_fields__}
    fields["options"] = json.loads(fields["options"])
    return TournamentRow(**fields)
