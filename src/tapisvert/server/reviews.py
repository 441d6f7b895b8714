"""Reviews of finished games for the browser: computed in a worker process, kept in the database.

A review weighs every decision of one seat with the search (``tapisvert.review``): tens of
seconds of CPU for a long game. It runs in a process of its own, never on the event loop nor
in a thread that would hold the interpreter's lock; the first request starts it, the next
ones hear that it is under way, and once done it is stored, so that it is computed once per
table and seat, whoever asks.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import os
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tapisvert.core.records import Record
from tapisvert.review import review_as_json
from tapisvert.server.errors import ServerError
from tapisvert.server.storage import Storage
from tapisvert.server.thinking import follow_the_server

REVIEW_SAMPLES = 40
"""Worlds drawn at each decision: the command line's default."""
REVIEW_SEED = 0
"""One seed for every review: the same game and seat give the same review."""

log = logging.getLogger(__name__)


class Reviews:
    def __init__(self, storage: Storage, record: Callable[[int], Awaitable[Record]]) -> None:
        """``record(table)`` gives a finished game's record, or refuses (not finished)."""
        self._storage = storage
        self._record = record
        self._pool: ProcessPoolExecutor | None = None
        self._under_way: dict[tuple[int, int], asyncio.Task[None]] = {}

    async def review(self, table_id: int, seat: int) -> dict[str, Any] | None:
        """The review of ``seat`` at the finished table, or ``None`` while it is computed
        (the first request starts it). A review that failed is refused once, with its
        reason in the log, and computed again on the next request."""
        stored = await self._storage.review(table_id, seat)
        if stored is not None:
            return dict(json.loads(stored))
        key = (table_id, seat)
        task = self._under_way.get(key)
        if task is None:
            record = await self._record(table_id)
            if not 0 <= seat < record.players:
                raise ServerError("no_such_seat", seat=seat + 1, seats=record.players)
            task = asyncio.get_running_loop().create_task(self._compute(key, record))
            self._under_way[key] = task
        elif task.done():
            del self._under_way[key]
            if task.exception() is not None:
                raise ServerError("review_failed", status=500)
            return await self.review(table_id, seat)
        return None

    async def _compute(self, key: tuple[int, int], record: Record) -> None:
        table_id, seat = key
        loop = asyncio.get_running_loop()
        try:
            review = await loop.run_in_executor(
                self._executor(),
                review_as_json,
                record.to_text(),
                seat,
                REVIEW_SAMPLES,
                REVIEW_SEED,
            )
            await self._storage.save_review(table_id, seat, json.dumps(review))
            del self._under_way[key]
        except Exception:
            log.exception("the review of table %s, seat %s, failed", table_id, seat + 1)
            raise

    def _executor(self) -> ProcessPoolExecutor:
        """One process, started on the first review; spawned, as the bots' workers are."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=follow_the_server,
                initargs=(os.getpid(),),
            )
        return self._pool

    async def close(self) -> None:
        for task in self._under_way.values():
            task.cancel()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
