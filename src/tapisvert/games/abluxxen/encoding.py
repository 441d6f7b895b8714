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

from collections.abc import Callable
from typing import Final, cast

from tapisvert.core.game import Observation, Seat, State
from tapisvert.encoding import (
    Blocks,
    Encoding,
    Tensor,
    float_bytes,
    one_hot_blocks,
    scaled,
    seat_blocks,
    seat_places,
    seats_in_order,
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

SET_SIZE: Final = JOKER_SET_VALUE + 2
DECK: Final = sum(DECK_COUNTS)
MANY_CARDS: Final = 2 * HAND_SIZE
CARD_WEIGHT: Final = 1 / COPIES
PHASES: Final = {name: index for index, name in enumerate(PHASE_NAMES)}


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
        self._seat_blocks = seat_blocks(players)
        self._seats_in_order = seats_in_order(players)
        self._no_seat = bytes(4 * players)
        self._no_display = tuple(bytes(4 * KINDS * empty) for empty in range(DISPLAY_SIZE + 1))
        """Zeros for the display's missing entries, by how many are missing."""
        self._steals: Blocks[tuple[Seat, tuple[Seat, ...]]] = Blocks(self._steals_block)

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(AbluxxenObservation, observation)
        self.put(
            tensor,
            self._pieces(
                seen.seat,
                PHASES[seen.phase],
                (seen.active, seen.current_player, seen.victim, seen.drawer),
                None if seen.seat is None else counts_of(seen.hand),
                list(seen.hand_sizes),
                tuple(counts_of(known) for known in seen.known_in_hand),
                seen.stacks,
                stack_sizes(seen.stacks),
                tuple(map(tuple, seen.display)),  # tuples, even in an observation built by hand
                seen.pile_size,
                counts_of(seen.discard),
                tuple(seen.in_play),
                counts_of(seen.dummy),
                seen.played,
                (seen.draws_left, seen.refill_pending),
                tuple(seen.pending_steals),
                list(seen.game_scores),
                list(seen.scores),
                seen.game_number,
            ),
        )

    def write_state(self, tensor: Tensor, state: State, seat: Seat | None) -> None:
        """What ``state.observation(seat)`` holds, read from the state's own fields (the
        cards as the count vectors it keeps): the seat's own hand, and of the others what
        is public."""
        state = cast(AbluxxenState, state)
        hands, stacked = state._hands, state._stacked
        totals = state._finished_totals()
        running = state._phase != PHASE_END
        hand_sizes: list[int] = []  # new hands at most moves: not worth a cache
        game_scores: list[int] = []
        scores: list[int] = []
        for each in range(self.players):  # one loop: compiled, native but for the sums
            held = _cards_in(hands[each])
            game_score = stacked[each] - held
            hand_sizes.append(held)
            game_scores.append(game_score)
            scores.append(totals[each] + game_score if running else totals[each])
        self.put(
            tensor,
            self._pieces(
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
            ),
        )

    def _pieces(
        self,
        seat: Seat | None,
        phase: int,
        seats: tuple[Seat, Seat, Seat | None, Seat | None],
        hand: tuple[int, ...] | None,
        hand_sizes: list[int],
        known: tuple[tuple[int, ...], ...],
        stacks: tuple[tuple[CardSet, ...], ...],
        stacked: tuple[int, ...],
        display: tuple[tuple[int, ...], ...],
        pile_size: int,
        discard: tuple[int, ...],
        in_play: tuple[int, ...],
        dummy: tuple[int, ...],
        played: CardSet | None,
        draws: tuple[int, bool],
        pending_steals: tuple[Seat, ...],
        game_scores: list[int],
        scores: list[int],
        game_number: int,
    ) -> list[bytes]:
        """The tensor's pieces, field by field, from what an observation holds (seats
        absolute, groups of cards as count vectors by kind, ``None`` for no hand), as
        ``write`` and ``write_state`` read them: one way to write, whichever the source. The
        per-seat counts are lists or tuples, not any sequence: compiled, those are read by
        index without a call."""
        origin = seat or 0
        order = self._seats_in_order[origin]
        seat_of, no_seat = self._seat_blocks[origin], self._no_seat
        active, to_act, victim, drawer = seats
        pieces = [
            _PHASES[phase],
            seat_of.get(active, no_seat),
            seat_of.get(to_act, no_seat),
            seat_of.get(-1 if victim is None else victim, no_seat),
            _ONE if victim == DUMMY else _ZERO,
            seat_of.get(-1 if drawer is None else drawer, no_seat),
        ]
        if hand is None:
            pieces.append(_NO_CARDS)
        else:
            pieces += (_HALVES[hand[:HALF_KINDS]], _HALVES[hand[HALF_KINDS:]])
        for other in order:
            pieces.append(_CARD_TOTALS[hand_sizes[other]])
        for other in order:
            pieces.append(_COUNTS[known[other]])
        for other in order:
            stack = stacks[other]
            pieces.append(_SETS[stack[-1]] if stack else _NO_SET)
        for other in order:
            pieces.append(_CARD_TOTALS[stacked[other]])
        for entry in display:
            pieces.append(_CARDS[entry])
        pieces += (
            self._no_display[DISPLAY_SIZE - len(display)],
            _PILE[pile_size],
            _COUNTS[discard],
            _CARDS[in_play],
        )
        if self.dummy.size:
            pieces.append(_COUNTS[dummy])
        pieces += (
            _SETS[played],
            _DRAWS[draws[0]],
            _ONE if draws[1] else _ZERO,
            self._steals[origin, pending_steals],
        )
        for other in order:
            pieces.append(_GAME_SCORES[game_scores[other] + DECK])
        for other in order:
            pieces.append(_SCORE[scores[other]])
        pieces.append(_GAME_NUMBERS[game_number])
        return pieces

    def _steals_block(self, key: tuple[Seat, tuple[Seat, ...]]) -> bytes:
        """The seats still to decide a steal, seen from ``origin``: ``(origin, thieves)``."""
        origin, thieves = key
        places = seat_places(self.players)[origin]
        block = [0.0] * self.pending.size
        for thief in thieves:
            block[self.players if thief == DUMMY else places[thief]] = 1.0
        return float_bytes(block)


def _set_block(played: CardSet | None) -> bytes:
    """A set (or none) as its value one-hot, its number cards / 8 and its jokers / 5."""
    block = [0.0] * SET_SIZE
    if played is not None:
        block[played.value - 1] = 1.0
        block[JOKER_SET_VALUE] = played.numbers / COPIES
        block[JOKER_SET_VALUE + 1] = played.jokers / JOKERS
    return float_bytes(block)


def _counts_block(counts: tuple[int, ...]) -> bytes:
    """A group of cards counted by kind (a hand, the discard pile), 1/8 per card: from the
    blocks of its two halves, which repeat far more often than whole hands do."""
    return _HALVES[counts[:HALF_KINDS]] + _HALVES[counts[HALF_KINDS:]]


def _scalar(convert: Callable[[int], float]) -> Blocks[int]:
    """One value, ``convert(count)``, by the count."""
    return Blocks(lambda count: float_bytes((convert(count),)))


def _counted(convert: Callable[[int], float], lowest: int = 0) -> tuple[bytes, ...]:
    """One value, ``convert(count)``, for each count from ``lowest`` to the deck's cards
    (a count of cards, or a game's score): a tuple, read by index, for a value that the
    deck bounds (a series' scores are not)."""
    return tuple(float_bytes((convert(count),)) for count in range(lowest, DECK + 1))


_cards_in: Final = sum
"""The cards of a count vector; compiled, ``sum`` itself would be looked up among the builtins
at every call."""
HALF_KINDS: Final = KINDS // 2
"""Where a count vector is cut in two, each half looked up alone (see ``_counts_block``)."""
_NO_CARDS: Final = bytes(4 * KINDS)
_PHASES: Final = one_hot_blocks(len(PHASE_NAMES))
_ONE: Final = float_bytes((1.0,))
_ZERO: Final = float_bytes((0.0,))
_HALVES: Final[Blocks[tuple[int, ...]]] = Blocks(
    lambda counts: float_bytes([count * CARD_WEIGHT for count in counts])
)
_COUNTS: Final[Blocks[tuple[int, ...]]] = Blocks(_counts_block)
"""Groups of cards that repeat (the cards known in a hand, the discard pile)."""
_CARDS: Final[Blocks[tuple[int, ...]]] = Blocks(lambda cards: _counts_block(counts_of(cards)))
"""Cards listed by kind (a display entry, the cards in play)."""
_SETS: Final[Blocks[CardSet | None]] = Blocks(_set_block)
_NO_SET: Final = _SETS[None]
_CARD_TOTALS: Final = _counted(lambda cards: cards / MANY_CARDS if cards < MANY_CARDS else 1.0)
"""Cards in a hand or a stack / 26, at most 1."""
_GAME_SCORES: Final = _counted(lambda value: value / DECK, -DECK)
"""A game's score / 109 (within [-109, 109]: the cards laid less those in hand), from
``_GAME_SCORES[score + DECK]``."""
_SCORE: Final = _scalar(lambda value: scaled(value, DECK))
"""A series' score / 109, within [-1, 1]."""
_PILE: Final = _counted(lambda cards: cards / DECK)
_DRAWS: Final = _counted(lambda draws: scaled(draws, HAND_SIZE))
_GAME_NUMBERS: Final = _scalar(lambda number: scaled(number, 10))
