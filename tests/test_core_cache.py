"""The conversion caches are shared by every thread of a process: the event loop's tables and
the threads that hash passwords, compress answers or rebuild old games."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tapisvert.core.cache import IdentityCache, itemwise


@contextmanager
def switching_often() -> Iterator[None]:
    """Threads switch every microsecond, so that races show up in a short run."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def hammer(convert: IdentityCache[tuple[int, ...], str], threads: int, rounds: int) -> list[str]:
    """Each thread converts tuples of its own, new and old, and checks each answer."""
    wrong: list[str] = []

    def work(first: int) -> None:
        kept = [(first, index) for index in range(8)]
        try:
            for round_ in range(rounds):
                value = kept[round_ % 8] if round_ % 3 else (first, round_, 0)
                if convert(value) != repr(value):
                    wrong.append(f"{value!r} converted as another value")
        except Exception as error:
            wrong.append(repr(error))

    workers = [threading.Thread(target=work, args=(first,)) for first in range(threads)]
    with switching_often():
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    return wrong


def test_a_cache_gives_each_thread_the_conversion_of_its_own_value() -> None:
    assert hammer(IdentityCache(repr, size=4), threads=4, rounds=20_000) == []


def test_an_itemwise_cache_is_safe_across_threads_too() -> None:
    convert = itemwise(lambda item: item * 2, size=4)
    wrong: list[str] = []

    def work(first: int) -> None:
        try:
            for round_ in range(10_000):
                items = tuple(range(first, first + round_ % 5))
                if convert(items) != tuple(item * 2 for item in items):
                    wrong.append(f"{items!r} converted wrong")
        except Exception as error:
            wrong.append(repr(error))

    workers = [threading.Thread(target=work, args=(first,)) for first in range(4)]
    with switching_often():
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    assert wrong == []


def test_a_cache_converts_a_value_once_while_it_is_recent() -> None:
    calls: list[tuple[int, ...]] = []

    def convert(value: tuple[int, ...]) -> str:
        calls.append(value)
        return repr(value)

    cache = IdentityCache(convert, size=2)
    first, second, third = (1,), (2,), (3,)
    for value in (first, second, first, second):
        cache(value)
    assert calls == [first, second]
    cache(third)  # the first converted leaves
    cache(first)
    assert calls == [first, second, third, first]


def test_a_cache_keeps_the_latest_values_through_many_evictions() -> None:
    calls: list[tuple[int, ...]] = []

    def convert(value: tuple[int, ...]) -> str:
        calls.append(value)
        return repr(value)

    cache = IdentityCache(convert, size=3)
    values = [(number,) for number in range(1000)]
    for value in values:
        cache(value)
    calls.clear()
    for value in values[-3:]:
        assert cache(value) == repr(value)
    assert calls == []  # the three latest stayed
    cache(values[-4])  # left long ago: converted again, and the oldest kept one leaves
    cache(values[-2])
    cache(values[-3])
    assert calls == [values[-4], values[-3]]
