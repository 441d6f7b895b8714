"""The server's garbage collections (``tapisvert.server.collector``)."""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref

import pytest

from tapisvert.server.collector import Collector

from server_support import until


class Node:
    """Something that can be part of a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_cycles_wait_for_a_full_collection_which_comes_on_time_or_when_the_heap_doubles() -> None:
    """Meanwhile the interpreter collects nothing by itself, and afterwards it does again."""

    async def run(collector: Collector, grow: int) -> None:
        running = asyncio.create_task(collector.run())
        await until(lambda: not gc.isenabled())
        dropped = cycle()
        await asyncio.sleep(0.3)  # the time of many checks
        assert dropped() is not None, "collected before its time"
        kept = [Node() for _ in range(grow)]  # the heap grows
        await until(lambda: dropped() is None, seconds=3.0)
        del kept
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    # on time, the heap unchanged
    asyncio.run(run(Collector(check_period=0.01, full_period=1.0), grow=0))
    # the heap doubled, long before its time
    asyncio.run(run(Collector(check_period=0.01, full_period=600), grow=2 * len(gc.get_objects())))
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_slow_collection_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def held() -> list[str]:
        return [r.getMessage() for r in caplog.records if "garbage collection" in r.getMessage()]

    async def run() -> None:
        running = asyncio.create_task(Collector(check_period=0.01, slow_ms=0.0).run())
        await until(lambda: bool(held()))
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    with caplog.at_level(logging.WARNING, logger="tapisvert.server"):
        asyncio.run(run())
    assert "(generation 2) held the server for" in held()[0]
