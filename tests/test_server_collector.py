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


def test_young_cycles_go_at_once_and_older_ones_at_the_full_collection() -> None:
    """A cycle dropped young goes at the next young collection; one that outlived a young
    collection (set aside) waits for the full one; meanwhile the interpreter collects
    nothing by itself, and afterwards it does again, with nothing left set aside."""

    async def run() -> None:
        collector = Collector(young_period=0.01, full_period=1.5)
        running = asyncio.create_task(collector.run())
        await until(lambda: not gc.isenabled())
        young = cycle()
        # sooner than the full collection: a young one took it
        await until(lambda: young() is None, seconds=1.0)
        older = Node()
        older.other = Node()
        older.other.other = older
        kept = weakref.ref(older)
        # set aside: the collections' generations no longer hold it
        await until(lambda: all(held is not kept() for held in gc.get_objects()), seconds=1.0)
        del older
        await asyncio.sleep(0.1)  # the time of ten young collections: what is tested
        assert kept() is not None, "young collections walked what they had set aside"
        await until(lambda: kept() is None, seconds=5.0)  # the full collection
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    asyncio.run(run())
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_slow_collection_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def held() -> list[str]:
        return [r.getMessage() for r in caplog.records if "garbage collection" in r.getMessage()]

    async def run() -> None:
        running = asyncio.create_task(Collector(young_period=0.01, slow_ms=0.0).run())
        await until(lambda: bool(held()))
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running

    with caplog.at_level(logging.WARNING, logger="tapisvert.server"):
        asyncio.run(run())
    assert "(generation 0) held the server for" in held()[0]
