"""Roles, mutes and bans, and the audit log that keeps every act of moderation."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Connection, delete, desc, insert, or_, select, update

from tapisvert.server.storage.schema import (
    audit_table,
    roles_table,
    sanctions_table,
    sessions_table,
    users_table,
)
from tapisvert.server.storage.writer import Writer


@dataclass(frozen=True)
class SanctionRow:
    id: int
    kind: str
    """``mute`` or ``ban``."""
    user_id: int | None
    address: str | None
    scope: str
    reason: str
    given_by: str
    given_at: float
    until: float | None
    """None: for good."""


@dataclass(frozen=True)
class AuditRow:
    id: int
    at: float
    actor: str
    action: str
    target: str
    reason: str
    until: float | None
    detail: dict[str, Any]


@dataclass(frozen=True)
class RoleRow:
    name: str
    role: str
    granted_by: str
    granted_at: float


class ModerationStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    # -- roles ------------------------------------------------------------------------

    async def roles(self, user_id: int) -> set[str]:
        query = select(roles_table.c.role).where(roles_table.c.user_id == user_id)
        return await self._writer.run(lambda c: {str(role) for role in c.execute(query).scalars()})

    async def staff(self) -> list[RoleRow]:
        """Everyone with a role, by name."""
        query = (
            select(users_table.c.name, roles_table)
            .join(users_table, users_table.c.id == roles_table.c.user_id)
            .order_by(users_table.c.name, roles_table.c.role)
        )
        return await self._writer.run(
            lambda c: [
                RoleRow(row.name, row.role, row.granted_by, row.granted_at)
                for row in c.execute(query)
            ]
        )

    async def grant(self, user_id: int, role: str, by: str, audit: dict[str, Any]) -> bool:
        """Give the role (and log it); False when the person had it already."""

        def work(connection: Connection) -> bool:
            mine = (roles_table.c.user_id == user_id) & (roles_table.c.role == role)
            if connection.execute(select(roles_table.c.role).where(mine)).first() is not None:
                return False
            values = {"user_id": user_id, "role": role, "granted_by": by, "granted_at": time.time()}
            connection.execute(insert(roles_table).values(values))
            _audit(connection, audit)
            return True

        return await self._writer.run(work)

    async def revoke(self, user_id: int, role: str, audit: dict[str, Any]) -> bool:
        """Take the role back (and log it); False when the person did not have it."""

        def work(connection: Connection) -> bool:
            mine = (roles_table.c.user_id == user_id) & (roles_table.c.role == role)
            if connection.execute(delete(roles_table).where(mine)).rowcount == 0:
                return False
            _audit(connection, audit)
            return True

        return await self._writer.run(work)

    # -- sanctions --------------------------------------------------------------------

    async def sanction(
        self, values: dict[str, Any], audit: dict[str, Any], end_sessions: bool = False
    ) -> SanctionRow:
        """Store a mute or a ban and log it, in one transaction; ``end_sessions``: the
        account's sessions close too (a ban)."""

        def work(connection: Connection) -> SanctionRow:
            key = connection.execute(insert(sanctions_table).values(values)).inserted_primary_key
            assert key is not None
            if end_sessions and values.get("user_id") is not None:
                mine = sessions_table.c.user_id == values["user_id"]
                connection.execute(delete(sessions_table).where(mine))
            _audit(connection, audit)
            return _sanction(connection, int(key[0]))

        return await self._writer.run(work)

    async def lift(
        self, kind: str, user_id: int | None, addresses: list[str], audit: dict[str, Any]
    ) -> int:
        """Lift the person's (or the addresses') sanctions of this kind; how many were."""
        now = time.time()

        def work(connection: Connection) -> int:
            whose = or_(
                sanctions_table.c.user_id == user_id, sanctions_table.c.address.in_(addresses)
            )
            lifted = connection.execute(
                update(sanctions_table)
                .where(whose & (sanctions_table.c.kind == kind) & _active(now))
                .values(lifted_at=now)
            ).rowcount
            if lifted:
                _audit(connection, audit)
            return int(lifted)

        return await self._writer.run(work)

    async def active(
        self, user_id: int | None = None, addresses: list[str] | None = None
    ) -> list[SanctionRow]:
        """The sanctions in force: everyone's, or one person's and addresses'."""
        now = time.time()
        query = select(sanctions_table).where(_active(now))
        if user_id is not None or addresses is not None:
            query = query.where(
                or_(
                    sanctions_table.c.user_id == user_id,
                    sanctions_table.c.address.in_(addresses or []),
                )
            )
        query = query.order_by(sanctions_table.c.id)
        return await self._writer.run(lambda c: [_row(row) for row in c.execute(query)])

    # -- the audit log ----------------------------------------------------------------

    async def log(self, audit: dict[str, Any]) -> None:
        await self._writer.run(lambda c: _audit(c, audit))

    async def audit(self, latest: int) -> list[AuditRow]:
        query = select(audit_table).order_by(desc(audit_table.c.id)).limit(latest)
        return await self._writer.run(
            lambda c: [
                AuditRow(
                    row.id,
                    row.at,
                    row.actor,
                    row.action,
                    row.target,
                    row.reason,
                    row.until,
                    orjson.loads(row.detail),
                )
                for row in c.execute(query)
            ]
        )


def audit_entry(
    actor: str,
    action: str,
    target: str,
    reason: str,
    until: float | None = None,
    **detail: Any,
) -> dict[str, Any]:
    """One line of the audit log: who, what, to whom, why, until when (now is when)."""
    return {
        "actor": actor[:32],
        "action": action,
        "target": target[:64],
        "reason": reason,
        "until": until,
        "detail": orjson.dumps(detail).decode(),
    }


def _audit(connection: Connection, audit: dict[str, Any]) -> None:
    connection.execute(insert(audit_table).values(at=time.time(), **audit))


def _active(now: float) -> Any:
    return sanctions_table.c.lifted_at.is_(None) & (
        sanctions_table.c.until.is_(None) | (sanctions_table.c.until > now)
    )


def _sanction(connection: Connection, sanction_id: int) -> SanctionRow:
    row = connection.execute(select(sanctions_table).where(sanctions_table.c.id == sanction_id))
    return _row(row.one())


def _row(row: Any) -> SanctionRow:
    return SanctionRow(
        row.id,
        row.kind,
        row.user_id,
        row.address,
        row.scope,
        row.reason,
        row.given_by,
        row.given_at,
        row.until,
    )
