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

from collections.abc import Callable, Iterable, MutableSequence, Sequence
from typing import TypeVar, cast

from tapisvert.core.cache import IdentityCache
from tapisvert.core.game import Observation, Seat, State
from tapisvert.encoding import (
    Encoding,
    Template,
    Templates,
    Tensor,
    block_cache,
    put_block,
    scaled,
    seat_places,
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
PART_KNOWLEDGE, PART_BETS, PART_FINISHED, PART_SCORES, PART_TRICK, PARTS = range(6)
"""The parts of a template (see ``Template``); from ``PARTS`` on, each seat's colours, then
each seat's values."""
H = TypeVar("H")
V = TypeVar("V")


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
        self._colour_blocks = block_cache(COLOURS_PER_HAND, _write_colours)
        self._value_blocks = block_cache(VALUES_PER_HAND, _write_values)
        self._hand_colours = block_cache(COLOURS_PER_HAND, _write_hand_colours)
        """A hand's colours from its card ids, once per hand (a play replaces one)."""
        self._hand_values = block_cache(VALUES_PER_HAND, _write_hand_values)
        self._templates = Templates(self.size, PARTS + 2 * players)
        self._finished = IdentityCache(self._finished_tricks, size=256)

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(LuzObservation, observation)
        self._fill(
            tensor,
            Template.fresh(tensor, PARTS + 2 * self.players),
            seen.seat,
            PHASES[seen.phase],
            seen.deal_index,
            (seen.first_player, seen.current_player, seen.leader),
            seen.colours,
            seen.values,
            (self._colour_blocks, self._value_blocks),
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
            self._templates(state, seat),
            seat,
            state._phase,
            state._deal_index,
            (state._first, state._player, state._leader),
            hands,
            hands,
            (self._hand_colours, self._hand_values),
            () if seat is None else state._knowledge(seat),
            state._bets,
            state._trick,
            state._completed,
            state._scores,
        )

    def _fill(
        self,
        tensor: Tensor,
        template: Template,
        seat: Seat | None,
        phase: int,
        deal_index: int,
        seats: tuple[Seat, Seat, Seat],
        colours: Sequence[H],
        values: Sequence[V],
        blocks: tuple[Callable[[H], Tensor], Callable[[V], Tensor]],
        knowledge: Knowledge,
        bets: Sequence[tuple[int, int] | None],
        trick: Sequence[LuzPlay],
        completed: tuple[LuzTrick, ...],
        scores: Sequence[int],
    ) -> None:
        """Every field, from what an observation holds (seats absolute), as ``write`` and
        ``write_state`` read them: one way to write, whichever the source. Each hand's
        colours and values are blocks that ``blocks`` makes of ``colours[seat]`` and
        ``values[seat]`` (a hand's card ids, or an observation's colours and values); the
        observer's own values are never written (an observation has none).

        The hands, the knowledge, the bets, the tricks and the scores are parts of
        ``template``, written where their object changed; the phase and the seats, on the
        tensor started from it."""
        players = self.players
        places = self._places[seat or 0]
        start = template.tensor
        written = template.out
        stale = template.stale
        colour_block, value_block = blocks
        colours_at, values_at = self.colours.start, self.values.start
        for other, place in enumerate(places):
            if stale(PARTS + other, colours[other]):
                put_block(
                    start, colours_at + place * COLOURS_PER_HAND, colour_block(colours[other])
                )
            if other != seat and seat is not None and stale(PARTS + players + other, values[other]):
                put_block(start, values_at + place * VALUES_PER_HAND, value_block(values[other]))
        if stale(PART_KNOWLEDGE, knowledge):
            start[self.knowledge.start : self.knowledge.stop] = 0.0
            at = self.knowledge.start - 1
            for possible in knowledge:
                for value in possible or ():
                    written[at + value] = 1.0
                at += MAX_VALUE
        if stale(PART_BETS, bets):
            bet_made, bets_at, safety = self.bet_made.start, self.bets.start, self.safety.start
            start[bet_made : self.safety.stop] = 0.0
            for other, bet in enumerate(bets):
                if bet is not None:
                    place = places[other]
                    written[bet_made + place] = 1.0
                    written[bets_at + place] = bet[0] / MAX_BET
                    written[safety + place] = bet[1]
        if stale(PART_FINISHED, completed):
            played, tricks_won = self._finished(completed)
            tricks_at = self.tricks_won.start
            for other, place in enumerate(places):
                written[tricks_at + place] = tricks_won[other] / HAND_SIZE
            if played is None:
                start[self.played.start : self.played.stop] = 0.0
            else:
                put_block(start, self.played.start, played)
        if stale(PART_SCORES, scores):
            scores_at = self.scores.start
            for other, place in enumerate(places):
                written[scores_at + place] = scaled(scores[other], WORST_TOTAL)
        if stale(PART_TRICK, trick):
            start[self.trick.start : self.trick.stop] = 0.0
            for play in trick:
                written[self.trick.start + places[play.seat] * CARD_IDS + play.card] = 1.0
        out = template.copy_to(tensor)
        out[self.phase.start + phase] = 1.0
        out[self.deal.start + deal_index] = 1.0
        for field, other in zip((self.first_player, self.to_act, self.leader), seats, strict=True):
            if 0 <= other < players:  # a seat, not chance or the end
                out[field.start + places[other]] = 1.0

    def _finished_tricks(self, completed: tuple[LuzTrick, ...]) -> tuple[Tensor | None, list[int]]:
        """The ``played`` field and the tricks each seat took of a deal's finished tricks,
        computed once while they are the same."""
        taken = [0] * self.players
        for trick in completed:
            taken[trick.winner] += 1
        return (self._played_blocks(completed) if completed else None), taken


def _write_colours(out: MutableSequence[float], colours: Iterable[int]) -> None:
    """A hand's colours, slot by slot (-1: played)."""
    at = 0
    for colour in colours:
        if colour >= 0:
            out[at + colour] = 1.0
        at += COLOUR_COUNT


def _write_values(out: MutableSequence[float], values: Iterable[int | None]) -> None:
    """A hand's values seen, slot by slot (``None``: played or hidden)."""
    at = -1
    for value in values:
        if value is not None:
            out[at + value] = 1.0
        at += MAX_VALUE


def _write_hand_colours(out: MutableSequence[float], hand: tuple[int, ...]) -> None:
    """A hand's colours, from its card ids (``PLAYED``: none)."""
    _write_colours(out, map(SLOT_COLOUR.__getitem__, hand))


def _write_hand_values(out: MutableSequence[float], hand: tuple[int, ...]) -> None:
    """A hand's values, from its card ids (``PLAYED``: none)."""
    _write_values(out, map(SLOT_VALUE.__getitem__, hand))


def _write_played(out: MutableSequence[float], completed: tuple[LuzTrick, ...]) -> None:
    for trick in completed:
        for play in trick.plays:
            out[play.card] = 1.0
