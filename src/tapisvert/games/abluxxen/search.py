"""What the search bots need to know about Abluxxen: which sets are worth playing out.

A hand of thirteen cards offers thirty sets or more, one per value, size and number of
jokers, and a play-out lasts the rest of the game: a budget shared by all of them would
play each out once or twice, too seldom to tell apart options a card or two apart. The
search weighs the few sets the heuristic rates best.
"""

from __future__ import annotations

from tapisvert.core.game import Action, Observation
from tapisvert.games.abluxxen.bot import set_value
from tapisvert.games.abluxxen.rules import SET_BASE, TAKE, AbluxxenObservation

SHORTLIST = 8
"""How many sets the search weighs."""


def strongest_sets(observation: Observation, legal: list[Action]) -> list[Action]:
    """The ``SHORTLIST`` sets the heuristic rates best; other decisions unchanged."""
    assert isinstance(observation, AbluxxenObservation)
    if not legal or not SET_BASE <= legal[0] < TAKE:
        return legal
    ranked = sorted(legal, key=lambda action: (-set_value(observation, action), action))
    return sorted(ranked[:SHORTLIST])
