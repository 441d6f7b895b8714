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

from typing import Final, NamedTuple, cast

from librt.vecs import vec
from mypy_extensions import i32

from tapisvert.core.game import Observation, Seat, State
from tapisvert.encoding import (
    ONE_BITS,
    UNCHANGED,
    UNWRITTEN,
    Encoding,
    SlotRun,
    Template,
    Tensor,
    appended,
    float32_bits,
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
    Knowledge,
    LuzGame,
    LuzObservation,
    LuzPlay,
    LuzState,
    LuzTrick,
)

WORST_TOTAL: Final = FAIL_POINTS_PER_TRICK * HAND_SIZE * DEALS
COLOURS_PER_HAND: Final = HAND_SIZE * COLOUR_COUNT
VALUES_PER_HAND: Final = HAND_SIZE * MAX_VALUE
CARD_COLOUR_AT: Final = (*map(colour_of, range(CARD_IDS)), -1)
"""Where a slot's card sets its colour within the slot's run, by card id; ``PLAYED`` (-1)
reads the last entry: nowhere."""
CARD_VALUE_AT: Final = (*(value_of(card) - 1 for card in range(CARD_IDS)), -1)
"""Where a slot's card sets its value within the slot's run, by card id (-1: nowhere)."""
COLOUR_AT: Final = (*range(COLOUR_COUNT), -1)
"""The same by an observation's colour (-1: played)."""
VALUE_AT: Final = (-1, *range(MAX_VALUE), -1)
"""The same by an observation's value, 1 to 12 (-1: played or unseen)."""
PHASES: Final = {name: index for index, name in enumerate(PHASE_NAMES)}
BET_BITS: Final = tuple(float32_bits(bet / MAX_BET) for bet in range(MAX_BET + 1))
"""A bet's value (bet / 10) as a template holds it: float32 bits."""
TRICKS_BITS: Final = tuple(float32_bits(taken / HAND_SIZE) for taken in range(HAND_SIZE + 1))
"""Tricks taken (/ 10) as a template holds them."""


class HandRuns(NamedTuple):
    """Where a hand's slots are written (see ``Template.write_slots``)."""

    colours: tuple[SlotRun, ...]
    values: tuple[SlotRun, ...]
    """Empty for the observer's own hand, and for a spectator."""
    both: tuple[SlotRun, ...]
    """The two at once, from a hand's card ids."""


PART_KNOWLEDGE: Final = 0
PART_BETS: Final = 1
PART_FINISHED: Final = 2
PART_SCORES: Final = 3
PART_TRICK: Final = 4
PART_DEALT: Final = 5
PARTS: Final = 6
"""The parts of a template (see ``Template``); from ``PARTS`` on, each seat's colours, then
each seat's values. ``PART_DEALT`` writes nothing: the deal the hands were written from."""


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
        self._state_runs = self._hand_runs(CARD_COLOUR_AT, CARD_VALUE_AT)
        self._seen_runs = self._hand_runs(COLOUR_AT, VALUE_AT)
        self._templates = self.templates(PARTS + 2 * players)

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(LuzObservation, observation)
        self._fill(
            tensor,
            Template.fresh(PARTS + 2 * self.players, self.size),
            seen.seat,
            PHASES[seen.phase],
            seen.deal_index,
            (seen.first_player, seen.current_player, seen.leader),
            seen.colours,
            tuple(tuple(-1 if value is None else value for value in hand) for hand in seen.values),
            None,
            self._seen_runs[seen.seat],
            seen.knowledge,
            seen.bets,
            seen.trick,
            seen.completed_tricks,
            seen.tricks_won,
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
            state._dealt,
            self._state_runs[seat],
            () if seat is None else state._knowledge(seat),
            state._bets,
            state._trick,
            state._completed,
            state._tricks_won,
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
        colours: tuple[tuple[int, ...], ...],
        values: tuple[tuple[int, ...], ...],
        dealt: object,
        runs: tuple[HandRuns, ...],
        knowledge: Knowledge,
        bets: tuple[tuple[int, int] | None, ...],
        trick: tuple[LuzPlay, ...],
        completed: tuple[LuzTrick, ...],
        tricks_won: tuple[int, ...],
        scores: tuple[int, ...],
    ) -> None:
        """Every field, from what an observation holds (seats absolute), as ``write`` and
        ``write_state`` read them: one way to write, whichever the source. Each slot of
        ``colours[seat]`` and ``values[seat]`` (a hand's card ids, or an observation's
        colours and values, -1 for none) sets its colour and value where ``runs[seat]``
        say; the observer's own values are never written (an observation has none). Where
        ``colours`` is ``values`` (the state's hands, of the deal ``dealt``), each hand is
        written once for both (see ``_write_hands``).

        The hands, the knowledge, the bets, the tricks and the scores are parts of
        ``template``, written again where their object changed, and of a hand, the
        knowledge and the tricks, only what changed; the phase and the seats, on the tensor
        started from it."""
        players = self.players
        places = self._places[seat or 0]
        written = template.bits
        if colours is values:
            self._write_hands(template, colours, dealt, runs, completed, trick)
        else:
            for other in range(players):
                colour_runs, value_runs, _ = runs[other]
                template.write_slots(PARTS + other, colours[other], colour_runs)
                if value_runs:
                    template.write_slots(PARTS + players + other, values[other], value_runs)
        was = template.previous(PART_KNOWLEDGE, knowledge)
        if was is not UNCHANGED:
            self._write_knowledge(written, was, knowledge)
        if template.previous(PART_BETS, bets) is not UNCHANGED:
            bet_made, bets_at, safety = self.bet_made.start, self.bets.start, self.safety.start
            template.clear(bet_made, self.safety.stop)
            for other, bet in enumerate(bets):
                if bet is not None:
                    place = places[other]
                    written[bet_made + place] = ONE_BITS
                    written[bets_at + place] = BET_BITS[bet[0]]
                    written[safety + place] = ONE_BITS if bet[1] else 0
        was = template.previous(PART_FINISHED, completed)
        if was is not UNCHANGED:
            tricks_at = self.tricks_won.start
            for other, taken in enumerate(tricks_won):
                written[tricks_at + places[other]] = TRICKS_BITS[taken]
            played_at = self.played.start
            finished = appended(was, completed)
            if finished is None:
                template.clear(self.played.start, self.played.stop)
                finished = completed
            for each in finished:
                for play in each.plays:
                    written[played_at + play.card] = ONE_BITS
        was = template.previous(PART_TRICK, trick)
        if was is not UNCHANGED:
            trick_at = self.trick.start
            plays = appended(was, trick)
            if plays is None:
                assert isinstance(was, tuple)  # as a cast, less a call: the plays written
                written_plays: tuple[LuzPlay, ...] = was  # compiled, read as what they are
                for play in written_plays:
                    written[trick_at + places[play.seat] * CARD_IDS + play.card] = 0
                plays = trick
            for play in plays:
                written[trick_at + places[play.seat] * CARD_IDS + play.card] = ONE_BITS
        if template.previous(PART_SCORES, scores) is not UNCHANGED:
            scores_at = self.scores.start
            for other, place in enumerate(places):
                written[scores_at + place] = float32_bits(scaled(scores[other], WORST_TOTAL))
        out = template.copy_to(tensor)
        out[self.phase.start + phase] = 1.0
        out[self.deal.start + deal_index] = 1.0
        seats_at = (self.first_player.start, self.to_act.start, self.leader.start)
        for index in range(3):
            other = seats[index]
            if 0 <= other < players:  # a seat, not chance or the end
                out[seats_at[index] + places[other]] = 1.0

    def _hand_runs(
        self, colour_at: tuple[int, ...], value_at: tuple[int, ...]
    ) -> dict[Seat | None, tuple[HandRuns, ...]]:
        """For each observer (``None``: a spectator), each seat's runs of slots: its colours
        at the seat's place, its values there unless the hand is the observer's own (or the
        observer a spectator, who sees none), both together, by ``colour_at`` and
        ``value_at`` (the offsets of a card id, or of an observation's colour and value)."""
        runs: dict[Seat | None, tuple[HandRuns, ...]] = {}
        for seat in (None, *range(self.players)):
            hands = []
            for other, place in enumerate(self._places[seat or 0]):
                colours = (
                    (self.colours.start + place * COLOURS_PER_HAND, COLOUR_COUNT, colour_at),
                )
                values: tuple[SlotRun, ...] = (
                    ()
                    if seat is None or other == seat
                    else ((self.values.start + place * VALUES_PER_HAND, MAX_VALUE, value_at),)
                )
                hands.append(HandRuns(colours, values, colours + values))
            runs[seat] = tuple(hands)
        return runs

    def _write_hands(
        self,
        template: Template,
        hands: tuple[tuple[int, ...], ...],
        dealt: object,
        runs: tuple[HandRuns, ...],
        completed: tuple[LuzTrick, ...],
        trick: tuple[LuzPlay, ...],
    ) -> None:
        """Each hand's colours, and values where ``runs`` say. Within a deal a hand changes
        only by the cards played from it: where the template's hands are of the same deal
        (``dealt``, the same object) and the tricks now hold those it was written with and
        more, only the slots played since are cleared, as the new plays name them, without
        comparing every slot of every hand; otherwise (a new deal, mostly) every hand is
        written again on zeros."""
        sources = template.sources
        if sources[PART_DEALT] is dealt:
            plays = plays_since(sources[PART_FINISHED], sources[PART_TRICK], completed, trick)
            if plays is not None:
                bits = template.bits
                for seat, slot, card in plays:
                    for start, width, offsets in runs[seat].both:
                        offset = offsets[card]
                        if offset >= 0:
                            bits[start + slot * width + offset] = 0
                for other in range(self.players):
                    sources[PARTS + other] = hands[other]
                return
        sources[PART_DEALT] = dealt
        for other in range(self.players):  # each slot's card changed since: written again
            template.write_slots(PARTS + other, hands[other], runs[other].both)

    def _write_knowledge(self, written: vec[i32], was: object, knowledge: Knowledge) -> None:
        """The values each own slot may hold, written again for the slots whose possible
        values changed since ``was`` (the knowledge the run holds, or ``UNWRITTEN``)."""
        before: Knowledge = (
            cast(Knowledge, was) if was is not UNWRITTEN else (None,) * len(knowledge)
        )
        if len(before) != len(knowledge):  # a new deal, or none yet
            at = self.knowledge.start - 1
            for possible in before:
                for value in possible or ():
                    written[at + value] = 0
                at += MAX_VALUE
            before = (None,) * len(knowledge)
        at = self.knowledge.start - 1
        for slot in range(len(knowledge)):  # indices: a zip would be a call of its own
            old, possible = before[slot], knowledge[slot]
            if old is not possible and old != possible:
                for value in old or ():
                    written[at + value] = 0
                for value in possible or ():
                    written[at + value] = ONE_BITS
            at += MAX_VALUE


def plays_since(
    was_completed: object,
    was_trick: object,
    completed: tuple[LuzTrick, ...],
    trick: tuple[LuzPlay, ...],
) -> tuple[LuzPlay, ...] | None:
    """The cards played since the deal's tricks were ``was_completed`` and ``was_trick``,
    where the tricks now are those and these plays; ``None`` where they are not."""
    finished = appended(was_completed, completed)
    if finished is None:
        return None
    if not finished:
        return appended(was_trick, trick)
    opened = appended(was_trick, finished[0].plays)
    if opened is None:
        return None
    plays = list(opened)
    for each in finished[1:]:
        plays += each.plays
    plays += trick
    return tuple(plays)
