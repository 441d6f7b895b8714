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

Actions: every set the deck can hold (629), take, decline, keep, discard, draw from the pile,
draw display entry 0–5, and in the duel steal a value 1–12 from the imaginary player.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import cast

from tapisvert.core.game import Observation
from tapisvert.encoding import Encoding, Tensor, scaled, values_of
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
    PHASE_NAMES,
    TAKE,
    AbluxxenGame,
    AbluxxenObservation,
    set_action,
)

SET_SIZE = JOKER_SET_VALUE + 2
DECK = sum(DECK_COUNTS)
MANY_CARDS = 2 * HAND_SIZE
CARD_WEIGHT = 1 / COPIES
PHASES = {name: index for index, name in enumerate(PHASE_NAMES)}


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

    def write(self, tensor: Tensor, observation: Observation) -> None:
        seen = cast(AbluxxenObservation, observation)
        out = values_of(tensor)
        players = self.players
        origin = seen.seat or 0
        out[self.phase.start + PHASES[seen.phase]] = 1.0
        for field, seat in (
            (self.active, seen.active),
            (self.to_act, seen.current_player),
            (self.victim, seen.victim),
            (self.drawer, seen.drawer),
        ):
            if seat is not None and 0 <= seat < players:  # a seat, not chance nor the dummy
                out[field.start + (seat - origin) % players] = 1.0
        out[self.dummy_victim.start] = float(seen.victim == DUMMY)
        for place, size in enumerate(self.by_seat(seen, seen.hand_sizes)):
            out[self.hand_sizes.start + place] = scaled(size, MANY_CARDS)
        groups = [
            (self.hand.start, seen.hand),
            *(
                (self.known.start + place * KINDS, known)
                for place, known in enumerate(self.by_seat(seen, seen.known_in_hand))
            ),
            *(
                (self.display.start + index * KINDS, entry)
                for index, entry in enumerate(seen.display)
            ),
            (self.discard.start, seen.discard),
            (self.in_play.start, seen.in_play),
            (self.dummy.start, seen.dummy),
        ]
        for start, cards in groups:
            for card in cards:
                out[start + card] += CARD_WEIGHT
        for place, stack in enumerate(self.by_seat(seen, seen.stacks)):
            if stack:
                _put_set(out, self.top_sets.start + place * SET_SIZE, stack[-1])
            cards_in_stack = sum(played.size for played in stack)
            out[self.stack_cards.start + place] = scaled(cards_in_stack, MANY_CARDS)
        out[self.pile.start] = seen.pile_size / DECK
        if seen.played is not None:
            _put_set(out, self.played.start, seen.played)
        out[self.draws_left.start] = scaled(seen.draws_left, HAND_SIZE)
        out[self.refill.start] = float(seen.refill_pending)
        for thief in seen.pending_steals:
            place = players if thief == DUMMY else (thief - origin) % players
            out[self.pending.start + place] = 1.0
        for place, score in enumerate(self.by_seat(seen, seen.game_scores)):
            out[self.game_scores.start + place] = scaled(score, DECK)
        for place, score in enumerate(self.by_seat(seen, seen.scores)):
            out[self.scores.start + place] = scaled(score, DECK)
        out[self.game_number.start] = scaled(seen.game_number, 10)


def _put_set(out: MutableSequence[float], start: int, played: CardSet) -> None:
    """A set as its value one-hot, its number cards / 8 and its jokers / 5."""
    out[start + played.value - 1] = 1.0
    out[start + JOKER_SET_VALUE] = played.numbers / COPIES
    out[start + JOKER_SET_VALUE + 1] = played.jokers / JOKERS
