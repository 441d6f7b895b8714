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
    ) -> None:
        self.young_period = young_period
        self.full_period = full_period
        self.slow_ms = slow_ms
        self.paused: Callable[[int, float], None] | None = None
        """Told of each collection: its generation and the seconds it held the server."""
        self._started = 0.0

    async def run(self) -> None:
        """Collect until cancelled; the interpreter's own collections are off meanwhile."""
        gc.disable()
        gc.callbacks.append(self._timed)
        try:
            full_at = time.monotonic() + self.full_period
            while True:
                await asyncio.sleep(self.young_period)
                if time.monotonic() >= full_at:
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
