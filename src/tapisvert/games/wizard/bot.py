"""A rule-based Wizard player: bid the tricks the hand should take, then play to make it.

Bidding counts each card's chance of taking a trick (a Wizard almost surely; high
trumps often; high cards of other suits sometimes, less so at a crowded table). In
play, a seat that still needs tricks wins the current one as cheaply as it can, or
leads its strongest card; a seat that has its tricks ducks under the winning card and
throws its most dangerous card that cannot win.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tapisvert.core.game import Action, Observation
from tapisvert.games.wizard.cards import (
    FOLLOW_OPEN,
    JESTER,
    NO_TRUMP,
    SUITS,
    VALUES,
    WIZARD,
    card_strength,
    follow_after,
)
from tapisvert.games.wizard.rules import (
    BID_BASE,
    TRUMP_BASE,
    WizardObservation,
)


def trick_probability(card: int, trump: int, players: int) -> float:
    """A rough chance that ``card`` takes a trick on its own."""
    if card == WIZARD:
        return 0.95
    if card == JESTER:
        return 0.0
    value = card % VALUES + 1
    crowd = 4 / players
    if card // VALUES == trump:
        return min(1.0, max(0.0, (value - 5) / 8) * 0.9 * crowd + 0.1)
    if trump == NO_TRUMP:
        return max(0.0, (value - 9) / 4) * 0.8 * crowd
    return max(0.0, (value - 10) / 3) * 0.6 * crowd


class WizardHeuristicBot:
    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        assert isinstance(observation, WizardObservation)
        if legal_actions[0] >= TRUMP_BASE:
            return TRUMP_BASE + self._best_trump(observation)
        if legal_actions[0] >= BID_BASE:
            return self._bid(observation, legal_actions)
        return self._play(observation, legal_actions)

    @staticmethod
    def _best_trump(observation: WizardObservation) -> int:
        weight = [0.0] * SUITS
        for card in observation.hand:
            if card < SUITS * VALUES:
                weight[card // VALUES] += 1 + (card % VALUES) / VALUES
        return weight.index(max(weight))

    @staticmethod
    def _bid(observation: WizardObservation, legal_actions: Sequence[Action]) -> Action:
        trump = -1 if observation.trump is None else observation.trump
        expected = sum(
            trick_probability(card, trump, observation.players) for card in observation.hand
        )
        return min(legal_actions, key=lambda action: (abs(action - BID_BASE - expected), action))

    @staticmethod
    def _play(observation: WizardObservation, legal_actions: Sequence[Action]) -> Action:
        trump = NO_TRUMP if observation.trump is None else observation.trump
        seat = observation.seat if observation.seat is not None else 0
        bid = observation.bids[seat] or 0
        wants_tricks = observation.tricks_won[seat] < bid
        trick = observation.trick
        if not trick:
            ranked = sorted(legal_actions, key=lambda card: card_strength(card, trump, card // 13))
            return ranked[-1] if wants_tricks else ranked[0]
        follow = FOLLOW_OPEN
        for card in trick:
            follow = follow_after(follow, card)
        best = max(card_strength(card, trump, follow) for card in trick)

        def strength(card: int) -> int:
            return card_strength(card, trump, follow_after(follow, card))

        winners = sorted((card for card in legal_actions if strength(card) > best), key=strength)
        losers = sorted((card for card in legal_actions if strength(card) <= best), key=strength)
        if wants_tricks:
            if winners:
                return winners[0]
            return min(legal_actions, key=_waste)
        if losers:
            return max(losers, key=_danger)
        return winners[0]


def _waste(card: int) -> tuple[int, int]:
    """What throwing ``card`` away costs: Jesters first, then low cards."""
    return (0, 0) if card == JESTER else (1, card % VALUES if card < SUITS * VALUES else 99)


def _danger(card: int) -> tuple[int, int]:
    """How likely ``card`` is to win an unwanted trick later: shed it while it is safe."""
    if card == WIZARD:
        return (2, 0)
    if card == JESTER:
        return (-1, 0)
    return (1, card % VALUES)
