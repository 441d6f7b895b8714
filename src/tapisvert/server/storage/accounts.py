"""Accounts (people, guests and the bots' own) and the sessions they sign in with."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from tapisvert.server.auth import TOKEN_MAX_AGE
from tapisvert.server.storage.rows import UserRow
from tapisvert.server.storage.schema import sessions_table, users_table
from tapisvert.server.storage.writer import Writer


class AccountStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def create(
        self,
        name: str,
        key: str,
        password_hash: str | None,
        guest: bool,
        owner_id: int | None = None,
    ) -> int | None:
        """The new user's id, or ``None`` when a name with this ``key`` is taken; with
        ``owner_id``, a bot account that person owns."""

        # one writer: nothing comes between the look and the insert
        def work(connection: Connection) -> int | None:
            taken = select(users_table.c.id).where(
                (users_table.c.name_key == key) | (users_table.c.name == name)
            )
            if connection.execute(taken.limit(1)).first() is not None:
                return None
            result = connection.execute(
                insert(users_table).values(
                    name=name,
                    name_key=key,
                    password_hash=password_hash,
                    guest=guest,
                    bot=owner_id is not None,
                    owner_id=owner_id,
                )
            )
            inserted = result.inserted_primary_key
            return None if inserted is None else int(inserted[0])

        return await self._writer.run(work)

    async def load(self, user_id: int) -> UserRow | None:
        return await self._writer.run(lambda c: _one_user(c, users_table.c.id == user_id))

    async def named(self, name: str) -> UserRow | None:
        return await self._writer.run(lambda c: _one_user(c, users_table.c.name == name))

    async def owned_bots(self, owner_id: int) -> list[UserRow]:
        """The bot accounts ``owner_id`` owns, by name."""
        query = select(users_table).where(users_table.c.owner_id == owner_id)
        rows = await self._writer.run(lambda c: c.execute(query.order_by(users_table.c.name)).all())
        return [_user_row(row) for row in rows]

    async def set_invites(self, user_id: int, invites: str) -> None:
        changed = update(users_table).where(users_table.c.id == user_id).values(invites=invites)
        await self._writer.run(lambda c: c.execute(changed))

    async def set_password(self, user_id: int, password_hash: str, keep: str) -> None:
        """Change the password and close every session of ``user_id`` but ``keep``, in one
        transaction."""

        def work(connection: Connection) -> None:
            changed = update(users_table).where(users_table.c.id == user_id)
            connection.execute(changed.values(password_hash=password_hash))
            others = (sessions_table.c.user_id == user_id) & (sessions_table.c.id != keep)
            connection.execute(delete(sessions_table).where(others))

        await self._writer.run(work)

    async def bots(self, levels: Sequence[str]) -> dict[str, int]:
        """The account of each bot level (``bot easy``…), made the first time it is asked."""

        def work(connection: Connection) -> dict[str, int]:
            accounts = {}
            for level in levels:
                name = f"bot {level}"
                found = connection.execute(
                    select(users_table.c.id).where(users_table.c.name == name)
                ).scalar()
                if found is None:
                    values = {"name": name, "name_key": name, "guest": False, "bot": True}
                    key = connection.execute(
                        insert(users_table).values(values)
                    ).inserted_primary_key
                    assert key is not None
                    found = key[0]
                accounts[level] = int(found)
            return accounts

        return await self._writer.run(work)


class SessionStore:
    """A session lives no longer than its token: older ones go whenever another opens."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def open(self, session: str, user_id: int) -> None:
        now = time.time()

        def work(connection: Connection) -> None:
            expired = sessions_table.c.opened_at < now - TOKEN_MAX_AGE  # their tokens too
            connection.execute(delete(sessions_table).where(expired))
            values = {"id": session, "user_id": user_id, "opened_at": now}
            connection.execute(insert(sessions_table).values(**values))

        await self._writer.run(work)

    async def owner(self, session: str) -> int | None:
        """The user whose session this is, while it is open."""
        query = select(sessions_table.c.user_id).where(sessions_table.c.id == session)
        return await self._writer.run(lambda c: c.execute(query).scalar())

    async def close_every(self, user_id: int) -> None:
        """Close every session of ``user_id``: no token of theirs authenticates any more."""
        mine = sessions_table.c.user_id == user_id
        await self._writer.run(lambda c: c.execute(delete(sessions_table).where(mine)))

    async def close(self, user_id: int, session: str) -> None:
        mine = (sessions_table.c.user_id == user_id) & (sessions_table.c.id == session)
        await self._writer.run(lambda c: c.execute(delete(sessions_table).where(mine)))


def _one_user(connection: Connection, condition: Any) -> UserRow | None:
    row = connection.execute(select(users_table).where(condition)).first()
    return None if row is None else _user_row(row)


def _user_row(row: Any) -> UserRow:
    return UserRow(
        row.id,
        row.name,
        row.password_hash,
        bool(row.guest),
        bool(row.bot),
        row.owner_id,
        row.invites,
    )
