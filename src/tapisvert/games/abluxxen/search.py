"""What the search bots need to know about Abluxxen: which sets are worth playing out, and
how the heuristic plays the seats of a play-out.

A hand of thirteen cards offers thirty sets or more, one per value, size and number of
jokers, and a play-out lasts the rest of the game: a budget shared by all of them would
play each out once or twice, too seldom to tell apart options a card or two apart. The
search weighs the few sets the heuristic rates best.
"""

from __future__ import annotations

import random

from tapisvert.core.game import Action, Observation, State
from tapisvert.games.abluxxen.bot import heuristic_action, set_value
from tapisvert.games.abluxxen.rules import SET_BASE, TAKE, AbluxxenObservation, AbluxxenState

SHORTLIST = 8
"""How many sets the search weighs."""


def strongest_sets(observation: Observation, legal: list[Action]) -> list[Action]:
    """The ``SHORTLIST`` sets the heuristic rates best; other decisions unchanged."""
    assert isinstance(observation, AbluxxenObservation)
    if not legal or not SET_BASE <= legal[0] < TAKE:
        return legal
    view = observation.seat_view()
    ranked = sorted(legal, key=lambda action: (-set_value(view, action), action))
    return sorted(ranked[:SHORTLIST])


def heuristic_in_play_out(state: State, legal: list[Action], rng: random.Random) -> Action:
    """The heuristic bot's move for the seat to act, read off the position: the same move
    as from its observation, at a fraction of the cost."""
    assert isinstance(state, AbluxxenState)
    return heuristic_action(state.seat_view(state.current_player()), legal)
