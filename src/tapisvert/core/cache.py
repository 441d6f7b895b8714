"""Conversions of immutable values, remembered by identity."""

from __future__ import annotations

import threading
from collections import deque
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
    another object meanwhile.

    Safe across threads: a value and its conversion are one entry, read and written whole,
    so a look-up never pairs an object with another's conversion nor finds half an entry;
    adding and evicting, the only steps of several operations, hold a lock that a hit never
    takes.
    """

    def __init__(self, convert: Callable[[K], V], size: int = 16384) -> None:
        self._convert = convert
        self._size = size
        self._entries: dict[int, tuple[K, V]] = {}
        self._order: deque[int] = deque()
        """The entries' keys, the first added first: a dictionary's first key, once many
        have been deleted before it, takes a scan of the deleted ones to find."""
        self._adding = threading.Lock()

    def __call__(self, value: K) -> V:
        entry = self._entries.get(id(value))
        if entry is not None and entry[0] is value:
            return entry[1]
        converted = self._convert(value)
        with self._adding:
            entries, key = self._entries, id(value)
            if key not in entries:  # another thread may have added it meanwhile
                self._order.append(key)
            entries[key] = (value, converted)
            if len(entries) > self._size:
                del entries[self._order.popleft()]
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
