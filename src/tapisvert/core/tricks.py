"""What trick-taking games have in common, whatever their cards."""

from __future__ import annotations

from collections.abc import Iterable

from tapisvert.core.game import Seat


def tricks_taken(winners: Iterable[Seat], players: int) -> tuple[int, ...]:
    """How many tricks each seat took, from the winner of every trick played."""
    taken = [0] * players
    for winner in winners:
        taken[winner] += 1
    return tuple(taken)
