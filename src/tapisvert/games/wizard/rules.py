"""Wizard's rules as a state machine (for players: ``rules.en.md``, ``rules.fr.md``).

A round is: one chance step per dealt card, one chance step for the turned trump
card (unless every card is dealt), the dealer's trump choice after a turned Wizard,
one bid per seat from the dealer's left, then the tricks. A game that leaves the
first dealer to chance starts with one chance step that names the dealer.
"""

from __future__ import annotations

import random
from typing import Any, Final

from tapisvert.core.chance import draw
from tapisvert.core.errors import IllegalActionError, OptionError
from tapisvert.core.game import (
    CHANCE,
    TERMINAL,
    Action,
    Game,
    OptionSpec,
    Seat,
    State,
    parse_bool,
    parse_int_between,
    parse_optional_seat,
)
from tapisvert.core.notation import ascii_number
from tapisvert.games.wizard.cards import (
    CARD_PARTS,
    CARD_UNIT,
    COPIES_OF_SPECIALS,
    DECK_SIZE,
    FOLLOW_OPEN,
    HAND_PARTS,
    JESTER,
    KINDS,
    NO_TRUMP,
    PLAY_EFFECTS,
    SPECIAL_TABLE,
    SPECIALS,
    SUIT_CARDS,
    SUIT_LETTERS,
    SUIT_TABLES,
    SUITS,
    VALUES,
    WIZARD,
    card_count,
    card_to_string,
    cards_in,
    hand_parts,
    holds,
    joined_hand,
    kinds_in,
    part_count,
    part_kinds,
    reduced_deck,
    round_score,
    string_to_card,
    string_to_suit,
    suit_kinds,
    suit_name,
)
from tapisvert.games.wizard.observation import CompletedTrick as CompletedTrick
from tapisvert.games.wizard.observation import (
    PastRound,
    Trick,
    hand_json,
    named_rounds,
    named_tricks,
    shown_json,
)
from tapisvert.games.wizard.observation import WizardObservation as WizardObservation
from tapisvert.i18n import message

BID_BASE: Final = KINDS
MAX_BID: Final = DECK_SIZE // 3
TRUMP_BASE: Final = BID_BASE + MAX_BID + 1
DEALER_BASE: Final = TRUMP_BASE + SUITS
ACTION_COUNT: Final = DEALER_BASE + 6
BID_ACTIONS: Final = tuple(
    tuple(range(BID_BASE, BID_BASE + cards + 1)) for cards in range(MAX_BID + 1)
)
"""The bids open in a round of so many cards (a copy of a table, not a ``range`` made)."""

TRUMP_UNDECIDED: Final = -2

PHASE_DEALER: Final = 0
PHASE_DEAL: Final = 1
PHASE_TURN: Final = 2
PHASE_TRUMP: Final = 3
PHASE_BID: Final = 4
PHASE_PLAY: Final = 5
PHASE_END: Final = 6
PHASE_NAMES: Final = ("dealer", "deal", "turn", "trump", "bid", "play", "end")
_PHASE_VERBS: Final = ("dealer", "deal", "turn", "trump", "bid", "play", "")

SHORT_GAMES: Final[dict[str, dict[int, tuple[int, ...]]]] = {
    "first5": dict.fromkeys(range(3, 7), (1, 2, 3, 4, 5)),
    "first7": dict.fromkeys(range(3, 7), (1, 2, 3, 4, 5, 6, 7)),
    "special6": {3: (1, 2, 4, 11, 16, 20), 4: (1, 2, 3, 9, 13, 15)},
}
"""The published 4-player special 6 ends with 16 cards a hand, 64 of the 60: its last round
here is 15, the most four hands can hold."""


MAX_ROUNDS: Final = DECK_SIZE
"""Three whole games at the fewest players: a longer list of rounds is a mistake."""


def parse_rounds(value: object) -> str:
    """``all``, ``first5``, ``first7``, ``special6`` or a list of round numbers like ``1,5,12``."""
    text = str(value).strip().lower().replace(" ", "")
    if text == "all" or text in SHORT_GAMES:
        return text
    numbers = [ascii_number(part) for part in text.split(",")]
    if len(numbers) > MAX_ROUNDS:
        raise ValueError(f"at most {MAX_ROUNDS} rounds")
    if all(number is not None and number >= 1 for number in numbers):
        return ",".join(str(number) for number in numbers)
    raise ValueError("expected all, first5, first7, special6 or round numbers such as 1,5,12")


def bid_action(bid: int) -> Action:
    return BID_BASE + bid


def trump_action(suit: int) -> Action:
    return TRUMP_BASE + suit


def dealer_action(seat: Seat) -> Action:
    return DEALER_BASE + seat


class WizardGame(Game["WizardState"]):
    """Wizard for 3 to 6 players, with the variants of the spec as options (all off).

    ``suit_values`` and ``specials`` shrink the deck, and with a small enough deck two may
    play: the same game made small enough for exact analysis (OpenSpiel's CFR and best
    responses), not a variant of the published rules.
    """

    name = "wizard"
    observation_class = WizardObservation
    sampler = "tapisvert.games.wizard.sampler"
    min_players = 2
    max_players = 6
    default_players = 3
    option_specs = (
        OptionSpec("canadian", False, parse_bool, "wizard.option.canadian", "bool"),
        OptionSpec("hidden_bids", False, parse_bool, "wizard.option.hidden_bids", "bool"),
        OptionSpec(
            "rounds", "all", parse_rounds, "wizard.option.rounds", "text", ("all", *SHORT_GAMES)
        ),
        OptionSpec("first_dealer", None, parse_optional_seat, "wizard.option.first_dealer", "seat"),
        OptionSpec(
            "suit_values",
            VALUES,
            parse_int_between(1, VALUES),
            "wizard.option.suit_values",
            "int",
            minimum=1,
            maximum=VALUES,
            shrinks=True,
        ),
        OptionSpec(
            "specials",
            COPIES_OF_SPECIALS,
            parse_int_between(0, COPIES_OF_SPECIALS),
            "wizard.option.specials",
            "int",
            minimum=0,
            maximum=COPIES_OF_SPECIALS,
            shrinks=True,
        ),
    )

    def __init__(self, players: int, **options: object) -> None:
        super().__init__(players, **options)
        self.canadian = bool(self.options["canadian"])
        self.hidden_bids = bool(self.options["hidden_bids"])
        if self.canadian and self.hidden_bids:
            raise OptionError("wizard.error.canadian_hidden")
        self.deck = reduced_deck(
            int(str(self.options["suit_values"])), int(str(self.options["specials"]))
        )
        self.deck_size = card_count(self.deck)
        self.deck_cards: tuple[int, ...] = tuple(cards_in(self.deck))
        last_round = self.deck_size // players
        if last_round > MAX_BID:
            raise OptionError(
                "wizard.error.deck_too_big", players=players, most=MAX_BID * players + players - 1
            )
        if last_round == 0:
            raise OptionError("wizard.error.deck_too_small", players=players)
        rounds = str(self.options["rounds"])
        if rounds == "all":
            self.round_numbers: tuple[int, ...] = tuple(range(1, last_round + 1))
        elif rounds in SHORT_GAMES:
            if players not in SHORT_GAMES[rounds]:
                raise OptionError("wizard.error.short_game_players", rounds=rounds, players=players)
            self.round_numbers = SHORT_GAMES[rounds][players]
        else:
            self.round_numbers = tuple(int(part) for part in rounds.split(","))
        if max(self.round_numbers) > last_round:  # a smaller deck may not deal a short game
            raise OptionError("wizard.error.round_too_big", players=players, last=last_round)
        self.first_dealer = self.seat_option("first_dealer")

    def new_initial_state(self, seed: int | None = None) -> WizardState:
        return WizardState(self, seed)


class WizardState(State):
    """A Wizard position. The deck is an int, each hand five (see ``cards``)."""

    def __init__(self, game: WizardGame, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self._game = game  # ``game`` as Wizard's: compiled, an attribute keeps its base's type
        players = game.players
        self._players = players
        self._round_index = 0
        self._scores: tuple[int, ...] = (0,) * players
        self._past_rounds: tuple[PastRound, ...] = ()
        self._start_round(0 if game.first_dealer is None else game.first_dealer)
        if game.first_dealer is None:
            self._phase = PHASE_DEALER

    def _start_round(self, dealer: Seat) -> None:
        players = self._players
        self._dealer = dealer
        self._cards = self._game.round_numbers[self._round_index]
        self._deck = self._game.deck
        self._dealt = 0
        self._hands = [[0] * HAND_PARTS for _ in range(players)]  # each seat's hand in parts
        self._trump_card = -1
        self._trump = TRUMP_UNDECIDED
        self._bids: tuple[int, ...] = (-1,) * players
        self._trick: list[int] = []
        self._leader = (dealer + 1) % players
        self._follow = FOLLOW_OPEN
        self._plays = PLAY_EFFECTS[NO_TRUMP]
        self._best = 0  # the strength of the card that holds the trick so far
        self._taker = 0  # the seat that played it
        self._completed: tuple[Trick, ...] = ()
        self._phase = PHASE_DEAL
        self._player = CHANCE

    def clone(self) -> WizardState:
        twin = self._bare_clone()
        twin._game = self._game
        twin._players = self._players
        twin._round_index = self._round_index
        twin._scores = self._scores
        twin._past_rounds = self._past_rounds
        twin._dealer = self._dealer
        twin._cards = self._cards
        twin._deck = self._deck
        twin._dealt = self._dealt
        twin._hands = [hand.copy() for hand in self._hands]
        twin._trump_card = self._trump_card
        twin._trump = self._trump
        twin._bids = self._bids
        twin._trick = self._trick.copy()
        twin._leader = self._leader
        twin._follow = self._follow
        twin._plays = self._plays
        twin._best = self._best
        twin._taker = self._taker
        twin._completed = self._completed
        twin._phase = self._phase
        twin._player = self._player
        return twin

    # -- the contract --------------------------------------------------------------

    def current_player(self) -> Seat:
        return self._player

    def is_terminal(self) -> bool:
        return self._player == TERMINAL

    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase == PHASE_PLAY:
            hand = self._hands[self._player]
            follow = self._follow
            if follow < SUITS:
                following = SUIT_TABLES[follow][hand[follow]]
                if following:
                    specials = hand[SPECIALS]
                    if not specials:
                        return [*following]
                    return [*following, *SPECIAL_TABLE[specials]]
            return part_kinds(hand)
        if phase == PHASE_BID:
            bids = [*BID_ACTIONS[self._cards]]
            if self._game.canadian:
                forbidden = self._forbidden_bid()
                if forbidden >= 0:
                    bids.remove(BID_BASE + forbidden)
            return bids
        if phase in (PHASE_DEAL, PHASE_TURN):
            return kinds_in(self._deck)
        if phase == PHASE_TRUMP:
            return [TRUMP_BASE + suit for suit in range(SUITS)]
        if phase == PHASE_DEALER:
            return [DEALER_BASE + seat for seat in range(self._players)]
        return []

    def public_action(self, action: Action) -> bool:
        """A card played, a trump chosen, a bid unless bids are hidden: all in the open."""
        phase = self._phase
        if phase == PHASE_BID:
            return not self._game.hidden_bids
        return phase in (PHASE_PLAY, PHASE_TRUMP)

    def _forbidden_bid(self) -> int:
        """The bid the dealer may not make under the Canadian rule, else -1."""
        if not self._game.canadian or self._player != self._dealer:
            return -1
        forbidden = self._cards - sum(bid for bid in self._bids if bid > 0)
        return forbidden if forbidden >= 0 else -1

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        phase = self._phase
        if phase == PHASE_DEALER:
            return [(DEALER_BASE + seat, 1 / self._players) for seat in range(self._players)]
        if phase in (PHASE_DEAL, PHASE_TURN):
            deck = self._deck
            remaining = card_count(deck)
            return [
                (card, (deck >> (52 if card == WIZARD else 55) & 7) / remaining)
                if card >= SUIT_CARDS
                else (card, 1 / remaining)
                for card in kinds_in(deck)
            ]
        return []

    def apply_action(self, action: Action) -> None:
        if self._phase != PHASE_PLAY:
            self._apply_other(action)
            self._history = (self._history, action)
            return
        # Playing a card: the hot path of every playout, written out flat.
        player = self._player
        if not 0 <= action < KINDS:
            raise IllegalActionError("wizard.error.not_in_hand", card=str(action))
        part, held, unit, forbidding, follow, strength = self._plays[self._follow][action]
        hand = self._hands[player]
        cards = hand[part]
        if not cards & held or (forbidding >= 0 and hand[forbidding]):
            raise self._illegal_card(action)
        self._history = (self._history, action)
        hand[part] = cards - unit
        self._follow = follow
        trick = self._trick
        if not trick or strength > self._best:
            self._best = strength
            self._taker = player
        trick.append(action)
        players = self._players
        if len(trick) < players:
            self._player = player + 1 if player + 1 < players else 0
            return
        winner = self._taker  # the trick is complete
        finished = (self._leader, tuple(trick), winner)
        self._completed = self._completed + (finished,)  # noqa: RUF005 (compiled, one concatenation)
        if len(self._completed) == self._cards:
            self._end_round()
            return
        self._trick = []
        self._follow = FOLLOW_OPEN
        self._leader = winner
        self._player = winner

    def _illegal_card(self, card: int) -> IllegalActionError:
        """Why the player to move may not play ``card``: not held, or the suit must be followed."""
        hand = joined_hand(self._hands[self._player])
        follow = self._follow
        if not holds(hand, card):
            return IllegalActionError("wizard.error.not_in_hand", card=card_to_string(card))
        return IllegalActionError(
            "wizard.error.must_follow",
            suit=suit_name(follow),
            cards=" ".join(map(card_to_string, suit_kinds(hand, follow))),
        )

    def _apply_other(self, action: Action) -> None:
        phase = self._phase
        if phase == PHASE_BID:
            self._bid(action)
        elif phase == PHASE_DEAL:
            self._check_in_deck(action)
            self._deal(action)
        elif phase == PHASE_TURN:
            self._check_in_deck(action)
            self._turn(action)
        elif phase == PHASE_TRUMP:
            if not TRUMP_BASE <= action < TRUMP_BASE + SUITS:
                raise IllegalActionError("wizard.error.choose_trump")
            self._set_trump(action - TRUMP_BASE)
        elif phase == PHASE_DEALER:
            if not DEALER_BASE <= action < DEALER_BASE + self._players:
                raise IllegalActionError("wizard.error.not_a_seat", players=self._players)
            self._start_round(action - DEALER_BASE)
        else:
            raise IllegalActionError("error.game_over")

    def resolve_chance(self, rng: random.Random | None = None) -> None:
        """Deal the rest of the round, turn the trump card, or name the first dealer at once."""
        generator = self._own_rng() if rng is None else rng
        while self._player == CHANCE:
            phase = self._phase
            if phase == PHASE_DEALER:
                action = DEALER_BASE + generator.randrange(self._players)
                self._start_round(action - DEALER_BASE)
                self._history = (self._history, action)
                continue
            to_deal = self._cards * self._players - self._dealt if phase == PHASE_DEAL else 0
            turned = 1 if to_deal + self._dealt < self._game.deck_size else 0
            deck = self._game.deck_cards if self._deck == self._game.deck else cards_in(self._deck)
            drawn = draw(deck, to_deal + turned, generator)
            if to_deal:
                self._deal_many(drawn[:to_deal])
            if turned:
                self._turn(drawn[-1])
            self._history = (self._history, tuple(drawn))

    def observation(self, seat: Seat | None) -> WizardObservation:
        self.check_seat(seat)
        public = self._shared("public", self._public_view)
        own = {"seat": seat, "hand": self._hand(seat), "bids": self._bids_seen_by(seat, public)}
        return WizardObservation.assemble({**public, **own})

    def view_parts(self, seat: Seat | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The public part converted once for every seat's view of the position; the bids,
        which some rules hide, are each seat's own."""
        shown = self._shared_converted("public", self._public_view, shown_json)
        public = self._shared("public", self._public_view)
        own = {
            "seat": seat,
            "hand": hand_json(self._hand(seat)),
            "bids": self._bids_seen_by(seat, public),
        }
        return shown, own

    def _hand(self, seat: Seat | None) -> tuple[int, ...]:
        if seat is None:
            return ()
        return self._shared(seat, lambda: tuple(cards_in(joined_hand(self._hands[seat]))))

    def _bids_seen_by(self, seat: Seat | None, public: dict[str, Any]) -> tuple[int | None, ...]:
        """Every bid made; with hidden bids, only one's own until all are in."""
        bids: tuple[int | None, ...] = public["bids"]
        if self._game.hidden_bids and self._phase == PHASE_BID:
            return tuple(bid if other == seat else None for other, bid in enumerate(bids))
        return bids

    def _public_view(self) -> dict[str, Any]:
        return {
            "players": self._players,
            "round_index": self._round_index,
            "rounds": len(self._game.round_numbers),
            "round_number": self._cards,
            "dealer": self._dealer,
            "phase": PHASE_NAMES[self._phase],
            "current_player": self._player,
            "hand_sizes": tuple([part_count(hand) for hand in self._hands]),
            "trump_card": None if self._trump_card < 0 else self._trump_card,
            "trump": None if self._trump == TRUMP_UNDECIDED else self._trump,
            "bids": tuple(None if bid < 0 else bid for bid in self._bids),
            "tricks_won": self.tricks_won(),
            "leader": self._leader,
            "trick": tuple(self._trick),
            "completed_tricks": named_tricks(self._completed),
            "scores": self._scores,
            "past_rounds": named_rounds(self._past_rounds),
        }

    def segment(self) -> int:
        return self._round_index

    def returns(self) -> list[float]:
        return [float(score) for score in self._scores]

    def action_to_string(self, action: Action) -> str:
        if 0 <= action < KINDS:
            verb = _PHASE_VERBS[self._phase] if self._phase in _CARD_PHASES else "play"
            return f"{verb} {card_to_string(action)}"
        if BID_BASE <= action < TRUMP_BASE:
            return f"bid {action - BID_BASE}"
        if TRUMP_BASE <= action < DEALER_BASE:
            return f"trump {SUIT_LETTERS[action - TRUMP_BASE]}"
        if DEALER_BASE <= action < ACTION_COUNT:
            return f"dealer P{action - DEALER_BASE + 1}"
        raise IllegalActionError("error.unknown_action_id", action=action)

    def string_to_action(self, text: str) -> Action:
        words = text.split()
        phase = self._phase
        if phase == PHASE_END:
            raise IllegalActionError("error.game_over")
        if len(words) == 1 and phase == PHASE_PLAY:
            words = ["play", *words]
        if len(words) != 2 or words[0].lower() not in _PHASE_VERBS[:-1]:
            raise IllegalActionError(
                "wizard.error.unknown_move", text=text, expected=message(_EXPECTED[phase])
            )
        verb, argument = words[0].lower(), words[1]
        if verb != _PHASE_VERBS[phase]:
            raise IllegalActionError(
                "wizard.error.wrong_time", text=text, expected=message(_EXPECTED[phase])
            )
        if phase in _CARD_PHASES:
            return string_to_card(argument)
        if phase == PHASE_BID:
            bid = ascii_number(argument)
            if bid is None:
                raise IllegalActionError("wizard.error.bid_range", cards=self._cards)
            return BID_BASE + min(bid, MAX_BID + 1)
        if phase == PHASE_TRUMP:
            return TRUMP_BASE + string_to_suit(argument)
        seat = ascii_number(argument.upper().removeprefix("P"))
        if seat is None or not 1 <= seat <= self._players:
            raise IllegalActionError("wizard.error.not_a_seat", players=self._players)
        return DEALER_BASE + seat - 1

    # -- Wizard-specific views -------------------------------------------------------

    @property
    def round_number(self) -> int:
        return self._cards

    @property
    def trump(self) -> int | None:
        """The trump suit, ``NO_TRUMP``, or ``None`` before it is known."""
        return None if self._trump == TRUMP_UNDECIDED else self._trump

    def tricks_won(self) -> tuple[int, ...]:
        """Tricks taken by each seat in the current round."""
        taken = [0] * self._players
        for _, _, winner in self._completed:
            taken[winner] = taken[winner] + 1  # compiled, ``+=`` on an item adds as objects
        return tuple(taken)

    def hand(self, seat: Seat) -> list[int]:
        """The true hand of ``seat``: for tests and the referee, never for a bot."""
        return cards_in(joined_hand(self._hands[seat]))

    def every_card(self) -> list[int]:
        tricks = self._completed
        if self._phase == PHASE_END and self._past_rounds:
            tricks = self._past_rounds[-1][-1]  # the last round's tricks
        cards = [*cards_in(self._deck), *self._trick]
        cards += [card for _, played, _ in tricks for card in played]
        cards += [card for hand in self._hands for card in cards_in(joined_hand(hand))]
        if self._trump_card >= 0:
            cards.append(self._trump_card)
        return sorted(cards)

    def undealt(self) -> list[int]:
        """The face-down stack (the turned card excluded): for tests and the referee only."""
        return cards_in(self._deck)

    # -- transitions ---------------------------------------------------------------------

    def _check_in_deck(self, card: int) -> None:
        if not (0 <= card < KINDS and holds(self._deck, card)):
            shown = card_to_string(card) if 0 <= card < KINDS else str(card)
            raise IllegalActionError("wizard.error.not_in_deck", card=shown)

    def _deal(self, card: int) -> None:
        self._deck -= CARD_UNIT[card]
        part, unit = CARD_PARTS[card]
        self._hands[(self._dealer + 1 + self._dealt) % self._players][part] += unit
        self._dealt += 1
        self._after_deal()

    def _after_deal(self) -> None:
        if self._dealt == self._cards * self._players:
            if self._dealt < self._game.deck_size:
                self._phase = PHASE_TURN
            else:
                self._set_trump(NO_TRUMP)

    def _deal_many(self, cards: list[int]) -> None:
        """Deal ``cards`` in order, as ``_deal`` one by one would, with integer sums per seat."""
        players = self._players
        first = (self._dealer + 1 + self._dealt) % players
        unit = CARD_UNIT.__getitem__
        dealt = 0
        for offset in range(players):
            share = sum(map(unit, cards[offset::players]))
            seat = (first + offset) % players
            self._hands[seat] = hand_parts(joined_hand(self._hands[seat]) + share)
            dealt += share
        self._deck -= dealt
        self._dealt += len(cards)
        self._after_deal()

    def _turn(self, card: int) -> None:
        self._deck -= CARD_UNIT[card]
        self._trump_card = card
        if card == WIZARD:
            self._phase = PHASE_TRUMP
            self._player = self._dealer
            return
        self._set_trump(NO_TRUMP if card == JESTER else card // VALUES)

    def _set_trump(self, trump: int) -> None:
        """Fix the trump (a suit or ``NO_TRUMP``) and open the bidding."""
        self._trump = trump
        self._plays = PLAY_EFFECTS[trump]
        self._phase = PHASE_BID
        self._player = (self._dealer + 1) % self._players

    def _bid(self, action: Action) -> None:
        bid = action - BID_BASE
        if not 0 <= bid <= self._cards:
            raise IllegalActionError("wizard.error.bid_range", cards=self._cards)
        if self._game.canadian and bid == self._forbidden_bid():
            raise IllegalActionError("wizard.error.bid_forbidden", bid=bid, cards=self._cards)
        player = self._player
        bids = list(self._bids)
        bids[player] = bid
        self._bids = tuple(bids)
        if player == self._dealer:
            self._phase = PHASE_PLAY
            self._player = self._leader
        else:
            self._player = (player + 1) % self._players

    def _end_round(self) -> None:
        tricks_won = self.tricks_won()
        bids = self._bids
        points = [0] * self._players
        scores = list(self._scores)
        for seat in range(self._players):  # a loop, where compiled code calls round_score directly
            points[seat] = point = round_score(bids[seat], tricks_won[seat])
            scores[seat] = scores[seat] + point
        self._scores = tuple(scores)
        summary = (
            self._cards,
            self._dealer,
            self._trump,
            self._bids,
            tricks_won,
            tuple(points),
            self._completed,
        )
        self._past_rounds += (summary,)
        self._round_index += 1
        if self._round_index == len(self._game.round_numbers):
            self._phase = PHASE_END
            self._player = TERMINAL
            self._trick = []
            self._completed = ()
        else:
            self._start_round((self._dealer + 1) % self._players)


_CARD_PHASES: Final = (PHASE_DEAL, PHASE_TURN, PHASE_PLAY)
_EXPECTED: Final = (
    "wizard.expect.dealer",
    "wizard.expect.deal",
    "wizard.expect.turn",
    "wizard.expect.trump",
    "wizard.expect.bid",
    "wizard.expect.play",
    "wizard.expect.end",
)
