"""Reading the numbers that notations, commands and records write."""

from __future__ import annotations

MAX_DIGITS = 9
"""More digits than any notation needs, and few enough that reading them costs nothing."""


def ascii_number(text: str) -> int | None:
    """The number ``text`` writes in ASCII digits, or ``None`` when it writes none.

    ``str.isdigit`` also takes ``²`` and ``①``, which ``int`` refuses, and ``int`` takes
    ``٣`` and ``３``, which no notation writes: both let a look-alike through, or crash.
    """
    if text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS:
        return int(text)
    return None
