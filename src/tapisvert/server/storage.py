"""The storage port and its SQL adapter (SQLite embedded by default, PostgreSQL by URL).

Every accepted action is appended to a log before anyone hears of it. Writes are
committed in groups: whatever has queued up goes in a single transaction, so the
latency of a move is one commit, and the cost of a commit is shared by every table
that moved meanwhile. Every statement runs in a writer thread, never on the event loop:
a database held locked by another process, or a slow disk, delays the moves that wait
for it, not the pings and frames of everyone else.

A statement that fails raises :class:`StorageError` (the server's ``storage`` refusal),
whatever the driver said: the caller undoes what it meant to store and says so.

SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit is in the operating
system's hands when it returns, so a killed server loses nothing it acknowledged
(a power cut may lose the last commits; ``TAPISVERT_SQLITE_SYNC=FULL`` closes that).
The log is copied into the database file by a thread of its own (a checkpoint), never
inside a commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    bindparam,
    cast,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    select,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from tapisvert.server.auth import TOKEN_MAX_AGE
from tapisvert.server.errors import StorageError, TableMoved
from tapisvert.server.ratings import Skill, Standing, places, rate

metadata = MetaData()

settings_table = Table(
    "settings",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
users_table = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(32), nullable=False, unique=True),
    Column("name_key", String(64), nullable=True, index=True),
    Column("password_hash", String(200), nullable=True),
    Column("guest", Boolean, nullable=False),
    Column("bot", Boolean, nullable=False, server_default=false()),
)
sessions_table = Table(
    "sessions",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("opened_at", Float, nullable=False),
)
reviews_table = Table(
    "reviews",
    metadata,
    Column("table_id", Integer, ForeignKey("game_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("review", Text, nullable=False),
    Column("made_at", Float, nullable=False),
)
tables_table = Table(
    "game_tables",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(32), nullable=False),
    Column("game", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("options", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("clock", Float, nullable=True),
    Column("status", String(16), nullable=False, index=True),
    Column("seats", Text, nullable=False),
    Column("result", Text, nullable=True),
    Column("rated", Boolean, nullable=False, server_default=true()),
    Column("finished_at", Float, nullable=True),
)
actions_table = Table(
    "actions",
    metadata,
    Column("table_id", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("actor", Integer, nullable=False),
    Column("action", BigInteger, nullable=False),
    Column("stand_in", Boolean, nullable=False, server_default=false()),
)
leases_table = Table(
    "table_leases",
    metadata,
    Column("table_id", Integer, ForeignKey("game_tables.id"), primary_key=True),
    Column("node", String(64), nullable=False, index=True),
    Column("fence", BigInteger, nullable=False),
    Column("expires_at", Float, nullable=False),
)
"""Which node serves a table that is open or being played, until when (the database's
clock, in seconds since 1970), and the fencing token of that node's tenure: it grows each
time the table changes hands, and a write carrying an older one is refused."""
ratings_table = Table(
    "ratings",
    metadata,
    Column("user_id", Integer, primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
)
results_table = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("user_id", Integer, nullable=True, index=True),
    Column("game", String(32), nullable=False),
    Column("place", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("absent", Boolean, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("mu_before", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("mu_after", Float, nullable=True),
    Column("sigma_after", Float, nullable=True),
    Column("finished_at", Float, nullable=False),
    UniqueConstraint("table_id", "seat", name="uq_results_table_seat"),
)

_ACTION_COLUMNS = tuple(column.name for column in actions_table.columns)
APPEND_CHUNK = 200
"""Log rows per INSERT: one statement is one step of the driver, below any parameter limit."""

MIGRATIONS = Path(__file__).with_name("migrations")
_log = logging.getLogger(__name__)


@dataclass
class UserRow:
    id: int
    name: str
    password_hash: str | None
    guest: bool


@dataclass
class TableRow:
    """A table as stored: the seats and options as JSON-ready values."""

    room: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    clock: float | None
    status: str
    seats: list[dict[str, Any]]
    result: list[float] | None = None
    id: int = 0
    rated: bool = True
    finished_at: float | None = None


@dataclass(frozen=True)
class LoggedAction:
    seq: int
    actor: int
    action: int
    stand_in: bool = False
    """Played by a bot for the seat's absent person."""


@dataclass(frozen=True)
class SeatResult:
    """A seat's end of a game, and the rating it changed (``None`` when unrated)."""

    seat: int
    account: int | None
    place: int
    score: float
    won: bool
    absent: bool
    before: Skill | None
    after: Skill | None


@dataclass(frozen=True)
class RatingRow:
    """An account's rating in one game."""

    name: str
    game: str
    skill: Skill
    games: int
    wins: int
    bot: bool


@dataclass(frozen=True)
class PlayedGame:
    """A finished game as one account's history shows it."""

    table: int
    game: str
    finished_at: float
    seats: list[str]
    result: SeatResult


@dataclass(frozen=True)
class GameCounts:
    game: str
    played: int
    won: int


class Storage(Protocol):
    """What the server needs from a database; every call is safe from the event loop."""

    async def start(self) -> None: ...
    async def close(self) -> None: ...
    async def secret(self) -> str: ...
    async def create_user(
        self, name: str, key: str, password_hash: str | None, guest: bool
    ) -> int | None:
        """The new user's id, or ``None`` when a name with this ``key`` is taken."""

    async def user(self, user_id: int) -> UserRow | None: ...
    async def user_by_name(self, name: str) -> UserRow | None: ...
    async def open_session(self, session: str, user_id: int) -> None: ...
    async def session_user(self, session: str) -> int | None: ...
    async def close_session(self, user_id: int, session: str) -> None: ...
    async def set_password(self, user_id: int, password_hash: str, keep: str) -> None:
        """Change the password and close every session of ``user_id`` but ``keep``, in one
        transaction."""

    async def review(self, table_id: int, seat: int) -> str | None: ...
    async def save_review(self, table_id: int, seat: int, review: str) -> None: ...
    async def create_table(self, row: TableRow, node: str | None = None, seconds: float = 0) -> int:
        """The new table's id; with ``node``, its lease for ``seconds`` (fencing token 1)."""

    async def save_table(self, row: TableRow, fence: int | None = None) -> None: ...
    async def tables(
        self, statuses: Sequence[str], latest: int | None = None, room: str | None = None
    ) -> list[TableRow]:
        """Tables in these states (in ``room`` when given), oldest first; only the
        ``latest`` ones when given."""

    async def seated(self, user_id: int, statuses: Sequence[str]) -> list[TableRow]:
        """Tables in these states where the user sits, oldest first."""

    async def table(self, table_id: int) -> TableRow | None: ...
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
        With ``fence``, nothing is stored unless the table's lease still carries that
        fencing token: :class:`TableMoved` says another node holds it now. The same goes
        for ``save_table`` and ``finish``.
        """

    async def actions(self, table_id: int) -> list[LoggedAction]: ...
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

    async def take_leases(
        self, node: str, seconds: float, tables: Sequence[int] | None = None, force: bool = False
    ) -> dict[int, int]:
        """Make ``node`` the server of these tables (``None``: of every open or playing
        table) for ``seconds``, where no other node's lease runs (``force``: even there);
        the tables taken, each with its new fencing token."""

    async def renew_leases(self, node: str, seconds: float) -> set[int]:
        """Extend every lease of ``node``; the tables it still serves."""

    async def release_lease(self, node: str, table_id: int) -> None:
        """``node`` no longer serves the table (it is closed, or finished long enough)."""

    async def lease_holder(self, table_id: int) -> str | None:
        """The node whose lease of the table runs now, if one does."""

    async def results(self, table_id: int) -> list[SeatResult]: ...
    async def bot_accounts(self, levels: Sequence[str]) -> dict[str, int]:
        """The account of each bot level (``bot easy``…), made the first time it is asked."""

    async def leaderboard(self, game: str, minimum: int, limit: int) -> list[RatingRow]:
        """The best ratings of a game among accounts with ``minimum`` rated games or more."""

    async def ratings(self, user_id: int) -> list[RatingRow]: ...
    async def game_counts(self, user_id: int) -> list[GameCounts]: ...
    async def history(self, user_id: int, limit: int) -> list[PlayedGame]:
        """The account's latest finished games, latest first."""


T = TypeVar("T")


@dataclass
class _Job:
    work: Callable[[Connection], Any] | None
    """What to run in the transaction; ``None`` for a log append, which only adds ``rows``."""
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    groupable: bool
    rows: list[tuple[int, int, int, int, bool]] = field(default_factory=list)
    """Log entries to append: (table id, seq, actor, action, stand-in)."""
    fence: tuple[int, int] | None = None
    """(table id, fencing token) that the table's lease must carry for the job to commit."""
    result: Any = None
    error: BaseException | None = None


class SqlStorage:
    """The SQLAlchemy adapter; the URL's dialect picks SQLite or PostgreSQL.

    Every statement runs in one writer thread, in groups: what queued up while the last
    commit ran is committed in one transaction, so the busier the server, the more moves
    a commit carries. The event loop only queues work and is woken once per group.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine = _make_engine(url)
        sqlite = self.engine.dialect.name == "sqlite"
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        """Jobs for the writer thread."""
        self._writer: threading.Thread | None = None
        self._connection: Connection | None = None
        # Appends are the hot path: one multi-row INSERT per commit, written for the driver.
        marker = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        self._marker = marker
        self._append_head = f"INSERT INTO actions ({', '.join(_ACTION_COLUMNS)}) VALUES "
        self._append_row = f"({', '.join([marker] * len(_ACTION_COLUMNS))})"
        self._checkpointer = _Checkpointer(self.engine) if sqlite else None

    async def start(self) -> None:
        self._writer = threading.Thread(target=self._write_loop, name="storage", daemon=True)
        self._writer.start()
        await self._run(_migrate)
        if self._checkpointer is not None:
            self._checkpointer.start()

    async def close(self) -> None:
        if self._writer is not None:
            self._jobs.put(None)
            await asyncio.to_thread(self._writer.join)
            self._writer = None
        if self._checkpointer is not None:
            await asyncio.to_thread(self._checkpointer.stop)
        self.engine.dispose()

    async def _run(
        self,
        work: Callable[[Connection], T] | None,
        groupable: bool = False,
        rows: list[tuple[int, int, int, int, bool]] | None = None,
        fence: tuple[int, int] | None = None,
    ) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put(_Job(work, future, loop, groupable, rows or [], fence))
        return await future

    def _write_loop(self) -> None:
        try:
            while True:
                jobs = [self._jobs.get()]
                with contextlib.suppress(queue.Empty):
                    while jobs[-1] is not None:
                        jobs.append(self._jobs.get_nowait())
                closing = jobs[-1] is None
                for batch in _batches([job for job in jobs if job is not None]):
                    self._commit(batch)
                    for loop, settled in itertools.groupby(batch, key=lambda job: job.loop):
                        # one wake-up of each event loop per batch; a loop already closed
                        # has nobody left waiting
                        with contextlib.suppress(RuntimeError):
                            loop.call_soon_threadsafe(_settle, list(settled))
                if closing:
                    return
        finally:
            if self._connection is not None:
                self._connection.close()

    def _writing_connection(self) -> Connection:
        """The connection every write goes through, kept open from one commit to the next."""
        if self._connection is None or self._connection.invalidated:
            if self._connection is not None:
                self._connection.close()
            self._connection = None
            self._connection = self.engine.connect()
        return self._connection

    def _commit(self, batch: list[_Job]) -> None:
        """Run the batch in one transaction; each job gets its result or its error."""
        try:
            connection = self._writing_connection()
            with connection.begin():
                fences = dict(job.fence for job in batch if job.fence is not None)
                if fences:
                    self._check_fences(connection, fences)
                rows = [row for job in batch for row in job.rows]
                for start in range(0, len(rows), APPEND_CHUNK):
                    chunk = rows[start : start + APPEND_CHUNK]
                    statement = self._append_head + ", ".join([self._append_row] * len(chunk))
                    connection.exec_driver_sql(statement, tuple(v for row in chunk for v in row))
                for job in batch:
                    if job.work is not None:
                        job.result = job.work(connection)
        except Exception as error:  # a failed group: retry alone so only the culprit fails
            if len(batch) > 1:
                for job in batch:
                    self._commit([job])
                return
            batch[0].error = error

    def _check_fences(self, connection: Connection, fences: dict[int, int]) -> None:
        """Raise :class:`_Fenced` if a table's lease carries another token than the job's.

        On PostgreSQL the leases read stay locked until the commit: a node taking a table
        over waits for it, and then reads a log that has these moves.
        """
        marks = ", ".join([self._marker] * len(fences))
        lock = " FOR SHARE" if self.engine.dialect.name == "postgresql" else ""
        rows = connection.exec_driver_sql(
            f"SELECT table_id, fence FROM table_leases WHERE table_id IN ({marks}){lock}",
            tuple(fences),
        )
        held = {int(table_id): int(fence) for table_id, fence in rows}
        for table_id, fence in fences.items():
            if held.get(table_id) != fence:
                raise _Fenced(table_id)

    async def secret(self) -> str:
        return await self._run(_secret)

    async def create_user(
        self, name: str, key: str, password_hash: str | None, guest: bool
    ) -> int | None:
        # one writer: nothing comes between the look and the insert
        def work(connection: Connection) -> int | None:
            taken = select(users_table.c.id).where(
                (users_table.c.name_key == key) | (users_table.c.name == name)
            )
            if connection.execute(taken.limit(1)).first() is not None:
                return None
            result = connection.execute(
                insert(users_table).values(
                    name=name, name_key=key, password_hash=password_hash, guest=guest
                )
            )
            inserted = result.inserted_primary_key
            return None if inserted is None else int(inserted[0])

        return await self._run(work)

    async def user(self, user_id: int) -> UserRow | None:
        return await self._run(lambda c: _one_user(c, users_table.c.id == user_id))

    async def user_by_name(self, name: str) -> UserRow | None:
        return await self._run(lambda c: _one_user(c, users_table.c.name == name))

    async def open_session(self, session: str, user_id: int) -> None:
        now = time.time()

        def work(connection: Connection) -> None:
            expired = sessions_table.c.opened_at < now - TOKEN_MAX_AGE  # their tokens too
            connection.execute(delete(sessions_table).where(expired))
            values = {"id": session, "user_id": user_id, "opened_at": now}
            connection.execute(insert(sessions_table).values(**values))

        await self._run(work)

    async def session_user(self, session: str) -> int | None:
        query = select(sessions_table.c.user_id).where(sessions_table.c.id == session)
        return await self._run(lambda c: c.execute(query).scalar())

    async def close_session(self, user_id: int, session: str) -> None:
        mine = (sessions_table.c.user_id == user_id) & (sessions_table.c.id == session)
        await self._run(lambda c: c.execute(delete(sessions_table).where(mine)))

    async def set_password(self, user_id: int, password_hash: str, keep: str) -> None:
        def work(connection: Connection) -> None:
            changed = update(users_table).where(users_table.c.id == user_id)
            connection.execute(changed.values(password_hash=password_hash))
            others = (sessions_table.c.user_id == user_id) & (sessions_table.c.id != keep)
            connection.execute(delete(sessions_table).where(others))

        await self._run(work)

    async def review(self, table_id: int, seat: int) -> str | None:
        query = select(reviews_table.c.review).where(
            (reviews_table.c.table_id == table_id) & (reviews_table.c.seat == seat)
        )
        return await self._run(lambda c: c.execute(query).scalar())

    async def save_review(self, table_id: int, seat: int, review: str) -> None:
        values = {"table_id": table_id, "seat": seat, "review": review, "made_at": time.time()}
        await self._run(lambda c: c.execute(insert(reviews_table).values(**values)))

    async def create_table(self, row: TableRow, node: str | None = None, seconds: float = 0) -> int:
        values = _table_values(row)  # here: the writer thread reads no live table's state

        def work(connection: Connection) -> int:
            key = connection.execute(_CREATE_TABLE, values).inserted_primary_key
            assert key is not None
            if node is not None:
                until = _database_now(connection) + seconds
                lease = {"table_id": key[0], "node": node, "fence": 1, "expires_at": until}
                connection.execute(_CREATE_LEASE, lease)
            return int(key[0])

        return await self._run(work)

    async def save_table(self, row: TableRow, fence: int | None = None) -> None:
        await self._run(_saving(row), groupable=True, fence=_fence(row.id, fence))

    async def tables(
        self, statuses: Sequence[str], latest: int | None = None, room: str | None = None
    ) -> list[TableRow]:
        query = select(tables_table).where(tables_table.c.status.in_(list(statuses)))
        if room is not None:
            query = query.where(tables_table.c.room == room)
        query = query.order_by(tables_table.c.id.desc()).limit(latest)
        rows = await self._run(lambda c: c.execute(query).all())
        return [_table_row(row._mapping) for row in reversed(rows)]

    async def seated(self, user_id: int, statuses: Sequence[str]) -> list[TableRow]:
        # the database narrows by the seats' text as _table_values writes it ("user_id": 5
        # also finds 51); the rows' seats tell exactly
        written = f'%"user_id": {int(user_id)}%'
        query = (
            select(tables_table)
            .where(tables_table.c.status.in_(list(statuses)), tables_table.c.seats.like(written))
            .order_by(tables_table.c.id)
        )
        rows = [
            _table_row(row._mapping) for row in await self._run(lambda c: c.execute(query).all())
        ]
        return [row for row in rows if any(seat.get("user_id") == user_id for seat in row.seats)]

    async def table(self, table_id: int) -> TableRow | None:
        query = select(tables_table).where(tables_table.c.id == table_id)
        row = await self._run(lambda c: c.execute(query).first())
        return None if row is None else _table_row(row._mapping)

    async def append(
        self,
        table_id: int,
        entries: Sequence[LoggedAction],
        table: TableRow | None = None,
        fence: int | None = None,
    ) -> None:
        if not entries and table is None:
            return
        work = None if table is None else _saving(table)
        rows = _log_rows(table_id, entries)
        await self._run(work, groupable=True, rows=rows, fence=_fence(table_id, fence))

    async def actions(self, table_id: int) -> list[LoggedAction]:
        query = (
            select(
                actions_table.c.seq,
                actions_table.c.actor,
                actions_table.c.action,
                actions_table.c.stand_in,
            )
            .where(actions_table.c.table_id == table_id)
            .order_by(actions_table.c.seq)
        )
        rows = await self._run(lambda c: c.execute(query).all())
        return [
            LoggedAction(seq, actor, action, bool(stand_in))
            for seq, actor, action, stand_in in rows
        ]

    async def finish(
        self,
        table_id: int,
        entries: Sequence[LoggedAction],
        table: TableRow,
        standings: Sequence[Standing],
        fence: int | None = None,
    ) -> list[SeatResult]:
        work = _finishing(table, list(standings))
        result: list[SeatResult] = await self._run(
            work,
            groupable=True,
            rows=_log_rows(table_id, entries),
            fence=_fence(table_id, fence),
        )
        return result

    async def take_leases(
        self, node: str, seconds: float, tables: Sequence[int] | None = None, force: bool = False
    ) -> dict[int, int]:
        asked = None if tables is None else list(tables)  # a copy, made on the event loop

        def work(connection: Connection) -> dict[int, int]:
            now = _database_now(connection)
            candidates = asked if asked is not None else _unserved(connection, now, force)
            taken = {}
            for table_id in candidates:
                fence = _take_lease(connection, table_id, node, now, now + seconds, force)
                if fence is not None:
                    taken[table_id] = fence
            return taken

        return await self._run(work)

    async def renew_leases(self, node: str, seconds: float) -> set[int]:
        def work(connection: Connection) -> set[int]:
            until = _database_now(connection) + seconds
            statement = (
                update(leases_table)
                .where(leases_table.c.node == node)
                .values(expires_at=until)
                .returning(leases_table.c.table_id)
            )
            return set(connection.execute(statement).scalars())

        return await self._run(work, groupable=True)

    async def lease_holder(self, table_id: int) -> str | None:
        def work(connection: Connection) -> str | None:
            query = select(leases_table.c.node).where(
                leases_table.c.table_id == table_id,
                leases_table.c.expires_at >= _database_now(connection),
            )
            node = connection.execute(query).scalar()
            return None if node is None else str(node)

        return await self._run(work)

    async def release_lease(self, node: str, table_id: int) -> None:
        statement = delete(leases_table).where(
            leases_table.c.table_id == table_id, leases_table.c.node == node
        )
        await self._run(lambda connection: connection.execute(statement), groupable=True)

    async def results(self, table_id: int) -> list[SeatResult]:
        query = (
            select(results_table)
            .where(results_table.c.table_id == table_id)
            .order_by(results_table.c.seat)
        )
        rows = await self._run(lambda c: c.execute(query).all())
        return [_seat_result(row._mapping) for row in rows]

    async def bot_accounts(self, levels: Sequence[str]) -> dict[str, int]:
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

        return await self._run(work)

    async def leaderboard(self, game: str, minimum: int, limit: int) -> list[RatingRow]:
        ordinal = ratings_table.c.mu - 3 * ratings_table.c.sigma
        query = (
            _ratings_query()
            .where(ratings_table.c.game == game, ratings_table.c.games >= minimum)
            .order_by(ordinal.desc(), users_table.c.name)
            .limit(limit)
        )
        rows = await self._run(lambda c: c.execute(query).all())
        return [_rating_row(row._mapping) for row in rows]

    async def ratings(self, user_id: int) -> list[RatingRow]:
        query = (
            _ratings_query()
            .where(ratings_table.c.user_id == user_id)
            .order_by(ratings_table.c.game)
        )
        rows = await self._run(lambda c: c.execute(query).all())
        return [_rating_row(row._mapping) for row in rows]

    async def game_counts(self, user_id: int) -> list[GameCounts]:
        won = func.sum(cast(results_table.c.won, Integer))
        query = (
            select(results_table.c.game, func.count(), won)
            .where(results_table.c.user_id == user_id)
            .group_by(results_table.c.game)
            .order_by(results_table.c.game)
        )
        rows = await self._run(lambda c: c.execute(query).all())
        return [GameCounts(game, int(played), int(wins or 0)) for game, played, wins in rows]

    async def history(self, user_id: int, limit: int) -> list[PlayedGame]:
        query = (
            select(results_table, tables_table.c.seats)
            .join(tables_table, tables_table.c.id == results_table.c.table_id)
            .where(results_table.c.user_id == user_id)
            .order_by(results_table.c.id.desc())
            .limit(limit)
        )
        rows = await self._run(lambda c: c.execute(query).all())
        return [
            PlayedGame(
                table=row.table_id,
                game=row.game,
                finished_at=row.finished_at,
                seats=[seat.get("name") or "?" for seat in json.loads(row.seats)],
                result=_seat_result(row._mapping),
            )
            for row in rows
        ]


class _Checkpointer:
    """Copies SQLite's write-ahead log into the database file, beside the writer.

    Left to itself, SQLite checkpoints inside a commit every 1,000 pages, with two fsyncs:
    that commit, and every move waiting for it, would wait tens of milliseconds. A
    passive checkpoint from another connection does not hold up the writer.
    """

    INTERVAL = 0.5

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="checkpoint", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """The last checkpoint empties the log."""
        self._stopping.set()
        self._thread.join()
        self._checkpoint("TRUNCATE")

    def _loop(self) -> None:
        while not self._stopping.wait(self.INTERVAL):
            self._checkpoint("PASSIVE")

    def _checkpoint(self, mode: str) -> None:
        # Busy: the next checkpoint copies what this one could not.
        with contextlib.suppress(OperationalError), self.engine.connect() as connection:
            connection.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")


def _batches(jobs: list[_Job]) -> Iterator[list[_Job]]:
    """Consecutive groupable jobs share a transaction; any other job has one of its own."""
    batch: list[_Job] = []
    for job in jobs:
        if batch and not (job.groupable and batch[-1].groupable):
            yield batch
            batch = []
        batch.append(job)
    if batch:
        yield batch


def _settle(jobs: list[_Job]) -> None:
    for job in jobs:
        if job.future.done():
            continue
        if isinstance(job.error, _Fenced):  # the table's node says so, and lets it go
            job.future.set_exception(TableMoved(job.error.table_id))
        elif job.error is not None:
            _log.warning("the database refused a write: %s", job.error)
            refusal = StorageError()
            refusal.__cause__ = job.error
            job.future.set_exception(refusal)
        else:
            job.future.set_result(job.result)


class _Fenced(Exception):
    """A write for a table whose lease another node holds now."""

    def __init__(self, table_id: int) -> None:
        super().__init__(f"table {table_id} is fenced off")
        self.table_id = table_id


def _fence(table_id: int | None, fence: int | None) -> tuple[int, int] | None:
    return None if table_id is None or fence is None else (table_id, fence)


def _database_now(connection: Connection) -> float:
    """The database's clock, the one every node's leases are measured by."""
    if connection.dialect.name == "postgresql":
        query = "SELECT EXTRACT(EPOCH FROM clock_timestamp())"
    else:
        query = "SELECT (julianday('now') - 2440587.5) * 86400.0"
    return float(connection.exec_driver_sql(query).scalar_one())


def _unserved(connection: Connection, now: float, force: bool) -> list[int]:
    """Open and playing tables that no node serves (``force``: all of them)."""
    query = (
        select(tables_table.c.id)
        .select_from(tables_table.outerjoin(leases_table))
        .where(tables_table.c.status.in_(["open", "playing"]))
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
            _insert_ignoring(connection).values(
                table_id=table_id, node=node, fence=1, expires_at=until
            )
        )
        return 1 if inserted.rowcount == 1 else None
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


_CREATE_TABLE = insert(tables_table)
_CREATE_LEASE = insert(leases_table)
_SAVE_TABLE = update(tables_table).where(tables_table.c.id == bindparam("saved_id"))
"""Statements of a table's life, built once and their values bound at each use: built each
time, with SQLAlchemy's constructs and their cache keys worked out anew, the saves alone took
about a twelfth of the event loop at 250 tables of Luz (py-spy), most of it as games begin."""


def _saving(row: TableRow) -> Callable[[Connection], Any]:
    """The work that saves ``row``, as it is now."""
    values = {"saved_id": row.id, **_table_values(row)}
    return lambda connection: connection.execute(_SAVE_TABLE, values)


def _log_rows(
    table_id: int, entries: Sequence[LoggedAction]
) -> list[tuple[int, int, int, int, bool]]:
    return [(table_id, entry.seq, entry.actor, entry.action, entry.stand_in) for entry in entries]


def _finishing(
    row: TableRow, standings: list[Standing]
) -> Callable[[Connection], list[SeatResult]]:
    """The work that ends a game: its row, each seat's result and the ratings they change.

    The ratings are read inside the transaction: games that end in the same group are rated
    one after the other, each from the ratings the previous one left.
    """
    save = _saving(row)
    ranks = places(
        [standing.score for standing in standings],
        [standing.seat for standing in standings if standing.won],
        [standing.absent for standing in standings],
    )

    def work(connection: Connection) -> list[SeatResult]:
        save(connection)
        accounts = [standing.account for standing in standings if standing.account is not None]
        guests = set(
            connection.execute(
                select(users_table.c.id).where(users_table.c.id.in_(accounts), users_table.c.guest)
            ).scalars()
        )
        rated = [
            standing
            for standing in standings
            if standing.rated and standing.account is not None and standing.account not in guests
        ]
        if len(rated) < 2:  # nobody to be measured against
            rated = []
        known = {
            user_id: (Skill(mu, sigma), games, wins)
            for user_id, mu, sigma, games, wins in connection.execute(
                select(
                    ratings_table.c.user_id,
                    ratings_table.c.mu,
                    ratings_table.c.sigma,
                    ratings_table.c.games,
                    ratings_table.c.wins,
                ).where(
                    ratings_table.c.game == row.game,
                    ratings_table.c.user_id.in_([standing.account for standing in rated]),
                )
            ).all()
        }
        befores = [known.get(standing.account, (Skill(), 0, 0))[0] for standing in rated]
        afters = rate(befores, [ranks[standing.seat] for standing in rated])
        changes: dict[int, tuple[Skill, Skill]] = {}
        for standing, before, after in zip(rated, befores, afters, strict=True):
            assert standing.account is not None
            changes[standing.seat] = (before, after)
            won = int(standing.won and not standing.absent)
            values = {"mu": after.mu, "sigma": after.sigma}
            if standing.account in known:
                _, games, wins = known[standing.account]
                connection.execute(
                    update(ratings_table)
                    .where(
                        ratings_table.c.user_id == standing.account,
                        ratings_table.c.game == row.game,
                    )
                    .values(**values, games=games + 1, wins=wins + won)
                )
            else:
                connection.execute(
                    insert(ratings_table).values(
                        user_id=standing.account, game=row.game, **values, games=1, wins=won
                    )
                )
        results = []
        for standing in standings:
            before_after = changes.get(standing.seat)
            result = SeatResult(
                seat=standing.seat,
                account=standing.account,
                place=ranks[standing.seat],
                score=standing.score,
                won=standing.won and not standing.absent,
                absent=standing.absent,
                before=None if before_after is None else before_after[0],
                after=None if before_after is None else before_after[1],
            )
            results.append(result)
            connection.execute(insert(results_table).values(_result_values(row, result)))
        return results

    return work


def _result_values(row: TableRow, result: SeatResult) -> dict[str, Any]:
    before, after = result.before, result.after
    return {
        "table_id": row.id,
        "seat": result.seat,
        "user_id": result.account,
        "game": row.game,
        "place": result.place,
        "score": result.score,
        "won": result.won,
        "absent": result.absent,
        "rated": after is not None,
        "mu_before": None if before is None else before.mu,
        "sigma_before": None if before is None else before.sigma,
        "mu_after": None if after is None else after.mu,
        "sigma_after": None if after is None else after.sigma,
        "finished_at": row.finished_at or 0.0,
    }


def _seat_result(values: Any) -> SeatResult:
    rated = bool(values["rated"])
    return SeatResult(
        seat=values["seat"],
        account=values["user_id"],
        place=values["place"],
        score=values["score"],
        won=bool(values["won"]),
        absent=bool(values["absent"]),
        before=Skill(values["mu_before"], values["sigma_before"]) if rated else None,
        after=Skill(values["mu_after"], values["sigma_after"]) if rated else None,
    )


def _ratings_query() -> Any:
    return select(
        users_table.c.name,
        users_table.c.bot,
        ratings_table.c.game,
        ratings_table.c.mu,
        ratings_table.c.sigma,
        ratings_table.c.games,
        ratings_table.c.wins,
    ).join(users_table, users_table.c.id == ratings_table.c.user_id)


def _rating_row(values: Any) -> RatingRow:
    return RatingRow(
        name=values["name"],
        game=values["game"],
        skill=Skill(values["mu"], values["sigma"]),
        games=values["games"],
        wins=values["wins"],
        bot=bool(values["bot"]),
    )


def _sqlite_synchronous() -> str:
    synchronous = os.environ.get("TAPISVERT_SQLITE_SYNC", "NORMAL").upper()
    if synchronous not in {"NORMAL", "FULL"}:
        raise ValueError("TAPISVERT_SQLITE_SYNC is NORMAL or FULL")
    return synchronous


def _make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        synchronous = _sqlite_synchronous()

        @event.listens_for(engine, "connect")
        def pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            cursor.execute("PRAGMA wal_autocheckpoint=0")  # see _Checkpointer
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True)


def _migrate(connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _secret(connection: Connection) -> str:
    query = select(settings_table.c.value).where(settings_table.c.name == "secret")
    value = connection.execute(query).scalar()
    if value is None:
        value = os.urandom(32).hex()
        connection.execute(insert(settings_table).values(name="secret", value=value))
    return str(value)


def _one_user(connection: Connection, condition: Any) -> UserRow | None:
    row = connection.execute(select(users_table).where(condition)).first()
    if row is None:
        return None
    return UserRow(row.id, row.name, row.password_hash, bool(row.guest))


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
    }


def _table_row(values: Any) -> TableRow:
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
    )


def default_database_url() -> str:
    """A SQLite file in the user's data folder, or ``TAPISVERT_DATABASE_URL``."""
    from platformdirs import user_data_dir

    configured = os.environ.get("TAPISVERT_DATABASE_URL")
    if configured:
        return configured
    folder = Path(user_data_dir("tapisvert", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'tapisvert.sqlite3'}"


def open_storage(url: str) -> Storage:
    return SqlStorage(url)
