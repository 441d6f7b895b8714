"""Fill in what a seat cannot see in Abluxxen: the other hands and the pile.

Everything else is public: stacks, display, discard pile, the imaginary player's row,
and the cards known to be in each hand. The unseen cards are dealt uniformly: each
other seat gets the right number beside its known cards, the rest is the pile.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tapisvert.games.abluxxen.cards import KINDS, cards_of, counts_of
from tapisvert.games.abluxxen.rules import PHASE_NAMES, AbluxxenObservation, AbluxxenState

if TYPE_CHECKING:
    from tapisvert.games.abluxxen.rules import AbluxxenGame


def sample_state(
    game: AbluxxenGame, observation: AbluxxenObservation, rng: random.Random
) -> AbluxxenState:
    state = AbluxxenState(game)
    players = observation.players
    unseen = list(game.deck_counts)
    public = [
        *observation.hand,
        *(card for played in observation.stacks for s in played for card in s.cards()),
        *(card for entry in observation.display for card in entry),
        *observation.discard,
        *observation.dummy,
        *observation.in_play,
        *(
            card
            for seat, known in enumerate(observation.known_in_hand)
            if seat != observation.seat
            for card in known
        ),
    ]
    for card in public:
        unseen[card] -= 1
    pool = cards_of(unseen)
    rng.shuffle(pool)
    hands = []
    for seat in range(players):
        if seat == observation.seat:
            hands.append(counts_of(observation.hand))
            continue
        missing = observation.hand_sizes[seat] - len(observation.known_in_hand[seat])
        hands.append(counts_of([*observation.known_in_hand[seat], *pool[:missing]]))
        pool = pool[missing:]
    state._hands = tuple(hands)
    state._pile = counts_of(pool)
    state._known = tuple(map(counts_of, observation.known_in_hand))
    state.lay_stacks(observation.stacks)
    state._display = observation.display
    state._discard = counts_of(observation.discard)
    state._dummy = counts_of(observation.dummy)
    state._active = observation.active
    state._played = observation.played
    state._victim = observation.victim
    state._in_play = observation.in_play
    state._drawer = observation.drawer
    state._draws_left = observation.draws_left
    state._steals = observation.pending_steals
    state._refill = observation.refill_pending
    state._deal_queue = observation.deal_queue
    state._game_index = observation.game_number - 1
    state._starter = observation.starter
    state._past_games = observation.past_games
    state._phase = PHASE_NAMES.index(observation.phase)
    state._player = observation.current_player
    assert len(state._pile) == KINDS
    return state
