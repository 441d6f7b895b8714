"""Conversions of immutable values, remembered by identity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityCache(Generic[K, V]):
    """``convert(value)``, computed once per object while it is among the ``size`` last
    converted (the first converted is the first to leave: refreshing an entry at every use
    would cost more than converting it again now and then).

    For immutable values that many observations share: the parts of a position that every
    seat sees, those a move left as they were (which ``State._shared`` keeps as the same
    objects), the finished rounds of a game. Hashing them would cost as much as converting
    them again. The cache keeps each value alive, so that its identity cannot be reused by
    another object meanwhile; its entries are dictionary items, not objects of their own
    for the garbage collector to visit.
    """

    def __init__(self, convert: Callable[[K], V], size: int = 16384) -> None:
        self._convert = convert
        self._size = size
        self._values: dict[int, K] = {}
        self._converted: dict[int, V] = {}

    def __call__(self, value: K) -> V:
        key = id(value)
        values = self._values
        if values.get(key) is value:
            return self._converted[key]
        converted = self._converted[key] = self._convert(value)
        values[key] = value
        if len(values) > self._size:
            oldest = next(iter(values))
            del values[oldest], self._converted[oldest]
        return converted


def itemwise(
    convert: Callable[[K], V], size: int = 16384
) -> IdentityCache[tuple[K, ...], tuple[V, ...]]:
    """A tuple converted item by item, each item once while it is among the recent ones.

    For a growing tuple of finished parts (rounds, deals), or one part per seat: each new
    tuple costs the conversion of its new or changed parts only.
    """
    each = IdentityCache(convert, size)
    return IdentityCache(lambda items: tuple(map(each, items)), size)
