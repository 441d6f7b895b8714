"""Luz observations as tensors (``tapisvert.encoding``).

Layout for P players (``LuzEncoding(game).describe()`` prints it with offsets); seats are
relative to the observer, a hand is its ten slots in deal order, a card one of 5 colours ×
12 values (60):

- ``phase`` (5): one-hot of first, deal, bet, play, end; ``deal`` (5): one-hot deals finished;
- ``first_player``, ``to_act``, ``leader`` (P each): one-hot relative seats;
- ``colours`` (P × 10 × 5): the colour of every held slot (a played slot is all zeros);
- ``values`` (P × 10 × 12): the value of every slot the observer sees — the others' held
  cards, never the observer's own;
- ``knowledge`` (10 × 12): the values each of the observer's own held slots may still have
  (1 for each possible value), as the rules deduce them from what the observer saw;
- ``bet_made``, ``bets``, ``safety`` (P each): whether each seat bet, its bet / 10, its
  safety bead;
- ``tricks_won`` (P): tricks / 10;
- ``trick`` (P × 60): the card each seat put on the current trick;
- ``played`` (60): the cards of the deal's finished tricks;
- ``scores`` (P): totals / 200, the most a game can lose (within [-1, 1]).

``write_state`` reads from the state what the seat's observation would hold (the others'
values, never the seat's own; its knowledge as the rules deduce it), no more, and writes it
through the same code as ``write``: the same values, without building the observation.

Actions: the bets (bet 0–10, with or without the safety bead) and the plays of a slot,
whose ids are compact already (32 in all). The first player is chance, not a decision.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence, Sequence
from typing import cast

from tapisvert.core.cache import IdentityCache
from tapisvert.core.game import Observation, Seat, State
from tapisvert.encoding import (
    Encoding,
    Tensor,
    block_cache,
    put_block,
    scaled,
    seat_places,
    values_of,
)
from tapisvert.games.luz.cards import (
    COLOUR_COUNT,
    DEALS,
    FAIL_POINTS_PER_TRICK,
    HAND_SIZE,
    MAX_VALUE,
    SUCCESS_POINTS,
    colour_of,
    value_of,
)
from tapisvert.games.luz.rules import (
    ACTION_COUNT,
    BET_BASE,
    CARD_IDS,
    FIRST_BASE,
    MAX_BET,
    PHASE_NAMES,
    PLAYED,
    Knowledge,
    LuzGame,
    LuzObservation,
    LuzPlay,
    LuzState,
    LuzTrick,
)

WORST_TOTAL = FAIL_POINTS_PER_TRICK * HAND_SIZE * DEALS
COLOURS_PER_HAND = HAND_SIZE * COLOUR_COUNT
VALUES_PER_HAND = HAND_SIZE * MAX_VALUE
SLOT_COLOUR = (*map(colour_of, range(CARD_IDS)), PLAYED)
"""A slot's colour, by its card; ``PLAYED`` (-1) reads the last entry: played."""
SLOT_VALUE: tuple[int | None, ...] = (*map(value_of, range(CARD_IDS)), None)
"""A slot's value, by its card; ``PLAYED`` (-1) reads the last entry: none."""
PHASES = {name: index for index, name in enumerate(PHASE_NAMES)}


class LuzEncoding(Encoding):
    """The tensor of a Luz observation and the compact space of the seats' decisions."""

    def __init__(self, game: LuzGame) -> None:
        super().__init__(
            game,
            range(BET_BASE, ACTION_COUNT),
            chance_actions=FIRST_BASE + game.players,
            # Per deal: every bet and every card of every hand.
            longest_game=game.deals * game.players * (game.hand_size + 1),
            score_bounds=(-WORST_TOTAL, sum(map(max, SUCCESS_POINTS[0], SUCCESS_POINTS[1]))),
        )
        players = self.players
        slots = players * HAND_SIZE
        self.phase = self.field("phase", len(PHASE_NAMES), "one-hot phase")
        self.deal = self.field("deal", DEALS + 1, "one-hot deals finished")
        self.first_player = self.field("first_player", players, "one-hot relative first player")
        self.to_act = self.field("to_act", players, "one-hot relative seat to act, if a seat")
        self.leader = self.field("leader", players, "one-hot relative leader of the trick")
        self.colours = self.field("colours", slots * COLOUR_COUNT, "colour of each held slot")
        self.values = self.field("values", slots * MAX_VALUE, "value of each slot seen")
        self.knowledge = self.field(
            "knowledge", HAND_SIZE * MAX_VALUE, "values each own held slot may still have"
        )
        self.bet_made = self.field("bet_made", players, "whether each seat has bet")
        self.bets = self.field("bets", players, "each seat's bet / 10")
        self.safety = self.field("safety", players, "each seat's safety bead")
        self.tricks_won = self.field("tricks_won", players, "tricks taken / 10")
        self.trick = self.field("trick", players * CARD_IDS, "the card each seat put on the trick")
        self.played = self.field("played", CARD_IDS, "cards of the deal's finished tricks")
        self.scores = self.field("scores", players, "totals / 200")
        self._places = seat_places(players)
        self._played_blocks = block_cache(CARD_IDS, _write_played)
        self._finished = IdentityCache(self._finished_tricks, size=256)

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(LuzObservation, observation)
        self._fill(
            tensor,
            seen.seat or 0,
            PHASES[seen.phase],
            seen.deal_index,
            (seen.first_player, seen.current_player, seen.leader),
            seen.colours,
            seen.values,
            seen.knowledge,
            seen.bets,
            seen.trick,
            seen.completed_tricks,
            seen.scores,
        )

    def write_state(self, tensor: Tensor, state: State, seat: Seat | None) -> None:
        """What ``state.observation(seat)`` holds, read from the state's own fields: every
        seat's colours, the values of the others' hands, the seat's own knowledge."""
        state = cast(LuzState, state)
        hands = state._hands
        self._fill(
            tensor,
            seat or 0,
            state._phase,
            state._deal_index,
            (state._first, state._player, state._leader),
            [map(SLOT_COLOUR.__getitem__, hand) for hand in hands],
            [
                () if other == seat or seat is None else map(SLOT_VALUE.__getitem__, hand)
                for other, hand in enumerate(hands)
            ],
            () if seat is None else state._knowledge(seat),
            state._bets,
            state._trick,
            state._completed,
            state._scores,
        )

    def _fill(
        self,
        tensor: Tensor,
        origin: Seat,
        phase: int,
        deal_index: int,
        seats: tuple[Seat, Seat, Seat],
        colours: Sequence[Iterable[int]],
        values: Sequence[Iterable[int | None]],
        knowledge: Knowledge,
        bets: Sequence[tuple[int, int] | None],
        trick: Sequence[LuzPlay],
        completed: tuple[LuzTrick, ...],
        scores: Sequence[int],
    ) -> None:
        """Every field, from what an observation holds (seats absolute), as ``write`` and
        ``write_state`` read them: one way to write, whichever the source.

        The hands are written value by value: a move changes one, and a block kept per hand
        would cost more to make than the values to write."""
        tensor.fill(0.0)
        out = values_of(tensor)
        players = self.players
        places = self._places[origin]
        out[self.phase.start + phase] = 1.0
        out[self.deal.start + deal_index] = 1.0
        for field, seat in zip((self.first_player, self.to_act, self.leader), seats, strict=True):
            if 0 <= seat < players:  # a seat, not chance or the end
                out[field.start + places[seat]] = 1.0
        colours_at, values_at = self.colours.start, self.values.start - 1
        for seat, place in enumerate(places):
            at = colours_at + place * COLOURS_PER_HAND
            for colour in colours[seat]:
                if colour >= 0:  # not played
                    out[at + colour] = 1.0
                at += COLOUR_COUNT
            at = values_at + place * VALUES_PER_HAND
            for value in values[seat]:
                if value is not None:  # seen
                    out[at + value] = 1.0
                at += MAX_VALUE
        at = self.knowledge.start - 1
        for possible in knowledge:
            for value in possible or ():
                out[at + value] = 1.0
            at += MAX_VALUE
        bet_made, bets_at, safety = self.bet_made.start, self.bets.start, self.safety.start
        for seat, bet in enumerate(bets):
            if bet is not None:
                place = places[seat]
                out[bet_made + place] = 1.0
                out[bets_at + place] = bet[0] / MAX_BET
                out[safety + place] = bet[1]
        played, tricks_won = self._finished(completed)
        tricks_at, scores_at = self.tricks_won.start, self.scores.start
        for seat, place in enumerate(places):
            out[tricks_at + place] = tricks_won[seat] / HAND_SIZE
            out[scores_at + place] = scaled(scores[seat], WORST_TOTAL)
        for play in trick:
            out[self.trick.start + places[play.seat] * CARD_IDS + play.card] = 1.0
        put_block(tensor, self.played.start, played)

    def _finished_tricks(self, completed: tuple[LuzTrick, ...]) -> tuple[Tensor | None, list[int]]:
        """The ``played`` field and the tricks each seat took of a deal's finished tricks,
        computed once while they are the same."""
        taken = [0] * self.players
        for trick in completed:
            taken[trick.winner] += 1
        return (self._played_blocks(completed) if completed else None), taken


def _write_played(out: MutableSequence[float], completed: tuple[LuzTrick, ...]) -> None:
    for trick in completed:
        for play in trick.plays:
            out[play.card] = 1.0
