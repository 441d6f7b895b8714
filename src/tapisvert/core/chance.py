"""Fast draws for engine-sampled chance.

``random.sample`` spends most of its time in a Python-level bounded-integer routine;
a partial Fisher–Yates shuffle on ``random()`` is several times faster. Its bias, of
the order of n / 2**53 for n cards, is far below anything a game could show.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def draw(items: Sequence[T], count: int, rng: random.Random) -> list[T]:
    """``count`` distinct items of ``items`` in random order, as from a shuffled deck."""
    pool = list(items)
    size = len(pool)
    uniform = rng.random
    for index in range(count):
        chosen = index + int(uniform() * (size - index))
        pool[index], pool[chosen] = pool[chosen], pool[index]
    return pool[:count]
