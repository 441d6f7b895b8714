"""The database's engine, by URL: SQLite embedded by default, PostgreSQL otherwise.

SQLite runs in WAL mode with ``synchronous=NORMAL``: a commit is in the operating
system's hands when it returns, so a killed server loses nothing it acknowledged
(a power cut may lose the last commits; ``TAPISVERT_SQLITE_SYNC=FULL`` closes that).
The log is copied into the database file by a thread of its own (a checkpoint), never
inside a commit.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError


def make_engine(url: str) -> Engine:
    """An engine whose errors leave out the values of their statements: a refused write
    is logged, and its values may be a password's hash, a session's or a signing key."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False}, hide_parameters=True)
        synchronous = _sqlite_synchronous()

        @event.listens_for(engine, "connect")
        def pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={synchronous}")
            cursor.execute("PRAGMA wal_autocheckpoint=0")  # see Checkpointer
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True, hide_parameters=True)


def _sqlite_synchronous() -> str:
    synchronous = os.environ.get("TAPISVERT_SQLITE_SYNC", "NORMAL").upper()
    if synchronous not in {"NORMAL", "FULL"}:
        raise ValueError("TAPISVERT_SQLITE_SYNC is NORMAL or FULL")
    return synchronous


class Checkpointer:
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


def default_database_url() -> str:
    """A SQLite file in the user's data folder, or ``TAPISVERT_DATABASE_URL``."""
    from platformdirs import user_data_dir

    configured = os.environ.get("TAPISVERT_DATABASE_URL")
    if configured:
        return configured
    folder = Path(user_data_dir("tapisvert", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'tapisvert.sqlite3'}"
