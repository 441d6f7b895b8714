"""Reviews of finished games for the browser: computed in a worker process, kept in the database.

A review weighs every decision of one seat with the search (``tapisvert.review``): tens of
seconds of CPU for a long game. It runs in a process of its own, never on the event loop nor
in a thread that would hold the interpreter's lock; the first request starts it, the next
ones hear that it is under way, and once done it is stored, so that it is computed once per
table and seat, whoever asks.

Since each costs so much, and finished games can be made in seconds (bots finish a table
its people left), who may start one is bounded: signed-in people, each with one review
under way at a time; the people who played a game review any seat of it, others need an
account and a few a day; an address starts a few an hour; and reviews waiting are bounded,
beyond which a request is refused until the worker catches up.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from tapisvert.core.records import Record
from tapisvert.review import review_as_json
from tapisvert.server.errors import ServerError
from tapisvert.server.quotas import Quotas
from tapisvert.server.storage.reviews import ReviewStore
from tapisvert.server.thinking import worker_processes

REVIEW_SAMPLES = 40
"""Worlds drawn at each decision: the command line's default."""
REVIEW_SEED = 0
"""One seed for every review: the same game and seat give the same review."""
REVIEWS_WAITING = 4
"""Reviews computed or waiting at once, for everyone; one more is refused as busy."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Asker:
    """Who asks for a review, as far as the bounds on reviews care."""

    user_id: int
    guest: bool
    address: str


class Reviews:
    def __init__(
        self,
        store: ReviewStore,
        record: Callable[[int], Awaitable[Record]],
        players: Callable[[int], Awaitable[set[int]]],
        quotas: Quotas,
    ) -> None:
        """``record(table)`` gives a finished game's record, or refuses (not finished);
        ``players(table)``, the accounts that sat at it."""
        self._store = store
        self._record = record
        self._players = players
        self._quotas = quotas
        self._pool: ProcessPoolExecutor | None = None
        self._under_way: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._asked_by: dict[int, tuple[int, int]] = {}
        """The review each person started and is still under way."""

    async def review(self, table_id: int, seat: int, asker: Asker) -> dict[str, Any] | None:
        """The review of ``seat`` at the finished table, or ``None`` while it is computed
        (the first request starts it, within the bounds above). A review that failed is
        refused once, with its reason in the log, and computed again on the next request."""
        stored = await self._store.load(table_id, seat)
        if stored is not None:
            return dict(json.loads(stored))
        key = (table_id, seat)
        task = self._under_way.get(key)
        if task is None:
            record = await self._record(table_id)
            if not 0 <= seat < record.players:
                raise ServerError("no_such_seat", seat=seat + 1, seats=record.players)
            players = await self._players(table_id)
            task = self._under_way.get(key)  # asked for again while this request waited
            if task is None:  # from here to the task's start, nothing is awaited
                self._may_start(asker, asker.user_id in players)
                task = asyncio.get_running_loop().create_task(self._compute(key, record))
                self._under_way[key] = task
                self._asked_by[asker.user_id] = key
                task.add_done_callback(lambda _: self._forget_asker(asker.user_id, key))
                return None
        if task.done():
            if self._under_way.get(key) is task:
                del self._under_way[key]
            if task.exception() is not None:
                raise ServerError("review_failed", status=500)
            return await self.review(table_id, seat, asker)
        return None

    def _may_start(self, asker: Asker, played: bool) -> None:
        """Refuse a review beyond what this person, this address and the worker may take."""
        mine = self._asked_by.get(asker.user_id)
        if mine is not None:
            raise ServerError("review_under_way", status=429, table=mine[0], seat=mine[1] + 1)
        if sum(not task.done() for task in self._under_way.values()) >= REVIEWS_WAITING:
            raise ServerError("reviews_busy", status=503)
        if not played and asker.guest:
            raise ServerError("review_not_yours", status=403)
        self._quotas.take("reviews", asker.address)
        if not played:
            self._quotas.take("reviews_of_others", asker.user_id)

    def _forget_asker(self, user_id: int, key: tuple[int, int]) -> None:
        if self._asked_by.get(user_id) == key:
            del self._asked_by[user_id]

    async def _compute(self, key: tuple[int, int], record: Record) -> None:
        table_id, seat = key
        loop = asyncio.get_running_loop()
        pool = self._executor()
        try:
            review = await loop.run_in_executor(
                pool,
                review_as_json,
                record.to_text(),
                seat,
                REVIEW_SAMPLES,
                REVIEW_SEED,
            )
            await self._store.save(table_id, seat, json.dumps(review))
            if self._under_way.get(key) is asyncio.current_task():
                del self._under_way[key]
        except BrokenProcessPool:
            log.error("the review worker died reviewing table %s; it starts again", table_id)
            if self._pool is pool:
                self._pool = None
            raise
        except Exception:
            log.exception("the review of table %s, seat %s, failed", table_id, seat + 1)
            raise

    def _executor(self) -> ProcessPoolExecutor:
        """One process, started on the first review; spawned, as the bots' workers are."""
        if self._pool is None:
            self._pool = worker_processes(1)
        return self._pool

    async def close(self) -> None:
        for task in self._under_way.values():
            task.cancel()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
