"""Fill in what a seat cannot see in Fzzzt!: the others' hands, sealed bids and draw piles.

Every card a seat owns is public, and so is its discard pile; what is hidden is how the
rest splits between hand, sealed bid and draw pile. The cards known to be in hand stay
there; the others are dealt uniformly into the hidden places, then the sealed bid is a
uniform choice of the right size from the hand. The unseen conveyor cards (face-down
belt and deck) are one unordered pool, drawn from only when a card is turned.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tapisvert.core.game import CHANCE
from tapisvert.games.fzzzt.rules import (
    GONE,
    HIDDEN,
    PHASE_NAMES,
    FzzztObservation,
    FzzztState,
)

if TYPE_CHECKING:
    from tapisvert.games.fzzzt.rules import FzzztGame


def sample_state(game: FzzztGame, observation: FzzztObservation, rng: random.Random) -> FzzztState:
    state = FzzztState(game)
    players = observation.players
    state._round = observation.round
    state._auction = observation.auction
    state._chief = observation.chief
    state._phase = PHASE_NAMES.index(observation.phase)
    state._player = observation.current_player
    state._mechanic_of = observation.mechanics
    if state._phase == PHASE_NAMES.index("mechanics"):
        state._player = CHANCE
        return state
    state._discard = observation.discards
    for seat, owned in enumerate(observation.owned):
        state._own(seat, owned)
    state._known_held = observation.known_held
    state._units = observation.units
    state._chits = observation.chits
    state._belt = observation.belt
    state._last = observation.last_auction
    state._placed_now = observation.placed_this_phase
    seen = {card for cards in observation.owned for card in cards}
    seen |= {unit for owned in observation.units for unit, _ in owned}
    seen |= {item.card for owned in observation.units for _, items in owned for item in items}
    seen |= {card for card in observation.belt if card not in (HIDDEN, GONE)}
    if observation.last_auction is not None:
        seen.add(observation.last_auction.card)
    state._pool = tuple(card for card in game.conveyor if card not in seen)

    hands, draws, bids = [], [], []
    for seat in range(players):
        bid_size = observation.bid_sizes[seat] or 0
        if seat == observation.seat:
            hand, bid, draw = (
                list(observation.hand),
                list(observation.bid),
                list(observation.draw_pile),
            )
        else:
            hand, bid, draw = _split(observation, seat, bid_size, rng)
        hands.append(tuple(sorted(hand)))
        draws.append(tuple(sorted(draw)))
        bids.append(tuple(sorted(bid)) if observation.bid_sizes[seat] is not None else None)
    state._hands, state._draw, state._bids = tuple(hands), tuple(draws), tuple(bids)

    _restore_queues(state, observation)
    return state


def _split(
    observation: FzzztObservation, seat: int, bid_size: int, rng: random.Random
) -> tuple[list[int], list[int], list[int]]:
    """A uniform split of a seat's hidden cards into hand, sealed bid and draw pile."""
    hidden = list(observation.owned[seat])
    for card in observation.discards[seat]:
        hidden.remove(card)
    known = list(observation.known_held[seat])
    for card in known:
        hidden.remove(card)
    rng.shuffle(hidden)
    in_hand_or_bid = observation.hand_sizes[seat] + bid_size - len(known)
    held = known + hidden[:in_hand_or_bid]
    draw = hidden[in_hand_or_bid:]
    rng.shuffle(held)
    return held[bid_size:], held[:bid_size], draw


def _restore_queues(state: FzzztState, observation: FzzztObservation) -> None:
    """The pending bidders of the auction, or the producers of the production phase."""
    players = observation.players
    order = [(observation.chief + offset) % players for offset in range(players)]
    if observation.phase == "bid":
        start = order.index(observation.current_player)
        state._bidders = tuple(order[start:])
    elif observation.phase == "production":
        start = order.index(observation.current_player)
        state._producers = tuple(order[start:])
    state._draws = observation.pending_draws
    if observation.phase == "reveal":
        front = observation.auction
        hidden = state._belt[front] == HIDDEN
        state._reveals = (front,) if hidden else tuple(state.reveals_after_front())
