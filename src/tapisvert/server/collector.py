"""When the server collects its cyclic garbage, so that a collection never stalls a move.

CPython collects its youngest generation when allocations minus deallocations pass a
threshold. A table's move frees the previous position as it makes the next, so that count
barely grows while the youngest generation fills with every position made since the last
collection: collections came seconds apart and walked 15,000 to 35,000 objects each
(10–27 ms), and the middle generation, which then holds every table's current position,
25,000 to 30,000 (20–80 ms), all in the middle of moves. Over whole load runs, none of these
collections found any garbage.

So here the event loop collects the youngest generation at a steady pace (what the last
``young_period`` made and still holds: a millisecond or two), sets what survives aside
(``gc.freeze``: later collections do not walk it again; it is still freed as soon as nothing
refers to it), and once every ``full_period`` collects everything, which finds any cycle
among what was set aside.

Most of what a young collection walks is short-lived: the coroutines and futures of sockets
waiting for their next frame or message, made again at each one. Collected every 50 ms, they
are walked about once each whatever the load.
While the loop is saturated (its thread busy ``saturated`` of the time since the last
collection), a move's latency is the queue's, not a pause's: collections then come
``saturated_period`` apart and walk only what is still alive by then, several times less,
in longer pauses. Below saturation they come every ``young_period`` again, with the short
pauses that keep a server at half its capacity answering within milliseconds (see the
server's load figures in the benchmarks).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

_log = logging.getLogger("tapisvert.server")

YOUNG_PERIOD = 0.05
SATURATED_PERIOD = 1.0
SATURATED = 0.9
"""The share of its time the event loop's thread is busy, from which it counts as saturated."""
FULL_PERIOD = 600.0
SLOW_MS = 50.0
"""A collection that holds the server this long is logged."""


class Collector:
    """Runs the server's garbage collections from its event loop (see the module)."""

    def __init__(
        self,
        young_period: float = YOUNG_PERIOD,
        full_period: float = FULL_PERIOD,
        slow_ms: float = SLOW_MS,
        saturated_period: float = SATURATED_PERIOD,
        saturated: float = SATURATED,
    ) -> None:
        self.young_period = young_period
        self.full_period = full_period
        self.slow_ms = slow_ms
        self.saturated_period = saturated_period
        self.saturated = saturated
        self.period = young_period
        """The wait before the next young collection: ``saturated_period`` while the loop
        is saturated, else ``young_period``."""
        self.paused: Callable[[int, float], None] | None = None
        """Told of each collection: its generation and the seconds it held the server."""
        self._started = 0.0

    async def run(self) -> None:
        """Collect until cancelled; the interpreter's own collections are off meanwhile."""
        gc.disable()
        gc.callbacks.append(self._timed)
        try:
            full_at = time.monotonic() + self.full_period
            since, busy_since = time.monotonic(), time.thread_time()
            while True:
                await asyncio.sleep(self.period)
                now, busy = time.monotonic(), time.thread_time()
                share = (busy - busy_since) / max(now - since, 1e-6)
                since, busy_since = now, busy
                self.period = (
                    self.saturated_period if share >= self.saturated else self.young_period
                )
                if now >= full_at:
                    gc.unfreeze()
                    gc.collect()
                    full_at = time.monotonic() + self.full_period
                else:
                    gc.collect(0)
                gc.freeze()
        finally:
            gc.callbacks.remove(self._timed)
            gc.unfreeze()
            gc.enable()

    def _timed(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        held = (time.perf_counter() - self._started) * 1000
        if self.paused is not None:
            self.paused(info["generation"], held / 1000)
        if held >= self.slow_ms:
            _log.warning(
                "a garbage collection (generation %d) held the server for %.0f ms",
                info["generation"],
                held,
            )
