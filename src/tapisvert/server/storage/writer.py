"""The writer thread: every statement of the server runs here, committed in groups.

Every accepted action is appended to a log before anyone hears of it. Writes are
committed in groups: whatever has queued up goes in a single transaction, so the
latency of a move is one commit, and the cost of a commit is shared by every table
that moved meanwhile. Every statement runs in this thread, never on the event loop:
a database held locked by another process, or a slow disk, delays the moves that wait
for it, not the pings and frames of everyone else.

A statement that fails raises :class:`StorageError` (the server's ``storage`` refusal),
whatever the driver said: the caller undoes what it meant to store and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect, Engine

from tapisvert.server.errors import StorageError, TableMoved
from tapisvert.server.storage.schema import ACTION_COLUMNS

APPEND_CHUNK = 200
"""Log rows per INSERT: one statement is one step of the driver, below any parameter limit."""

LogRow = tuple[int, int, int, int, bool, float | None]
"""A log entry to append: (table id, seq, actor, action, stand-in, seconds it took)."""
Committed = Callable[[int, float, bool], None]
"""Told of a transaction: the writes it carried, the seconds it took, whether it failed."""

T = TypeVar("T")
_log = logging.getLogger(__name__)


@dataclass
class _Job:
    work: Callable[[Connection], Any] | None
    """What to run in the transaction; ``None`` for a log append, which only adds ``rows``."""
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop
    groupable: bool
    rows: list[LogRow] = field(default_factory=list)
    fence: tuple[int, int] | None = None
    """(table id, fencing token) that the table's lease must carry for the job to commit."""
    result: Any = None
    error: BaseException | None = None


class Writer:
    """One thread, one connection, and the jobs queued for them.

    What queued up while the last commit ran is committed in one transaction, so the
    busier the server, the more moves a commit carries. The event loop only queues work
    and is woken once per group.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._connection: Connection | None = None
        self.committed: Committed = _unheeded
        """Told of each transaction, from the writer's thread (see ``metrics``)."""
        # Appends are the hot path: one multi-row INSERT per commit, written for the driver.
        self._marker = parameter_marker(engine.dialect)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._write_loop, name="storage", daemon=True)
        self._thread.start()

    async def close(self) -> None:
        """Once what is queued is committed."""
        if self._thread is not None:
            self._jobs.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None

    async def run(
        self,
        work: Callable[[Connection], T] | None,
        groupable: bool = False,
        rows: list[LogRow] | None = None,
        fence: tuple[int, int] | None = None,
    ) -> T:
        """``work``'s result once committed; ``groupable`` work may share its transaction
        with other groupable work, ``rows`` are appended to the log before it runs, and
        ``fence`` is what the table's lease must carry (see :func:`fence_of`)."""
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
        started = time.perf_counter()
        try:
            connection = self._writing_connection()
            with connection.begin():
                fences = dict(job.fence for job in batch if job.fence is not None)
                if fences:
                    self._check_fences(connection, fences)
                rows = [row for job in batch for row in job.rows]
                for start in range(0, len(rows), APPEND_CHUNK):
                    chunk = rows[start : start + APPEND_CHUNK]
                    statement = rows_insert("actions", ACTION_COLUMNS, len(chunk), self._marker)
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
            self.committed(1, time.perf_counter() - started, True)
            return
        self.committed(len(batch), time.perf_counter() - started, False)

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


def parameter_marker(dialect: Dialect) -> str:
    """How a statement written for the driver marks a value (SQLite's ``?``, psycopg's ``%s``)."""
    return "?" if dialect.paramstyle == "qmark" else "%s"


def rows_insert(table: str, columns: Sequence[str], rows: int, marker: str) -> str:
    """An INSERT of ``rows`` rows of ``columns`` into ``table`` as one statement, written for
    the driver: one step of it, where an ``executemany`` takes one a row, and each step waits
    for the interpreter's lock, which the event loop holds when it is busy."""
    row = f"({', '.join([marker] * len(columns))})"
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([row] * rows)}"


def fence_of(table_id: int | None, fence: int | None) -> tuple[int, int] | None:
    """What :meth:`Writer.run` checks for a write of ``table_id`` under ``fence`` (if any)."""
    return None if table_id is None or fence is None else (table_id, fence)


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


def _unheeded(writes: int, seconds: float, failed: bool) -> None:
    """Nobody is told of the commits (see ``Writer.committed``)."""


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
