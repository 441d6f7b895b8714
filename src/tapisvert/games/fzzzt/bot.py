"""A rule-based Fzzzt! player.

It values the front belt card for itself — a robot's points and the symbols its units
still need, a unit by how well its robots could fill it, a Fzzzt! card as bidding power
that costs a point — and bids the cheapest subset of its hand that beats what the
others can plausibly put up, or its weakest card when the prize is not worth it. In the
production phase it gives each unit the robot that adds the most completed sets, the
weakest bidder first, which also thins its deck.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tapisvert.core.game import Action, Observation
from tapisvert.games.fzzzt.cards import (
    CARDS,
    SYMBOL_BITS,
    UNITS,
    Kind,
    completed_sets,
    strength,
)
from tapisvert.games.fzzzt.rules import (
    BID_BASE,
    CHIT_BASE,
    DONE,
    GONE,
    HIDDEN,
    PLACE_BASE,
    FzzztObservation,
    bid_cards,
)

UNIT_ROUNDS_LEFT_WEIGHT = 0.2
"""Each remaining round makes a unit easier to fill: a small bonus per round left."""


def my_supplies(observation: FzzztObservation, seat: int) -> int:
    """The symbols offered by the robots the seat owns (bit mask)."""
    offered = 0
    for card in observation.owned[seat]:
        if CARDS[card].kind in (Kind.STARTER, Kind.ROBOT, Kind.UPGRADE):
            offered |= CARDS[card].symbols
    return offered


def card_value(observation: FzzztObservation, seat: int, card: int) -> float:
    spec = CARDS[card]
    units = [unit for unit, _ in observation.units[seat]]
    needed = 0
    for unit in units:
        needed |= CARDS[unit].symbols
    if spec.kind == Kind.UNIT:
        coverage = bin(spec.symbols & my_supplies(observation, seat)).count("1")
        share = coverage / bin(spec.symbols).count("1")
        rounds_left = 5 - observation.round
        return spec.value * (share - 0.5 + UNIT_ROUNDS_LEFT_WEIGHT * rounds_left)
    if spec.kind == Kind.FZZZT:
        return 0.5
    helpful = bin(spec.symbols & needed).count("1")
    return spec.vp + 1.5 * min(helpful, 1) + spec.zap / 4


class FzzztHeuristicBot:
    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        assert isinstance(observation, FzzztObservation)
        if legal_actions[0] >= BID_BASE:
            return self._bid(observation, legal_actions)
        return self._place(observation, legal_actions)

    def _bid(self, observation: FzzztObservation, legal_actions: Sequence[Action]) -> Action:
        seat = observation.seat if observation.seat is not None else 0
        front = observation.belt[observation.auction]
        value = 0.0 if front in (HIDDEN, GONE) else card_value(observation, seat, front)
        by_strength = sorted(
            legal_actions, key=lambda action: (strength(bid_cards(action)), len(bid_cards(action)))
        )
        weakest = by_strength[0]
        if value < 2:
            return weakest
        rivals = [
            self._rival_power(observation, other)
            for other in range(observation.players)
            if other != seat
        ]
        target = 1 + max(rivals, default=0) * min(1.0, value / 8)
        for action in by_strength:
            if strength(bid_cards(action)) >= target:
                return action
        return by_strength[-1] if value >= 4 else weakest

    @staticmethod
    def _rival_power(observation: FzzztObservation, other: int) -> float:
        """What a rival could plausibly bid: its known cards and 2 zap per unknown card."""
        known = observation.known_held[other]
        cards = observation.hand_sizes[other] + (observation.bid_sizes[other] or 0)
        known_zap = strength(known[:cards])
        return 0.7 * (known_zap + 2 * max(0, cards - len(known)))

    def _place(self, observation: FzzztObservation, legal_actions: Sequence[Action]) -> Action:
        seat = observation.seat if observation.seat is not None else 0
        placed = {
            unit: [self._supply(item) for item in items] for unit, items in observation.units[seat]
        }
        best, best_gain = DONE, 0.0
        for action in legal_actions:
            if action == DONE:
                continue
            unit, offered, zap = self._describe(action)
            before = completed_sets(unit, placed[unit])
            after = completed_sets(unit, [*placed[unit], offered])
            progress = bin(offered & CARDS[unit].symbols & ~_covered(placed[unit])).count("1")
            gain = (after - before) * CARDS[unit].value + progress - zap / 10
            if gain > best_gain:
                best, best_gain = action, gain
        return best

    @staticmethod
    def _supply(item: tuple[int, int]) -> int:
        card, chit = item
        return SYMBOL_BITS[chit] if card < 0 else CARDS[card].symbols

    @staticmethod
    def _describe(action: Action) -> tuple[int, int, int]:
        if action >= CHIT_BASE:
            unit_index, chit = divmod(action - CHIT_BASE, len(SYMBOL_BITS))
            return UNITS[unit_index], SYMBOL_BITS[chit], 0
        unit_index, card = divmod(action - PLACE_BASE, len(CARDS))
        return UNITS[unit_index], CARDS[card].symbols, CARDS[card].zap


def _covered(supplies: list[int]) -> int:
    covered = 0
    for offered in supplies:
        covered |= offered
    return covered
