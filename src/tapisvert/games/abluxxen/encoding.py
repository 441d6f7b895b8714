"""Abluxxen observations as tensors (``tapisvert.encoding``).

Layout for P players (``AbluxxenEncoding(game).describe()`` prints it with offsets); seats
are relative to the observer; a group of cards is counted by kind (joker, 1–13: 14 values),
1/8 per card; a set is its value one-hot (1–13, then jokers alone), its number cards / 8 and
its jokers / 5:

- ``phase`` (11): one-hot phase;
- ``active``, ``to_act``, ``victim``, ``drawer`` (P each): one-hot relative seats;
- ``dummy_victim`` (1): the imaginary player of the duel is the victim;
- ``hand`` (14): the observer's cards; ``hand_sizes`` (P): / 26;
- ``known_in_hand`` (P × 14): the cards known to be in each seat's hand;
- ``top_sets`` (P × 16): the set on top of each seat's stack; ``stack_cards`` (P): the cards
  in each stack / 26;
- ``display`` (6 × 14): the cards of each display entry; ``pile`` (1): its cards / 109;
- ``discard`` (14), ``in_play`` (14), and in the duel ``dummy`` (14): those cards;
- ``played`` (16): the set on the table;
- ``draws_left`` (1): / 13; ``refill`` (1): the display is to be refilled;
- ``pending_steals`` (P, + 1 in the duel): the seats still to decide a steal;
- ``game_scores``, ``scores`` (P each): this game's and the series' / 109 (within [-1, 1]);
- ``game_number`` (1): / 10, at most 1.

``write_state`` reads from the state what the seat's observation would hold (its own hand
and no other), no more, and writes it through the same code as ``write``: the same values,
without building the observation.

Actions: every set the deck can hold (629), take, decline, keep, discard, draw from the pile,
draw display entry 0–5, and in the duel steal a value 1–12 from the imaginary player.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import cast

from tapisvert.core.game import Observation, Seat, State
from tapisvert.encoding import (
    UNCHANGED,
    UNWRITTEN,
    Encoding,
    Template,
    Tensor,
    scaled,
    seat_places,
)
from tapisvert.games.abluxxen.cards import (
    COPIES,
    DECK_COUNTS,
    DISPLAY_SIZE,
    HAND_SIZE,
    HIGHEST,
    JOKER_SET_VALUE,
    JOKERS,
    KINDS,
    CardSet,
    counts_of,
    legal_sets,
)
from tapisvert.games.abluxxen.rules import (
    DECLINE,
    DISCARD,
    DRAW_DISPLAY_BASE,
    DRAW_PILE,
    DUMMY,
    DUMMY_STEAL_BASE,
    KEEP,
    PHASE_END,
    PHASE_NAMES,
    TAKE,
    AbluxxenGame,
    AbluxxenObservation,
    AbluxxenState,
    set_action,
    stack_sizes,
)

SET_SIZE = JOKER_SET_VALUE + 2
DECK = sum(DECK_COUNTS)
MANY_CARDS = 2 * HAND_SIZE
CARD_WEIGHT = 1 / COPIES
PHASES = {name: index for index, name in enumerate(PHASE_NAMES)}
(
    PART_HAND,
    PART_DISPLAY,
    PART_DISCARD,
    PART_IN_PLAY,
    PART_DUMMY,
    PART_PLAYED,
    PART_STEALS,
    PER_SEAT,
) = range(8)
"""The parts of a template (see ``Template``); from ``PER_SEAT`` on, ``SEAT_PARTS`` per
seat: the cards known in its hand, its stack."""
SEAT_PARTS = 2


class AbluxxenEncoding(Encoding):
    """The tensor of an Abluxxen observation and the compact space of the seats' decisions."""

    def __init__(self, game: AbluxxenGame) -> None:
        steals = range(1, HIGHEST) if game.duel else range(0)
        # A game scores the cards laid minus the cards in hand: within the deck either way.
        # The rules bound neither a game's length (stolen sets go back to hands) nor a series
        # played up to a target.
        games = game.games
        super().__init__(
            game,
            [
                *(set_action(played) for played in legal_sets(DECK_COUNTS)),
                TAKE,
                DECLINE,
                KEEP,
                DISCARD,
                DRAW_PILE,
                *(DRAW_DISPLAY_BASE + index for index in range(DISPLAY_SIZE)),
                *(DUMMY_STEAL_BASE + value for value in steals),
            ],
            chance_actions=max(KINDS, game.players),
            longest_game=None,
            score_bounds=None if games is None else (-DECK * games, DECK * games),
        )
        players = self.players
        self.phase = self.field("phase", len(PHASE_NAMES), "one-hot phase")
        self.active = self.field("active", players, "one-hot relative active seat")
        self.to_act = self.field("to_act", players, "one-hot relative seat to act, if a seat")
        self.victim = self.field("victim", players, "one-hot relative victim, if a seat")
        self.dummy_victim = self.field("dummy_victim", 1, "the imaginary player is the victim")
        self.drawer = self.field("drawer", players, "one-hot relative drawer")
        self.hand = self.field("hand", KINDS, "own cards by kind / 8")
        self.hand_sizes = self.field("hand_sizes", players, "cards in each hand / 26")
        self.known = self.field("known_in_hand", players * KINDS, "known cards in each hand / 8")
        self.top_sets = self.field("top_sets", players * SET_SIZE, "top set of each stack")
        self.stack_cards = self.field("stack_cards", players, "cards in each stack / 26")
        self.display = self.field("display", DISPLAY_SIZE * KINDS, "each display entry / 8")
        self.pile = self.field("pile", 1, "cards in the pile / 109")
        self.discard = self.field("discard", KINDS, "discard pile by kind / 8")
        self.in_play = self.field("in_play", KINDS, "cards in play by kind / 8")
        self.dummy = self.field("dummy", KINDS if game.duel else 0, "imaginary player's cards / 8")
        self.played = self.field("played", SET_SIZE, "the set on the table")
        self.draws_left = self.field("draws_left", 1, "draws left / 13")
        self.refill = self.field("refill", 1, "the display is to be refilled")
        self.pending = self.field(
            "pending_steals", players + game.duel, "seats still to decide a steal"
        )
        self.game_scores = self.field("game_scores", players, "this game's scores / 109")
        self.scores = self.field("scores", players, "the series' totals / 109")
        self.game_number = self.field("game_number", 1, "game of the series / 10")
        self._places = seat_places(players)
        self._group_starts = (
            self.hand.start,
            self.known.start,
            self.top_sets.start,
            self.display.start,
            self.discard.start,
        )
        self._templates = self.templates(PER_SEAT + SEAT_PARTS * players)

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(AbluxxenObservation, observation)
        self._fill(
            tensor,
            Template.fresh(tensor, PER_SEAT + SEAT_PARTS * self.players),
            seen.seat,
            PHASES[seen.phase],
            (seen.active, seen.current_player, seen.victim, seen.drawer),
            counts_of(seen.hand),
            seen.hand_sizes,
            tuple(counts_of(known) for known in seen.known_in_hand),
            seen.stacks,
            stack_sizes(seen.stacks),
            seen.display,
            seen.pile_size,
            counts_of(seen.discard),
            seen.in_play,
            counts_of(seen.dummy),
            seen.played,
            (seen.draws_left, seen.refill_pending),
            seen.pending_steals,
            seen.game_scores,
            seen.scores,
            seen.game_number,
        )

    def write_state(self, tensor: Tensor, state: State, seat: Seat | None) -> None:
        """What ``state.observation(seat)`` holds, read from the state's own fields (the
        cards as the count vectors it keeps): the seat's own hand, and of the others what
        is public."""
        state = cast(AbluxxenState, state)
        hands = state._hands
        hand_sizes = [*map(sum, hands)]  # new hands at most moves: not worth a cache
        stacked = state._stacked
        game_scores = [cards - held for cards, held in zip(stacked, hand_sizes, strict=True)]
        scores = state._finished_totals()
        if state._phase != PHASE_END:
            scores = tuple(total + game for total, game in zip(scores, game_scores, strict=True))
        self._fill(
            tensor,
            self._templates(state, seat),
            seat,
            state._phase,
            (state._active, state._player, state._victim, state._drawer),
            None if seat is None else hands[seat],
            hand_sizes,
            state._known,
            state._stacks,
            stacked,
            state._display,
            sum(state._pile),
            state._discard,
            state._in_play,
            state._dummy,
            state._played,
            (state._draws_left, state._refill),
            state._steals,
            game_scores,
            scores,
            state._game_index + 1,
        )

    def _fill(
        self,
        tensor: Tensor,
        template: Template,
        seat: Seat | None,
        phase: int,
        seats: tuple[Seat, Seat, Seat | None, Seat | None],
        hand: tuple[int, ...] | None,
        hand_sizes: Sequence[int],
        known: tuple[tuple[int, ...], ...],
        stacks: tuple[tuple[CardSet, ...], ...],
        stacked: Sequence[int],
        display: tuple[tuple[int, ...], ...],
        pile_size: int,
        discard: tuple[int, ...],
        in_play: Sequence[int],
        dummy: tuple[int, ...],
        played: CardSet | None,
        draws: tuple[int, bool],
        pending_steals: Sequence[Seat],
        game_scores: Sequence[int],
        scores: Sequence[int],
        game_number: int,
    ) -> None:
        """Every field, from what an observation holds (seats absolute, groups of cards as
        count vectors by kind, ``None`` for no hand), as ``write`` and ``write_state`` read
        them: one way to write, whichever the source.

        The groups of cards, the stacks' top sets, the set on the table and the pending
        steals are parts of ``template``, written where their object changed; the seats and
        counts, on the tensor started from it."""
        players = self.players
        places = self._places[seat or 0]
        hand_at, known_at, top_sets, display_at, discard_at = self._group_starts
        written = template.out
        template.write_counts(PART_HAND, () if hand is None else hand, hand_at, CARD_WEIGHT)
        for other, place in enumerate(places):
            part = PER_SEAT + other * SEAT_PARTS
            template.write_counts(part, known[other], known_at + place * KINDS, CARD_WEIGHT)
            stack = stacks[other]
            top = stack[-1] if stack else None
            was = template.previous(part + 1, top)
            if was is not UNCHANGED:
                _put_set(written, top_sets + place * SET_SIZE, was, top)
        was = template.previous(PART_DISPLAY, display)
        if was is not UNCHANGED:
            _put_display(written, display_at, () if was is UNWRITTEN else was, display)
        template.write_counts(PART_DISCARD, discard, discard_at, CARD_WEIGHT)
        if template.previous(PART_IN_PLAY, in_play) is not UNCHANGED:
            template.clear(self.in_play.start, self.in_play.stop)
            in_play_at = self.in_play.start
            for card in in_play:
                written[in_play_at + card] += CARD_WEIGHT
        if self.dummy.size:
            template.write_counts(PART_DUMMY, dummy, self.dummy.start, CARD_WEIGHT)
        was = template.previous(PART_PLAYED, played)
        if was is not UNCHANGED:
            _put_set(written, self.played.start, was, played)
        if template.previous(PART_STEALS, pending_steals) is not UNCHANGED:
            template.clear(self.pending.start, self.pending.stop)
            for thief in pending_steals:
                written[self.pending.start + (players if thief == DUMMY else places[thief])] = 1.0
        out = template.copy_to(tensor)
        out[self.phase.start + phase] = 1.0
        for field, seated in zip(
            (self.active, self.to_act, self.victim, self.drawer), seats, strict=True
        ):
            if seated is not None and 0 <= seated < players:  # a seat, not chance nor the dummy
                out[field.start + places[seated]] = 1.0
        if seats[2] == DUMMY:
            out[self.dummy_victim.start] = 1.0
        hand_sizes_at, stack_cards = self.hand_sizes.start, self.stack_cards.start
        game_scores_at, scores_at = self.game_scores.start, self.scores.start
        for other, place in enumerate(places):
            held = hand_sizes[other]
            out[hand_sizes_at + place] = held / MANY_CARDS if held < MANY_CARDS else 1.0
            cards = stacked[other]
            out[stack_cards + place] = cards / MANY_CARDS if cards < MANY_CARDS else 1.0
            # ``scaled``, written out: it is called eight times a tensor otherwise.
            game_score, score = game_scores[other] / DECK, scores[other] / DECK
            out[game_scores_at + place] = (
                game_score if -1.0 <= game_score <= 1.0 else scaled(game_score, 1.0)
            )
            out[scores_at + place] = score if -1.0 <= score <= 1.0 else scaled(score, 1.0)
        out[self.pile.start] = pile_size / DECK
        out[self.draws_left.start] = scaled(draws[0], HAND_SIZE)
        if draws[1]:
            out[self.refill.start] = 1.0
        out[self.game_number.start] = scaled(game_number, 10)


def _put_set(out: MutableSequence[float], at: int, was: object, played: CardSet | None) -> None:
    """A set (or none) as its value one-hot, its number cards / 8 and its jokers / 5, from
    ``at`` on, where the set ``was`` (or ``None``, or ``UNWRITTEN``: zeros) was written."""
    if isinstance(was, CardSet):
        out[at + was.value - 1] = 0.0
    if played is None:
        out[at + JOKER_SET_VALUE] = out[at + JOKER_SET_VALUE + 1] = 0.0
        return
    out[at + played.value - 1] = 1.0
    out[at + JOKER_SET_VALUE] = played.numbers / COPIES
    out[at + JOKER_SET_VALUE + 1] = played.jokers / JOKERS


def _put_display(
    out: MutableSequence[float],
    at: int,
    was: object,
    display: tuple[tuple[int, ...], ...],
) -> None:
    """Each display entry's cards, 1/8 per card, from ``at`` on, where the display ``was``
    written: only the entries that are not the same objects as before (a card added to an
    entry, one taken, the entries after it moved up)."""
    before = cast(tuple[tuple[int, ...], ...], was)
    for index in range(max(len(before), len(display))):
        old = before[index] if index < len(before) else ()
        entry = display[index] if index < len(display) else ()
        if old is not entry:
            for card in old:
                out[at + card] = 0.0
            for card in entry:
                out[at + card] += CARD_WEIGHT
        at += KINDS
