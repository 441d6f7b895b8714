"""A rule-based Luz player that reasons from what it can deduce about its own hand.

It sees every opponent's card, so for each of its own slots it weighs the values still
possible (the observation's knowledge) against the best card of that colour left in
the opponents' hands: the chance that the slot takes a trick. It bets the sum of those
chances (with the safety bead when the sum falls between two bets), then plays to its
bet: the likeliest winner while it needs tricks, the likeliest loser once it has them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tapisvert.core.game import Action, Observation
from tapisvert.games.luz.cards import YELLOW, colour_of, value_of
from tapisvert.games.luz.rules import BET_BASE, PLAY_BASE, LuzObservation, bet_action

PLAIN_COLOUR_RISK = 0.6
"""How often a plain card that tops its colour still takes the trick (it may be trumped)."""


def opponents_best(observation: LuzObservation, colour: int) -> int:
    """The highest value of ``colour`` in the opponents' hands (0 if none)."""
    best = 0
    for seat in range(observation.players):
        if seat == observation.seat:
            continue
        for slot_colour, value in zip(
            observation.colours[seat], observation.values[seat], strict=True
        ):
            if slot_colour == colour and value is not None:
                best = max(best, value)
    return best


def share_above(values: Sequence[int], threshold: int) -> float:
    return sum(1 for value in values if value > threshold) / len(values)


class LuzHeuristicBot:
    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        assert isinstance(observation, LuzObservation)
        if legal_actions[0] < PLAY_BASE and legal_actions[0] >= BET_BASE:
            return self._bet(observation, legal_actions)
        return self._play(observation, legal_actions)

    def _slot_chance(self, observation: LuzObservation, slot: int) -> float:
        seat = observation.seat if observation.seat is not None else 0
        possible = observation.knowledge[slot] or (0,)
        colour = observation.colours[seat][slot]
        chance = share_above(possible, opponents_best(observation, colour))
        return chance if colour == YELLOW else chance * PLAIN_COLOUR_RISK

    def _bet(self, observation: LuzObservation, legal_actions: Sequence[Action]) -> Action:
        seat = observation.seat if observation.seat is not None else 0
        slots = [slot for slot, colour in enumerate(observation.colours[seat]) if colour >= 0]
        expected = sum(self._slot_chance(observation, slot) for slot in slots)
        bet, fraction = int(expected), expected - int(expected)
        wanted = bet_action(bet, 1) if 0.35 <= fraction <= 0.65 else bet_action(round(expected))
        return min(legal_actions, key=lambda action: (abs(action - wanted), action))

    def _play(self, observation: LuzObservation, legal_actions: Sequence[Action]) -> Action:
        seat = observation.seat if observation.seat is not None else 0
        bet = (observation.bets[seat] or (0, 0))[0]
        wants_tricks = observation.tricks_won[seat] < bet
        chances = {
            action: self._win_chance(observation, action - PLAY_BASE) for action in legal_actions
        }
        if wants_tricks:
            return max(legal_actions, key=lambda action: (chances[action], -action))
        # Shed the card most likely to win later among those least likely to win now.
        return min(
            legal_actions,
            key=lambda action: (
                chances[action],
                -self._slot_chance(observation, action - PLAY_BASE),
            ),
        )

    def _win_chance(self, observation: LuzObservation, slot: int) -> float:
        """The chance that playing ``slot`` takes the trick on the table."""
        if not observation.trick:
            return self._slot_chance(observation, slot)
        seat = observation.seat if observation.seat is not None else 0
        colour = observation.colours[seat][slot]
        possible = observation.knowledge[slot] or (0,)
        cards = [play.card for play in observation.trick]
        yellows = [value_of(card) for card in cards if colour_of(card) == YELLOW]
        led = colour_of(cards[0])
        if yellows:
            return share_above(possible, max(yellows)) if colour == YELLOW else 0.0
        if colour == YELLOW:
            return 1.0
        if colour != led:
            return 0.0
        best = max(value_of(card) for card in cards if colour_of(card) == led)
        return share_above(possible, best) * PLAIN_COLOUR_RISK
