"""The storage port and its SQL adapter (SQLite embedded by default, PostgreSQL by URL).

Every accepted action is appended to a log before anyone hears of it. Appends go
through one writer thread that commits whatever has queued up in a single
transaction (a group commit): the latency of a move is one commit, and the cost
of a commit is shared by every table that moved meanwhile.

SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit is in the operating
system's hands when it returns, so a killed server loses nothing it acknowledged
(a power cut may lose the last commits; ``TAPISVERT_SQLITE_SYNC=FULL`` closes that).
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import threading
from collections.abc import Callable, Sequence
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
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

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
    Column("password_hash", String(200), nullable=True),
    Column("guest", Boolean, nullable=False),
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
)
actions_table = Table(
    "actions",
    metadata,
    Column("table_id", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("actor", Integer, nullable=False),
    Column("action", Integer, nullable=False),
)

MIGRATIONS = Path(__file__).with_name("migrations")


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


@dataclass(frozen=True)
class LoggedAction:
    seq: int
    actor: int
    action: int


class Storage(Protocol):
    """What the server needs from a database; every call is safe from the event loop."""

    async def start(self) -> None: ...
    async def close(self) -> None: ...
    async def secret(self) -> str: ...
    async def create_user(self, name: str, password_hash: str | None, guest: bool) -> int | None:
        """The new user's id, or ``None`` when the name is taken."""

    async def user(self, user_id: int) -> UserRow | None: ...
    async def user_by_name(self, name: str) -> UserRow | None: ...
    async def create_table(self, row: TableRow) -> int: ...
    async def save_table(self, row: TableRow) -> None: ...
    async def tables(self, statuses: Sequence[str], latest: int | None = None) -> list[TableRow]:
        """Tables in these states, oldest first; only the ``latest`` ones when given."""

    async def table(self, table_id: int) -> TableRow | None: ...
    async def append(self, table_id: int, entries: Sequence[LoggedAction]) -> None:
        """Committed when it returns; entries of one table arrive in ``seq`` order."""

    async def actions(self, table_id: int) -> list[LoggedAction]: ...


T = TypeVar("T")


@dataclass
class _Job:
    work: Callable[[Connection], Any] | None
    """What to run in the transaction; ``None`` for a log append, which only adds ``rows``."""
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    groupable: bool
    rows: list[tuple[int, int, int, int]] = field(default_factory=list)
    """Log entries to append: (table id, seq, actor, action)."""
    result: Any = None
    error: BaseException | None = None


class SqlStorage:
    """The SQLAlchemy adapter; the URL's dialect picks SQLite or PostgreSQL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: Engine = _make_engine(url)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        # Appends are the hot path: the driver's own executemany, without per-row compiling.
        self._append_sql = str(insert(actions_table).compile(dialect=self.engine.dialect))
        self._append_positional = self.engine.dialect.positional

    async def start(self) -> None:
        self._writer = threading.Thread(target=self._write_loop, name="storage", daemon=True)
        self._writer.start()
        await self._run(_migrate, groupable=False)

    async def close(self) -> None:
        if self._writer is not None:
            self._jobs.put(None)
            await asyncio.to_thread(self._writer.join)
            self._writer = None
        self.engine.dispose()

    async def _run(
        self,
        work: Callable[[Connection], T] | None,
        groupable: bool = False,
        rows: list[tuple[int, int, int, int]] | None = None,
    ) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put(_Job(work, future, loop, groupable, rows or []))
        return await future

    def _write_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            batch = [job]
            while job.groupable:
                try:
                    following = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if following is None:
                    self._jobs.put(None)
                    break
                batch.append(following)
                job = following
            self._commit(batch)

    def _commit(self, batch: list[_Job]) -> None:
        try:
            with self.engine.begin() as connection:
                rows: list[Any] = [row for job in batch for row in job.rows]
                if rows:  # every append of the group in one statement
                    if not self._append_positional:
                        rows = [dict(zip(_ACTION_COLUMNS, row, strict=True)) for row in rows]
                    connection.exec_driver_sql(self._append_sql, rows)
                for job in batch:
                    if job.work is not None:
                        job.result = job.work(connection)
        except Exception as error:  # a failed group: retry alone so only the culprit fails
            if len(batch) > 1:
                for job in batch:
                    self._commit([job])
                return
            batch[0].error = error
        loops = {job.loop for job in batch}  # one wake-up per event loop, not per job
        for loop in loops:
            loop.call_soon_threadsafe(_settle, [job for job in batch if job.loop is loop])

    async def secret(self) -> str:
        return await self._run(_secret)

    async def create_user(self, name: str, password_hash: str | None, guest: bool) -> int | None:
        def work(connection: Connection) -> int | None:
            try:
                with connection.begin_nested():
                    result = connection.execute(
                        insert(users_table).values(
                            name=name, password_hash=password_hash, guest=guest
                        )
                    )
            except IntegrityError:
                return None
            key = result.inserted_primary_key
            return None if key is None else int(key[0])

        return await self._run(work)

    async def user(self, user_id: int) -> UserRow | None:
        return await self._run(lambda c: _one_user(c, users_table.c.id == user_id))

    async def user_by_name(self, name: str) -> UserRow | None:
        return await self._run(lambda c: _one_user(c, users_table.c.name == name))

    async def create_table(self, row: TableRow) -> int:
        def work(connection: Connection) -> int:
            values = _table_values(row)
            key = connection.execute(insert(tables_table).values(values)).inserted_primary_key
            assert key is not None
            return int(key[0])

        return await self._run(work)

    async def save_table(self, row: TableRow) -> None:
        values = _table_values(row)
        await self._run(
            lambda c: c.execute(
                update(tables_table).where(tables_table.c.id == row.id).values(values)
            ),
            groupable=True,
        )

    async def tables(self, statuses: Sequence[str], latest: int | None = None) -> list[TableRow]:
        query = select(tables_table).where(tables_table.c.status.in_(list(statuses)))
        query = query.order_by(tables_table.c.id.desc()).limit(latest)
        rows = await self._run(lambda c: c.execute(query).all())
        return [_table_row(row._mapping) for row in reversed(rows)]

    async def table(self, table_id: int) -> TableRow | None:
        query = select(tables_table).where(tables_table.c.id == table_id)
        row = await self._run(lambda c: c.execute(query).first())
        return None if row is None else _table_row(row._mapping)

    async def append(self, table_id: int, entries: Sequence[LoggedAction]) -> None:
        if not entries:
            return
        rows = [(table_id, entry.seq, entry.actor, entry.action) for entry in entries]
        await self._run(None, groupable=True, rows=rows)

    async def actions(self, table_id: int) -> list[LoggedAction]:
        query = (
            select(actions_table.c.seq, actions_table.c.actor, actions_table.c.action)
            .where(actions_table.c.table_id == table_id)
            .order_by(actions_table.c.seq)
        )
        rows = await self._run(lambda c: c.execute(query).all())
        return [LoggedAction(seq, actor, action) for seq, actor, action in rows]


def _settle(jobs: list[_Job]) -> None:
    for job in jobs:
        if job.future.done():
            continue
        if job.error is not None:
            job.future.set_exception(job.error)
        else:
            job.future.set_result(job.result)


def _make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})
        synchronous = os.environ.get("TAPISVERT_SQLITE_SYNC", "NORMAL").upper()
        if synchronous not in {"NORMAL", "FULL"}:
            raise ValueError("TAPISVERT_SQLITE_SYNC is NORMAL or FULL")

        @event.listens_for(engine, "connect")
        def pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True)


_ACTION_COLUMNS = tuple(column.name for column in actions_table.columns)


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
