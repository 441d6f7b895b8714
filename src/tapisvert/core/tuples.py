"""Tuples as the parts of a state: its clones share them until one replaces a part.

A server clones the position for every move, and a search clones it thousands of times: a
state whose hands and piles are lists copies them all on each clone, and each copy is an
object the garbage collector visits for as long as it lives. Tuples are copied by
reference, and a tuple of numbers or strings is no longer tracked after the collector's
first pass. Changing one means building its replacement, with these.
"""

from __future__ import annotations

from typing import Final, TypeVar

T = TypeVar("T")

named: Final = tuple.__new__
"""``named(Kind, (a, b))`` is the named tuple ``Kind(a, b)``, made as its own constructor
makes it but without that constructor's Python frame (nor, compiled, a look-up of the class
among the module's names): for those the rules make at every move (a trick, a play)."""


def replaced(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``items`` with ``value`` at ``index``."""
    changed = list(items)  # faster than joining slices
    changed[index] = value
    return tuple(changed)


def without(items: tuple[T, ...], value: T) -> tuple[T, ...]:
    """``items`` less the first occurrence of ``value`` (a ``ValueError`` if none)."""
    index = items.index(value)
    return items[:index] + items[index + 1 :]


def added(counts: tuple[int, ...], index: int, amount: int) -> tuple[int, ...]:
    """A count vector with ``amount`` added at ``index`` (a removal when negative)."""
    changed = list(counts)
    changed[index] += amount
    return tuple(changed)
