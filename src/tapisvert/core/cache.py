"""Conversions of immutable values, remembered by identity."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityCache(Generic[K, V]):
    """``convert(value)``, computed once per object while it stays among the recent ones.

    For large immutable values that many observations share (the finished rounds of a
    game): hashing them would cost as much as converting them again. The cache keeps each
    value alive, so that its identity cannot be reused by another object meanwhile.
    """

    def __init__(self, convert: Callable[[K], V], size: int = 1024) -> None:
        self._convert = convert
        self._size = size
        self._entries: OrderedDict[int, tuple[K, V]] = OrderedDict()

    def __call__(self, value: K) -> V:
        entry = self._entries.get(id(value))
        if entry is not None and entry[0] is value:
            self._entries.move_to_end(id(value))
            return entry[1]
        converted = self._convert(value)
        self._entries[id(value)] = (value, converted)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return converted


def itemwise(
    convert: Callable[[K], V], size: int = 4096
) -> IdentityCache[tuple[K, ...], tuple[V, ...]]:
    """A tuple converted item by item, each item once while it stays among the recent ones.

    For a growing tuple of finished parts (rounds, deals): each new tuple costs the
    conversion of its new part only.
    """
    each = IdentityCache(convert, size)
    return IdentityCache(lambda items: tuple(map(each, items)))
