"""A rule-based Abluxxen player.

It plays the set that moves most cards to its stack and is hardest to steal (big and
high), steals when it can, and keeps its jokers for when they matter. It takes stolen
cards that fit its hand, keeps declined ones that do, and draws the display card that
best completes a group, else the pile.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tapisvert.core.game import Action, Observation
from tapisvert.games.abluxxen.cards import JOKER, JOKER_SET_VALUE, can_steal
from tapisvert.games.abluxxen.rules import (
    DECLINE,
    DISCARD,
    DRAW_DISPLAY_BASE,
    DRAW_PILE,
    DUMMY_STEAL_BASE,
    KEEP,
    SET_BASE,
    TAKE,
    AbluxxenObservation,
    SeatView,
    action_set,
)

JOKER_COST = 0.8
"""What spending a joker costs: it could later turn a small set into a big one."""


def set_value(view: SeatView, action: Action) -> float:
    """What playing the set ``action`` is worth: cards to the stack, safe from steals if
    high, more for the cards it steals, less for the jokers it spends."""
    played = action_set(action)
    steals = sum(
        stack[-1].size
        for other, stack in enumerate(view.stacks)
        if other != view.seat and stack and can_steal(played, stack[-1])
    )
    safety = played.value / JOKER_SET_VALUE
    return played.size * (1 + 0.5 * safety) + 1.5 * steals - JOKER_COST * played.jokers


def heuristic_action(view: SeatView, legal_actions: Sequence[Action]) -> Action:
    """The rule of thumb's move: what the heuristic bot plays, and a play-out's seats."""
    first = legal_actions[0]
    if SET_BASE <= first < TAKE:
        return max(legal_actions, key=lambda action: set_value(view, action))
    if first in (TAKE, DECLINE):
        return TAKE if _fits(view.hand, view.in_play) else DECLINE
    if first in (KEEP, DISCARD):
        return KEEP if _fits(view.hand, view.in_play) else DISCARD
    if first >= DUMMY_STEAL_BASE:
        return max(legal_actions, key=lambda action: (view.hand[action - DUMMY_STEAL_BASE], action))
    return _draw(view, legal_actions)


def _fits(hand: Sequence[int], cards: Sequence[int]) -> bool:
    return any(card == JOKER or hand[card] > 0 or card >= 11 for card in cards)


def _draw(view: SeatView, legal_actions: Sequence[Action]) -> Action:
    hand = view.hand

    def gain(action: Action) -> float:
        if action == DRAW_PILE:
            return 0.5
        entry = view.display[action - DRAW_DISPLAY_BASE]
        return sum(2.0 if card == JOKER else hand[card] for card in entry) + len(entry) - 1

    return max(legal_actions, key=gain)


class AbluxxenHeuristicBot:
    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        assert isinstance(observation, AbluxxenObservation)
        return heuristic_action(observation.seat_view(), legal_actions)
