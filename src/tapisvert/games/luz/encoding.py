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
PHASES = {name: index for index, name in enumerate(PHASE_NAMES)}


class LuzEncoding(Encoding):
    """The tensor of a Luz observation and the compact space of the seats' decisions."""

    def __init__(self, game: LuzGame) -> None:
        super().__init__(
            game,
            range(BET_BASE, ACTION_COUNT),
            chance_actions=FIRST_BASE + game.players,
            # Per deal: every bet and every card of every hand.
            longest_game=DEALS * game.players * (HAND_SIZE + 1),
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
        self._colour_blocks = block_cache(COLOURS_PER_HAND, _write_colours)
        self._value_blocks = block_cache(VALUES_PER_HAND, _write_values)
        self._knowledge_blocks = block_cache(VALUES_PER_HAND, _write_knowledge)
        self._played_blocks = block_cache(CARD_IDS, _write_played)
        self._hand_colours: IdentityCache[tuple[int, ...], Tensor] = block_cache(
            COLOURS_PER_HAND, lambda out, hand: _write_colours(out, map(_slot_colour, hand))
        )
        """A hand's colours, from its cards (which the state replaces when one is played)."""
        self._hand_values: IdentityCache[tuple[int, ...], Tensor] = block_cache(
            VALUES_PER_HAND, lambda out, hand: _write_values(out, map(_slot_value, hand))
        )
        """A hand's values as the other seats see them, from its cards."""
        self._finished = IdentityCache(self._finished_tricks, size=256)

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(LuzObservation, observation)
        self._fill(
            tensor,
            seen.seat or 0,
            PHASES[seen.phase],
            seen.deal_index,
            (seen.first_player, seen.current_player, seen.leader),
            [self._colour_blocks(colours) for colours in seen.colours],
            [self._value_blocks(values) for values in seen.values],
            self._knowledge_blocks(seen.knowledge),
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
            [self._hand_colours(hand) for hand in hands],
            [
                None if other == seat or seat is None else self._hand_values(hand)
                for other, hand in enumerate(hands)
            ],
            None if seat is None else self._knowledge_blocks(state._knowledge(seat)),
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
        colours: Sequence[Tensor],
        values: Sequence[Tensor | None],
        knowledge: Tensor | None,
        bets: Sequence[tuple[int, int] | None],
        trick: Sequence[LuzPlay],
        completed: tuple[LuzTrick, ...],
        scores: Sequence[int],
    ) -> None:
        """Every field, from what an observation holds (seats absolute; each hand's colours
        and seen values, and the seat's knowledge, as blocks), as ``write`` and
        ``write_state`` read them: one way to write, whichever the source."""
        tensor.fill(0.0)
        out = values_of(tensor)
        players = self.players
        places = self._places[origin]
        out[self.phase.start + phase] = 1.0
        out[self.deal.start + deal_index] = 1.0
        for field, seat in zip((self.first_player, self.to_act, self.leader), seats, strict=True):
            if 0 <= seat < players:  # a seat, not chance or the end
                out[field.start + places[seat]] = 1.0
        colours_at, values_at = self.colours.start, self.values.start
        for seat, place in enumerate(places):
            put_block(tensor, colours_at + place * COLOURS_PER_HAND, colours[seat])
            put_block(tensor, values_at + place * VALUES_PER_HAND, values[seat])
        put_block(tensor, self.knowledge.start, knowledge)
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


def _write_colours(out: MutableSequence[float], colours: Iterable[int]) -> None:
    """A hand's colours, slot by slot (a played slot, ``PLAYED``, left zero)."""
    for slot, colour in enumerate(colours):
        if colour >= 0:
            out[slot * COLOUR_COUNT + colour] = 1.0


def _write_values(out: MutableSequence[float], values: Iterable[int | None]) -> None:
    """A hand's values seen, slot by slot (``None``: played or unseen, left zero)."""
    for slot, value in enumerate(values):
        if value is not None:
            out[slot * MAX_VALUE + value - 1] = 1.0


def _write_knowledge(out: MutableSequence[float], knowledge: Knowledge) -> None:
    """The values each slot of the seat's own hand may still have."""
    for slot, possible in enumerate(knowledge):
        for value in possible or ():
            out[slot * MAX_VALUE + value - 1] = 1.0


def _write_played(out: MutableSequence[float], completed: tuple[LuzTrick, ...]) -> None:
    for trick in completed:
        for play in trick.plays:
            out[play.card] = 1.0


def _slot_colour(card: int) -> int:
    return PLAYED if card == PLAYED else colour_of(card)


def _slot_value(card: int) -> int | None:
    return None if card == PLAYED else value_of(card)
