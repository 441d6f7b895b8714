"""Fill in what a seat cannot see: the other hands and the face-down stack.

The sampled round is rebuilt by replaying, through the checked rules, a deal that
gives every seat its current cards plus the cards it has played, then the turned
card, the trump choice, the bids and the plays of the observation. Revealed voids
(a seat that did not follow a suit holds none of it) are respected; without voids
the deal is uniform among all deals consistent with the observation, and with voids
each card goes to a holder drawn in proportion to the room it has left.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import TYPE_CHECKING, NamedTuple

from tapisvert.core.cache import IdentityCache
from tapisvert.core.chance import draw
from tapisvert.core.game import Seat
from tapisvert.games.wizard.cards import (
    FOLLOW_OPEN,
    NO_TRUMP,
    PLAY_EFFECTS,
    SUIT_CARDS,
    SUITS,
    VALUES,
    WIZARD,
    cards_in,
    follow_after,
    hand_of,
    hand_parts,
)
from tapisvert.games.wizard.rules import (
    PHASE_END,
    PHASE_NAMES,
    TRUMP_UNDECIDED,
    CompletedTrick,
    WizardObservation,
    WizardState,
    bid_action,
    trump_action,
)

if TYPE_CHECKING:
    from tapisvert.games.wizard.rules import WizardGame

STACK = -1
"""The holder that stands for the undealt cards."""

_SPECIAL = SUITS
_SUIT_SUBSETS = [
    frozenset(subset) for size in range(1, SUITS + 1) for subset in combinations(range(SUITS), size)
]


def round_tricks(observation: WizardObservation) -> list[CompletedTrick]:
    """The tricks of the round so far, the one on the table last (its winner -1)."""
    current = CompletedTrick(observation.leader, observation.trick, -1)
    return [*observation.completed_tricks, current]


def revealed_voids(observation: WizardObservation) -> dict[Seat, set[int]]:
    """The suits each seat has shown it lacks this round, by not following them."""
    voids: dict[Seat, set[int]] = {seat: set() for seat in range(observation.players)}
    for trick in round_tricks(observation):
        follow = FOLLOW_OPEN
        for position, card in enumerate(trick.cards):
            seat = (trick.leader + position) % observation.players
            if card < SUIT_CARDS and follow < SUITS and card // VALUES != follow:
                voids[seat].add(follow)
            follow = follow_after(follow, card)
    return voids


class _Hidden(NamedTuple):
    """What an observation says of the cards it does not show, the same at every draw."""

    played: dict[Seat, list[int]]
    seen: int
    """The cards the seat saw (its hand, the cards played this round, the turned card)."""
    capacity: dict[Seat, int]
    """The room in each other seat's hand."""
    voids: dict[Seat, set[int]]


def _hidden(observation: WizardObservation) -> _Hidden:
    players = observation.players
    viewer = observation.seat
    played: dict[Seat, list[int]] = {seat: [] for seat in range(players)}
    for trick in round_tricks(observation):
        for position, card in enumerate(trick.cards):
            played[(trick.leader + position) % players].append(card)
    seen = hand_of([*observation.hand, *(card for cards in played.values() for card in cards)])
    if observation.trump_card is not None:
        seen += hand_of([observation.trump_card])
    capacity = {seat: observation.hand_sizes[seat] for seat in range(players) if seat != viewer}
    voids = revealed_voids(observation)
    voids[STACK] = set()
    return _Hidden(played, seen, capacity, voids)


_hidden_of = IdentityCache(_hidden, size=64)
"""A search draws a world from the same observation at every iteration: what that
observation says is worked out once."""


def sample_state(
    game: WizardGame, observation: WizardObservation, rng: random.Random
) -> WizardState:
    if observation.phase == "dealer":  # the game's start: nothing dealt, nothing hidden
        return WizardState(game)
    if observation.phase == "end":
        return _finished(game, observation)
    hidden = _hidden_of(observation)
    pool = cards_in(game.deck - hidden.seen)
    capacity = {**hidden.capacity, STACK: len(pool) - sum(hidden.capacity.values())}
    hands = _assign(pool, capacity, hidden.voids, rng)
    if observation.seat is not None:
        hands[observation.seat] = list(observation.hand)

    if observation.phase in ("play", "bid", "trump"):
        return _build(game, observation, hands, rng)
    return _replay(game, observation, hands, hidden.played, rng)


def _round_start(game: WizardGame, observation: WizardObservation) -> WizardState:
    """A state at the start of the observed round, with the past rounds' scores."""
    state = WizardState(game)
    state._round_index = observation.round_index
    state._scores = observation.scores
    state._past_rounds = observation.past_rounds
    state._start_round(observation.dealer)
    return state


def _finished(game: WizardGame, observation: WizardObservation) -> WizardState:
    """The game over: the last round's cards all played, the cards it left undealt (which
    nobody saw, as a set) in the stack."""
    last = observation.past_rounds[-1]
    state = WizardState(game)
    state._round_index = observation.round_index - 1  # the last round's, which it deals
    state._start_round(last.dealer)
    state._set_trump(last.trump)
    state._round_index = observation.round_index
    state._scores = observation.scores
    state._past_rounds = observation.past_rounds
    played = [card for trick in last.played for card in trick.cards]
    turned = [] if observation.trump_card is None else [observation.trump_card]
    state._deck = game.deck - hand_of([*played, *turned])
    state._dealt = last.round_number * observation.players
    state._trump_card = -1 if observation.trump_card is None else observation.trump_card
    state._bids = last.bids
    state._leader = observation.leader
    state._phase = PHASE_END
    state._player = observation.current_player
    return state


def _build(
    game: WizardGame,
    observation: WizardObservation,
    hands: dict[Seat, list[int]],
    rng: random.Random,
) -> WizardState:
    """The state itself, field by field: a search draws thousands of these."""
    players = observation.players
    state = _round_start(game, observation)
    state._hands = [hand_parts(hand_of(hands[seat])) for seat in range(players)]
    state._deck = hand_of(hands[STACK])
    state._dealt = observation.round_number * players
    state._trump_card = -1 if observation.trump_card is None else observation.trump_card
    trump = TRUMP_UNDECIDED if observation.trump is None else observation.trump
    state._trump = trump
    state._plays = PLAY_EFFECTS[NO_TRUMP if trump == TRUMP_UNDECIDED else trump]
    bids = list(observation.bids)
    for seat in _bidders(observation):
        if bids[seat] is None:
            bids[seat] = rng.randint(0, observation.round_number)
    state._bids = tuple(-1 if bid is None else bid for bid in bids)
    state._completed = observation.completed_tricks
    state._leader = observation.leader
    state._trick = list(observation.trick)
    follow = FOLLOW_OPEN
    for position, card in enumerate(observation.trick):
        _, _, _, _, follow, strength = state._plays[follow][card]
        if position == 0 or strength > state._best:
            state._best = strength
            state._taker = (observation.leader + position) % players
    state._follow = follow
    state._phase = PHASE_NAMES.index(observation.phase)
    state._player = observation.current_player
    return state


def _replay(
    game: WizardGame,
    observation: WizardObservation,
    hands: dict[Seat, list[int]],
    played: dict[Seat, list[int]],
    rng: random.Random,
) -> WizardState:
    """Replay the round through the checked rules (used while cards are being dealt)."""
    players = observation.players
    state = _round_start(game, observation)

    dealt = [hands[seat] + played[seat] for seat in range(players)]
    for cards in dealt:
        rng.shuffle(cards)
    for index in range(sum(observation.hand_sizes) + sum(len(cards) for cards in played.values())):
        seat = (observation.dealer + 1 + index) % players
        state.apply_action(dealt[seat][index // players])
    if observation.trump_card is not None:
        state.apply_action(observation.trump_card)
    if observation.trump_card == WIZARD and observation.trump is not None:
        state.apply_action(trump_action(observation.trump))
    bidders = _bidders(observation)
    for seat in bidders:
        bid = observation.bids[seat]
        if bid is None:
            bid = rng.randint(0, observation.round_number)
        state.apply_action(bid_action(bid))
    for trick in round_tricks(observation):
        for card in trick.cards:
            state.apply_action(card)
    return state


def _bidders(observation: WizardObservation) -> list[Seat]:
    """The seats that have bid, in bidding order."""
    players = observation.players
    order = [(observation.dealer + 1 + offset) % players for offset in range(players)]
    if observation.phase == "bid":
        return order[: order.index(observation.current_player)]
    if observation.phase in ("play", "end"):
        return order
    return []


def _assign(
    pool: list[int], capacity: dict[Seat, int], voids: dict[Seat, set[int]], rng: random.Random
) -> dict[Seat, list[int]]:
    pool = draw(pool, len(pool), rng)
    if not any(voids.values()):
        hands: dict[Seat, list[int]] = {}
        start = 0
        for holder, room in capacity.items():
            hands[holder] = pool[start : start + room]
            start += room
        return hands
    remaining = [0] * (SUITS + 1)
    for card in pool:
        remaining[_card_type(card)] += 1
    hands = {holder: [] for holder in capacity}
    for card in pool:
        kind = _card_type(card)
        remaining[kind] -= 1
        candidates = [
            holder for holder, room in capacity.items() if room > 0 and kind not in voids[holder]
        ]
        while True:
            holder = rng.choices(candidates, [capacity[h] for h in candidates])[0]
            capacity[holder] -= 1
            if _feasible(remaining, capacity, voids):
                break
            capacity[holder] += 1
            candidates.remove(holder)
        hands[holder].append(card)
    return hands


def _card_type(card: int) -> int:
    return card // VALUES if card < SUIT_CARDS else _SPECIAL


def _feasible(remaining: list[int], capacity: dict[Seat, int], voids: dict[Seat, set[int]]) -> bool:
    """Hall's condition: every set of suits fits in the room of the holders that may take it."""
    for suits in _SUIT_SUBSETS:
        demand = sum(remaining[suit] for suit in suits)
        if demand and demand > sum(
            room for holder, room in capacity.items() if not suits <= voids[holder]
        ):
            return False
    return True
