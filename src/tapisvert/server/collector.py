"""When the server collects its cyclic garbage, so that a collection never stalls a move.

CPython collects its youngest generation when allocations minus deallocations pass a
threshold. A table's move frees the previous position as it makes the next, so that count
barely grows while the youngest generation fills with every position made since the last
collection: collections came seconds apart and walked 15,000 to 35,000 objects each
(10–27 ms), and the middle generation, which then holds every table's current position,
25,000 to 30,000 (20–80 ms), all in the middle of moves. Over whole load runs, none of these
collections found any garbage.

Collecting the youngest generation every 50 ms instead, from the event loop, then setting
what survived aside (``gc.freeze``), kept each collection short (a millisecond or two) but
walked every object that lived 50 ms once: mostly what each socket waits with, renewed with
every message. That was 11 to 14% of the server's time under load, and the cycles found came
to some 35 objects a second, idle or busy.

So here the interpreter's collections stay off, and the event loop collects everything every
``full_period``, or sooner once the objects made since the last collection (net of those
freed, as the interpreter counts them) outnumber what it left. A burst of cyclic garbage (a
closed socket leaves a cycle of some 35 objects behind: thousands of sockets closed at once)
is then bounded by the size of the heap, as CPython bounds its own oldest generation (by a
quarter of it); a server growing as tables start is collected at each doubling, each
collection's cost in proportion to what it walks.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable
from typing import Any

_log = logging.getLogger("tapisvert.server")

CHECK_PERIOD = 0.5
"""Seconds between two looks at the count of objects made."""
FULL_PERIOD = 600.0
SLOW_MS = 50.0
"""A collection that holds the server this long is logged."""


class Collector:
    """Runs the server's garbage collections from its event loop (see the module)."""

    def __init__(
        self,
        check_period: float = CHECK_PERIOD,
        full_period: float = FULL_PERIOD,
        slow_ms: float = SLOW_MS,
    ) -> None:
        self.check_period = check_period
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
            left = self._collect()
            full_at = time.monotonic() + self.full_period
            while True:
                await asyncio.sleep(self.check_period)
                if gc.get_count()[0] > left or time.monotonic() >= full_at:
                    left = self._collect()
                    full_at = time.monotonic() + self.full_period
        finally:
            gc.callbacks.remove(self._timed)
            gc.enable()

    @staticmethod
    def _collect() -> int:
        """A full collection; how many objects it left (counted without a list of them)."""
        gc.collect()
        gc.freeze()
        left = gc.get_freeze_count()
        gc.unfreeze()
        return left

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
