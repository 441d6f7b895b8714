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
from tapisvert.games.abluxxen.cards import JOKER, JOKER_SET_VALUE, can_steal, counts_of
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
    action_set,
)

JOKER_COST = 0.8
"""What spending a joker costs: it could later turn a small set into a big one."""


def set_value(observation: AbluxxenObservation, action: Action) -> float:
    """What playing the set ``action`` is worth: cards to the stack, safe from steals if
    high, more for the cards it steals, less for the jokers it spends."""
    played = action_set(action)
    seat = observation.seat if observation.seat is not None else 0
    steals = sum(
        stack[-1].size
        for other, stack in enumerate(observation.stacks)
        if other != seat and stack and can_steal(played, stack[-1])
    )
    safety = played.value / JOKER_SET_VALUE
    return played.size * (1 + 0.5 * safety) + 1.5 * steals - JOKER_COST * played.jokers


class AbluxxenHeuristicBot:
    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        assert isinstance(observation, AbluxxenObservation)
        first = legal_actions[0]
        if SET_BASE <= first < TAKE:
            return max(legal_actions, key=lambda action: set_value(observation, action))
        if first in (TAKE, DECLINE):
            return TAKE if self._fits(observation, observation.in_play) else DECLINE
        if first in (KEEP, DISCARD):
            return KEEP if self._fits(observation, observation.in_play) else DISCARD
        if first >= DUMMY_STEAL_BASE:
            hand = counts_of(observation.hand)
            return max(legal_actions, key=lambda action: (hand[action - DUMMY_STEAL_BASE], action))
        return self._draw(observation, legal_actions)

    @staticmethod
    def _fits(observation: AbluxxenObservation, cards: Sequence[int]) -> bool:
        hand = counts_of(observation.hand)
        return any(card == JOKER or hand[card] > 0 or card >= 11 for card in cards)

    @staticmethod
    def _draw(observation: AbluxxenObservation, legal_actions: Sequence[Action]) -> Action:
        hand = counts_of(observation.hand)

        def gain(action: Action) -> float:
            if action == DRAW_PILE:
                return 0.5
            entry = observation.display[action - DRAW_DISPLAY_BASE]
            return sum(2.0 if card == JOKER else hand[card] for card in entry) + len(entry) - 1

        return max(legal_actions, key=gain)
