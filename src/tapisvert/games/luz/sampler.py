"""Fill in what a seat cannot see in Luz: its own values and the set-aside cards.

For a player the draw is exactly uniform among the hands consistent with what they
know (see ``knowledge``). A spectator knows no hand's values: every hand is drawn at
once, value by value, keeping the rest placeable (checked by a bipartite matching).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tapisvert.core.game import Seat
from tapisvert.core.matching import matching_size
from tapisvert.games.luz.cards import card, colour_of
from tapisvert.games.luz.knowledge import Gap, hand_gaps, sample_hand
from tapisvert.games.luz.rules import (
    PLAYED,
    LuzObservation,
    LuzPlay,
    LuzState,
    bet_action,
    play_action,
)

if TYPE_CHECKING:
    from tapisvert.games.luz.rules import LuzGame


def round_plays(observation: LuzObservation) -> list[LuzPlay]:
    return [play for trick in observation.completed_tricks for play in trick.plays] + list(
        observation.trick
    )


def sample_state(game: LuzGame, observation: LuzObservation, rng: random.Random) -> LuzState:
    players = observation.players
    state = LuzState(game)
    state._deal_index = observation.deal_index
    state._scores = observation.scores
    state._past = observation.past_deals
    state._history = None
    state._start_deal(observation.first_player)
    if observation.phase == "deal" or not observation.colours[0]:
        return state

    plays = round_plays(observation)
    revealed: list[dict[int, int]] = [{} for _ in range(players)]
    for play in plays:
        revealed[play.seat][play.slot] = play.card
    hands: list[list[int]] = [[PLAYED] * game.hand_size for _ in range(players)]
    unknown = set(game.deck) - {play.card for play in plays}
    hidden_seats = list(range(players)) if observation.seat is None else [observation.seat]
    for seat in range(players):
        for slot, value in enumerate(observation.values[seat]):
            if slot in revealed[seat]:
                hands[seat][slot] = revealed[seat][slot]
            elif value is not None:
                hands[seat][slot] = card(observation.colours[seat][slot], value)
                unknown.discard(hands[seat][slot])
    gaps: list[tuple[Seat, Gap]] = []
    for seat in hidden_seats:
        colours = [
            observation.colours[seat][slot]
            if slot not in revealed[seat]
            else colour_of(revealed[seat][slot])
            for slot in range(game.hand_size)
        ]
        gaps.extend((seat, gap) for gap in hand_gaps(colours, revealed[seat], unknown))
    if len(hidden_seats) == 1:
        for slot, drawn in sample_hand([gap for _, gap in gaps], rng).items():
            hands[hidden_seats[0]][slot] = drawn
    else:
        for (seat, gap), chosen in zip(
            gaps, _draw_jointly([gap for _, gap in gaps], rng), strict=True
        ):
            for slot, drawn in zip(gap.slots, sorted(chosen), strict=True):
                hands[seat][slot] = drawn

    for index in range(game.hand_size * players):
        seat = (observation.first_player + index) % players
        state.apply_action(hands[seat][index // players])
    bettors = [(observation.first_player + offset) % players for offset in range(players)]
    for seat in bettors:
        pair = observation.bets[seat]
        if pair is None:
            break
        state.apply_action(bet_action(*pair))
    for play in plays:
        state.apply_action(play_action(play.slot))
    return state


def _draw_jointly(gaps: list[Gap], rng: random.Random) -> list[list[int]]:
    """Disjoint increasing choices for several gaps that may share candidates."""
    chosen: list[list[int]] = [[] for _ in gaps]
    used: set[int] = set()
    units = [index for index, gap in enumerate(gaps) for _ in gap.slots]
    rng.shuffle(units)
    for position, gap_index in enumerate(units):
        options = [value for value in gaps[gap_index].candidates if value not in used]
        rng.shuffle(options)
        for value in options:
            used.add(value)
            if _placeable(units[position + 1 :], gaps, used):
                chosen[gap_index].append(value)
                break
            used.discard(value)
    return chosen


def _placeable(units: list[int], gaps: list[Gap], used: set[int]) -> bool:
    free = sorted({value for gap in gaps for value in gap.candidates} - used)
    index = {value: position for position, value in enumerate(free)}
    adjacency = [
        [index[value] for value in gaps[unit].candidates if value in index] for unit in units
    ]
    return matching_size(adjacency, len(free)) == len(units)
