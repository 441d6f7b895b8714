"""Replays of finished games: built in a process of their own, kept once built.

A replay holds every seat's view at every step: megabytes of JSON for a long game, and
hundreds of milliseconds of CPU. Built in a thread of the server, it would hold the
interpreter's lock that the event loop needs, and it would fill the conversion caches that
the live tables use with positions nobody plays. So replays are built in one worker process,
started on the first request and stopped once no replay was asked for a while (the memory it
took goes back to the system with it). A finished game never changes: its replay is built
once, compressed, and kept among the recent ones within a bound in bytes; requests for a
replay under way wait for that one build, and builds waiting are bounded, beyond which a
request is refused with a clear answer.
"""

from __future__ import annotations

import asyncio
import gzip
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import orjson

from tapisvert.core.game import CHANCE, State
from tapisvert.core.records import Record, actor_label, parse_record
from tapisvert.server.errors import ServerError
from tapisvert.server.thinking import worker_processes

KEPT_BYTES = 32 * 2**20
"""Compressed replays kept in memory, the most recently asked for first to stay."""
BUILDS_WAITING = 8
"""Replays of different games built or waiting at once; one more is refused as busy."""
IDLE_SECONDS = 60.0
"""The worker stops this long after its last replay."""
COMPRESSION = 5
"""gzip's level: most of what level 9 saves, for a fraction of its time."""

log = logging.getLogger(__name__)


def replay_steps(record: Record) -> list[dict[str, Any]]:
    """Who did what, what a spectator saw then, and what each seat saw: the game is over,
    so every hand may be shown; ``segment`` (the round, the deal) lets a client step by it."""

    def step(actor: str | None, action: str | None, state: State) -> dict[str, Any]:
        return {
            "actor": actor,
            "action": action,
            "segment": state.segment(),
            "view": state.observation(None).to_dict(),
            "seats": [state.observation(seat).to_dict() for seat in range(record.players)],
        }

    steps = [step(None, None, record.new_game().new_initial_state())]
    for played in record.steps():
        if played.actor != CHANCE:
            steps.append(step(actor_label(played.actor), played.text, played.state))
        elif len(steps) == 1:  # the first step shows the deal, before the first move
            steps[0] = step(None, None, played.state)
    return steps


def compressed_replay(record_text: str) -> bytes:
    """In the worker: a record's replay as gzip-compressed JSON."""
    steps = replay_steps(parse_record(record_text))
    return gzip.compress(orjson.dumps(steps), COMPRESSION)


class Replays:
    """The replays of finished games, for every request of the server."""

    def __init__(
        self,
        record: Callable[[int], Awaitable[Record]],
        kept_bytes: int = KEPT_BYTES,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        """``record(table)`` gives a finished game's record, or refuses (not finished)."""
        self._record = record
        self._kept_bytes = kept_bytes
        self._idle_seconds = idle_seconds
        self._kept: OrderedDict[int, bytes] = OrderedDict()
        self._kept_size = 0
        self._building: dict[int, asyncio.Future[bytes]] = {}
        self._pool: ProcessPoolExecutor | None = None
        self._idle: asyncio.TimerHandle | None = None

    async def replay(self, table_id: int) -> bytes:
        """The replay of a finished table, gzip-compressed JSON (see ``replay_steps``)."""
        kept = self._kept.get(table_id)
        if kept is not None:
            self._kept.move_to_end(table_id)
            return kept
        building = self._building.get(table_id)
        if building is None:
            if len(self._building) >= BUILDS_WAITING:
                raise ServerError("replays_busy", status=503)
            building = asyncio.ensure_future(self._build(table_id))
            self._building[table_id] = building
            building.add_done_callback(lambda _: self._built(table_id, building))
        return await asyncio.shield(building)

    def _built(self, table_id: int, building: asyncio.Future[bytes]) -> None:
        """A build ended: it is no longer under way, and its failure, if any, was seen
        (by its waiters, or here when they all left)."""
        self._building.pop(table_id, None)
        if not building.cancelled():
            building.exception()

    @property
    def kept_size(self) -> int:
        """Bytes of compressed replays held."""
        return self._kept_size

    @property
    def running(self) -> bool:
        """Whether the worker process is up."""
        return self._pool is not None

    async def _build(self, table_id: int) -> bytes:
        record = await self._record(table_id)
        loop = asyncio.get_running_loop()
        if self._idle is not None:
            self._idle.cancel()
        pool = self._executor()
        try:
            built = await loop.run_in_executor(pool, compressed_replay, record.to_text())
        except BrokenProcessPool:
            log.error("the replay worker died building table %s; it starts again", table_id)
            if self._pool is pool:
                self._pool = None
            raise ServerError("replay_failed", status=500) from None
        finally:
            if self._idle is not None:
                self._idle.cancel()
            self._idle = loop.call_later(self._idle_seconds, self._stop_idle)
        self._keep(table_id, built)
        return built

    def _keep(self, table_id: int, built: bytes) -> None:
        if len(built) > self._kept_bytes:
            return
        self._kept[table_id] = built
        self._kept_size += len(built)
        while self._kept_size > self._kept_bytes:
            _, oldest = self._kept.popitem(last=False)
            self._kept_size -= len(oldest)

    def _executor(self) -> ProcessPoolExecutor:
        """One process, started on the first replay asked for."""
        if self._pool is None:
            self._pool = worker_processes(1)
        return self._pool

    def _stop_idle(self) -> None:
        self._idle = None
        if not self._building and self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=False)

    async def close(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        for building in self._building.values():
            building.cancel()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)
