"""Live tables and tables played over days: which a table is, by its clock.

A table whose clock gives an hour or more a move is played over days: its players come by
when they can, it sleeps out of memory while nobody is at it (see ``table_life``), a seat's
absence is no reason for a bot to take over, and its games are rated apart from live ones.
"""

from __future__ import annotations

from typing import Literal

Speed = Literal["live", "days"]

DAYS_CLOCK = 3600.0
"""Seconds a move from which a table is played over days (one hour)."""
LONGEST_CLOCK = 7 * 86400.0
"""The longest clock a table may have: a week a move."""

TimeoutRule = Literal["bot", "lose"]
"""What happens when the clock of a person runs out at a table over days: a bot plays that
one move for them (``bot``), or they lose the game, a bot playing their seat to its end
(``lose``). At a live table a bot plays for them until they come back."""


def speed_of(clock: float | None) -> Speed:
    """A table's speed by its clock (seconds a move; ``None``: no clock, a live table)."""
    return "days" if clock is not None and clock >= DAYS_CLOCK else "live"
