"""An account's end and its data: erasing a person from every game they played, what they
may download of themselves, and the one-time links that set a new password."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from tapisvert.server.storage.ratings import played_game
from tapisvert.server.storage.rows import PlayedGame
from tapisvert.server.storage.schema import (
    friendships_table,
    ignores_table,
    messages_table,
    password_resets_table,
    ratings_table,
    results_table,
    roles_table,
    sessions_table,
    tables_table,
    tournament_players_table,
    users_table,
)
from tapisvert.server.storage.tables import seats_may_name
from tapisvert.server.storage.writer import Writer

ERASED_NAME = "(deleted)"
"""What every record and view shows in place of a deleted account's name. No person's name
can take this form (names are letters, digits, dots, dashes and underscores)."""


class AccountLifeStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def erase(self, user_id: int) -> None:
        """Erase the person from the database in one transaction: their games stay, under
        ``ERASED_NAME``; their password, sessions, ratings, roles, pending links, ignores,
        friendships, messages (sent and received), name and export choices go. The audit
        log keeps what moderators did, under the name it was done to."""

        def work(connection: Connection) -> None:
            connection.execute(
                update(users_table)
                .where(users_table.c.id == user_id)
                .values(
                    name=f"(deleted {user_id})",
                    name_key=None,
                    password_hash=None,
                    deleted_at=time.time(),
                    owner_id=None,
                    export_name=False,
                    export_unrated=False,
                )
            )
            gone = tournament_players_table.c.withdrawn_at.is_(None)  # out of the rounds to come
            connection.execute(
                update(tournament_players_table)
                .where(tournament_players_table.c.user_id == user_id, gone)
                .values(withdrawn_at=time.time())
            )
            for table in (sessions_table, ratings_table, password_resets_table, roles_table):
                connection.execute(delete(table).where(table.c.user_id == user_id))
            for table, one, other in (
                (ignores_table, "user_id", "ignored_id"),
                (friendships_table, "asker_id", "asked_id"),
                (messages_table, "sender_id", "recipient_id"),  # a conversation needs both
            ):
                mine = (table.c[one] == user_id) | (table.c[other] == user_id)
                connection.execute(delete(table).where(mine))
            connection.execute(
                update(results_table).where(results_table.c.user_id == user_id).values(user_id=None)
            )
            _erase_from_seats(connection, user_id)

        return await self._writer.run(work)

    async def games(self, user_id: int) -> list[PlayedGame]:
        """Every finished game of the account, oldest first (what a download gives)."""
        query = (
            select(results_table, tables_table.c.seats)
            .join(tables_table, tables_table.c.id == results_table.c.table_id)
            .where(results_table.c.user_id == user_id)
            .order_by(results_table.c.id)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [played_game(row) for row in rows]

    async def keep_reset(self, key: str, user_id: int, ttl: float) -> None:
        """Keep a new link (by its key's hash); it replaces any earlier one of the account."""

        def work(connection: Connection) -> None:
            mine = password_resets_table.c.user_id == user_id
            connection.execute(delete(password_resets_table).where(mine))
            values = {
                "key": key,
                "user_id": user_id,
                "expires_at": time.time() + ttl,
            }
            connection.execute(insert(password_resets_table).values(values))

        await self._writer.run(work)

    async def use_reset(self, key: str, password_hash: str) -> int | None:
        """Spend a link: the account's new password, and every session of it closed; the
        account's id, or ``None`` when the link is unknown, used or expired."""

        def work(connection: Connection) -> int | None:
            found = connection.execute(
                select(password_resets_table).where(password_resets_table.c.key == key)
            ).first()
            if found is None:
                return None
            connection.execute(
                delete(password_resets_table).where(password_resets_table.c.key == key)
            )
            if found.expires_at < time.time():
                return None
            user_id = int(found.user_id)
            connection.execute(
                update(users_table)
                .where(users_table.c.id == user_id)
                .values(password_hash=password_hash)
            )
            connection.execute(delete(sessions_table).where(sessions_table.c.user_id == user_id))
            return user_id

        return await self._writer.run(work)


def _erase_from_seats(connection: Connection, user_id: int) -> None:
    found = connection.execute(
        select(tables_table.c.id, tables_table.c.seats).where(seats_may_name(user_id))
    ).all()
    for table_id, text in found:
        seats: list[dict[str, Any]] = json.loads(text)
        if not any(seat.get("user_id") == user_id for seat in seats):
            continue
        for seat in seats:
            if seat.get("user_id") == user_id:
                seat.update(user_id=None, name=ERASED_NAME)
        connection.execute(
            update(tables_table)
            .where(tables_table.c.id == table_id)
            .values(seats=json.dumps(seats))
        )
