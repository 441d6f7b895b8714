"""The server's garbage collections (``tapisvert.server.collector``)."""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref

import pytest

from tapisvert.server.collector import Collector


class Node:
    """Something that can be part of a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


async def collect_for(collector: Collector, seconds: float) -> None:
    running = asyncio.create_task(collector.run())
    await asyncio.sleep(seconds)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


def test_young_cycles_go_at_once_and_older_ones_at_the_full_collection() -> None:
    """A cycle dropped young goes at the next young collection; one that outlived a young
    collection (set aside) waits for the full one; meanwhile the interpreter collects
    nothing by itself, and afterwards it does again, with nothing left set aside."""

    async def run() -> None:
        collector = Collector(young_period=0.01, full_period=1.5)
        running = asyncio.create_task(collector.run())
        await asyncio.sleep(0.05)
        assert not gc.isenabled()
        young = cycle()
        await asyncio.sleep(0.05)
        assert young() is None, "a young cycle outlived the young collections"
        older = Node()
        older.other = Node()
        older.other.other = older
        await asyncio.sleep(0.05)
        assert gc.get_freeze_count() > 0, "nothing was set aside"
        kept = weakref.ref(older)
        del older
        await asyncio.sleep(0.1)
        assert kept() is not None, "young collections walked what they had set aside"
        await asyncio.sleep(1.6)
        assert kept() is None, "the full collection left a cycle"
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(run())
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_slow_collection_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="tapisvert.server"):
        asyncio.run(collect_for(Collector(young_period=0.01, slow_ms=0.0), 0.05))
    held = [r.getMessage() for r in caplog.records if "garbage collection" in r.getMessage()]
    assert held and "(generation 0) held the server for" in held[0]
