"""The storage port and its SQL adapter (SQLite embedded by default, PostgreSQL by URL).

The server reaches each area through an attribute: ``storage.accounts``,
``storage.sessions``, ``storage.tables`` (rows and action logs), ``storage.ratings``
(results, ratings and what is read of them), ``storage.reviews``, ``storage.leases``,
``storage.account_life`` (deleting an account, its data, links that set a new password),
``storage.moderation`` (roles, mutes, bans, the audit log), ``storage.reports`` and
``storage.social`` (ignores, friends, private messages) and ``storage.exports`` (what the
open database of games reads, and what each account lets it show). Every one of them runs its
statements in one writer thread, committed in groups (see ``writer``); ``schema`` holds the
tables and runs the migrations, ``engine`` opens the database.
"""

from __future__ import annotations

import asyncio
import os
from typing import Protocol

from sqlalchemy import Connection, insert, select

from tapisvert.server.storage.account_life import ERASED_NAME, AccountLifeStore
from tapisvert.server.storage.accounts import AccountStore, SessionStore
from tapisvert.server.storage.engine import Checkpointer, default_database_url, make_engine
from tapisvert.server.storage.exports import ExportChoices, ExportStore, FinishedGame
from tapisvert.server.storage.leases import LeaseStore
from tapisvert.server.storage.moderation import ModerationStore
from tapisvert.server.storage.ratings import RatingStore
from tapisvert.server.storage.reports import ReportStore
from tapisvert.server.storage.reviews import ReviewStore
from tapisvert.server.storage.rows import (
    GameCounts,
    LoggedAction,
    PlayedGame,
    RatingPoint,
    RatingRow,
    SeatResult,
    TableRow,
    UserRow,
)
from tapisvert.server.storage.schema import MIGRATIONS, migrate, settings_table
from tapisvert.server.storage.social import MessageRow, Relations, SocialStore
from tapisvert.server.storage.tables import TableStore
from tapisvert.server.storage.tournaments import TournamentStore
from tapisvert.server.storage.writer import Committed, Writer

__all__ = [
    "ERASED_NAME",
    "MIGRATIONS",
    "ExportChoices",
    "FinishedGame",
    "GameCounts",
    "LoggedAction",
    "MessageRow",
    "PlayedGame",
    "RatingPoint",
    "RatingRow",
    "Relations",
    "SeatResult",
    "SqlStorage",
    "Storage",
    "TableRow",
    "UserRow",
    "default_database_url",
    "open_storage",
]


class Storage(Protocol):
    """What the server needs from a database; every call is safe from the event loop."""

    accounts: AccountStore
    sessions: SessionStore
    tables: TableStore
    ratings: RatingStore
    reviews: ReviewStore
    leases: LeaseStore
    account_life: AccountLifeStore
    moderation: ModerationStore
    reports: ReportStore
    social: SocialStore
    tournaments: TournamentStore
    exports: ExportStore

    async def start(self) -> None: ...
    async def close(self) -> None: ...
    async def secret(self) -> str:
        """The server's own secret (its tokens' signing key), made the first time."""

    async def ping(self) -> None:
        """Once the database answered a statement through the writer (see ``health``)."""

    def observe_commits(self, committed: Committed) -> None:
        """Tell ``committed`` of each transaction, from the writer's thread."""


class SqlStorage:
    """The SQLAlchemy adapter; the URL's dialect picks SQLite or PostgreSQL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._writer = Writer(self.engine)
        sqlite = self.engine.dialect.name == "sqlite"
        self._checkpointer = Checkpointer(self.engine) if sqlite else None
        self.accounts = AccountStore(self._writer)
        self.sessions = SessionStore(self._writer)
        self.tables = TableStore(self._writer)
        self.ratings = RatingStore(self._writer)
        self.reviews = ReviewStore(self._writer)
        self.leases = LeaseStore(self._writer)
        self.account_life = AccountLifeStore(self._writer)
        self.moderation = ModerationStore(self._writer)
        self.reports = ReportStore(self._writer)
        self.social = SocialStore(self._writer)
        self.tournaments = TournamentStore(self._writer)
        self.exports = ExportStore(self._writer)

    async def start(self) -> None:
        self._writer.start()
        await self._writer.run(migrate)
        if self._checkpointer is not None:
            self._checkpointer.start()

    async def close(self) -> None:
        await self._writer.close()
        if self._checkpointer is not None:
            await asyncio.to_thread(self._checkpointer.stop)
        self.engine.dispose()

    async def secret(self) -> str:
        return await self._writer.run(_secret)

    async def ping(self) -> None:
        await self._writer.run(lambda connection: connection.exec_driver_sql("SELECT 1"), True)

    def observe_commits(self, committed: Committed) -> None:
        self._writer.committed = committed


def _secret(connection: Connection) -> str:
    query = select(settings_table.c.value).where(settings_table.c.name == "secret")
    value = connection.execute(query).scalar()
    if value is None:
        value = os.urandom(32).hex()
        connection.execute(insert(settings_table).values(name="secret", value=value))
    return str(value)


def open_storage(url: str) -> Storage:
    return SqlStorage(url)
