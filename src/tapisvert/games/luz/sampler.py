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
from tapisvert.games.luz.observation import DealSummary
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


def _deal_start(
    game: LuzGame,
    deal_index: int,
    scores: tuple[int, ...],
    past: tuple[DealSummary, ...],
    first_player: Seat,
) -> LuzState:
    state = LuzState(game)
    state._deal_index = deal_index
    state._scores = scores
    state._past = past
    state._history = None
    state._start_deal(first_player)
    return state


def _replay_deal(
    state: LuzState,
    hands: list[list[int]],
    bets: tuple[tuple[int, int] | None, ...],
    plays: list[LuzPlay],
) -> LuzState:
    """Deal ``hands`` slot by slot from the deal's first player on, then bet and play."""
    players = len(hands)
    first = state._first
    for index in range(len(hands[0]) * players):
        seat = (first + index) % players
        state.apply_action(hands[seat][index // players])
    for offset in range(players):
        pair = bets[(first + offset) % players]
        if pair is None:
            break
        state.apply_action(bet_action(*pair))
    for play in plays:
        state.apply_action(play_action(play.slot))
    return state


def _finished(game: LuzGame, observation: LuzObservation) -> LuzState:
    """A finished game: every card of the last deal was played in sight, so its hands are
    known; replaying that deal ends the game as it ended (the set-aside cards are the rest
    of the deck, in no order)."""
    last = observation.past_deals[-1]
    scores = tuple(
        total - gained for total, gained in zip(observation.scores, last.points, strict=True)
    )
    state = _deal_start(
        game, observation.deal_index - 1, scores, observation.past_deals[:-1], last.first_player
    )
    plays = [play for trick in last.played for play in trick.plays]
    hands: list[list[int]] = [[PLAYED] * game.hand_size for _ in range(observation.players)]
    for play in plays:
        hands[play.seat][play.slot] = play.card
    return _replay_deal(state, hands, observation.bets, plays)


def sample_state(game: LuzGame, observation: LuzObservation, rng: random.Random) -> LuzState:
    if observation.phase == "first":
        return LuzState(game)  # before the first player is drawn there is nothing hidden
    if observation.phase == "end":
        return _finished(game, observation)
    players = observation.players
    state = _deal_start(
        game,
        observation.deal_index,
        observation.scores,
        observation.past_deals,
        observation.first_player,
    )
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

    return _replay_deal(state, hands, observation.bets, plays)


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
