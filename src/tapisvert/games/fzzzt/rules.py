"""Fzzzt!'s rules as a state machine (for players: ``rules.en.md``, ``rules.fr.md``).

Chance steps: the deal of the mechanic cards (one per seat), each card drawn from a
personal draw pile (its order is unknown to all, so a draw is a uniform pick from it),
and each belt card turned face up (a uniform pick from the unseen conveyor cards, which
is what the face-down belt and the conveyor deck are to every player).

Decisions: a sealed bid (a non-empty subset of one's hand) in turn from the Chief
Mechanic, and in the production phase one placement per owned unit, then ``done``.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import combinations
from typing import Any, Final, NamedTuple

from tapisvert.core.cache import IdentityCache, itemwise
from tapisvert.core.errors import IllegalActionError
from tapisvert.core.game import (
    CHANCE,
    TERMINAL,
    Action,
    Game,
    OptionSpec,
    Seat,
    State,
    parse_bool,
)
from tapisvert.core.tuples import named, replaced, without
from tapisvert.games.fzzzt.cards import (
    CARD_COUNT,
    CARD_POINTS,
    CARDS,
    MECHANICS,
    NAMES,
    SYMBOL_BITS,
    SYMBOL_LETTERS,
    UNITS,
    Kind,
    card_faces,
    card_named,
    conveyor_cards,
    is_robot,
    name,
    starting_robots,
    strength,
    unit_score,
)
from tapisvert.games.fzzzt.observation import GONE as GONE
from tapisvert.games.fzzzt.observation import HIDDEN as HIDDEN
from tapisvert.games.fzzzt.observation import AuctionResult as AuctionResult
from tapisvert.games.fzzzt.observation import FzzztObservation as FzzztObservation
from tapisvert.games.fzzzt.observation import Placement as Placement
from tapisvert.games.fzzzt.observation import Units as Units
from tapisvert.games.fzzzt.observation import json_fields, own_json
from tapisvert.i18n import message

BELT_SIZE: Final = 8
HAND_LIMIT: Final = 6
ROUNDS_MINIMUM_DECK: Final = BELT_SIZE

MECHANIC_BASE: Final = CARD_COUNT
PLACE_BASE: Final = 100
CHIT_BASE: Final = PLACE_BASE + len(UNITS) * CARD_COUNT
DONE: Final = CHIT_BASE + len(UNITS) * len(SYMBOL_BITS)
BID_BASE: Final = 1 << CARD_COUNT

PHASE_MECHANICS: Final = 0
PHASE_DRAW: Final = 1
PHASE_REVEAL: Final = 2
PHASE_BID: Final = 3
PHASE_PRODUCTION: Final = 4
PHASE_END: Final = 5
PHASE_NAMES = ("mechanics", "draw", "reveal", "bid", "production", "end")
_PHASE_VERBS = ("mechanic", "draw", "reveal", "bid", "place", "")
_EXPECTED = (
    "fzzzt.expect.mechanics",
    "fzzzt.expect.draw",
    "fzzzt.expect.reveal",
    "fzzzt.expect.bid",
    "fzzzt.expect.production",
    "fzzzt.expect.end",
)


def bid_action(cards: list[int] | tuple[int, ...]) -> Action:
    return BID_BASE + sum(1 << card for card in cards)


def bid_cards(action: Action) -> list[int]:
    mask = action - BID_BASE
    cards: list[int] = []
    while mask:
        lowest = mask & -mask
        cards.append(lowest.bit_length() - 1)
        mask ^= lowest
    return cards


def place_action(card: int, unit: int) -> Action:
    return PLACE_BASE + UNITS.index(unit) * CARD_COUNT + card


def chit_action(symbol: int, unit: int) -> Action:
    """Place a symbol chit (VERSUS scoring); ``symbol`` is 0..3 for N, B, G, O."""
    return CHIT_BASE + UNITS.index(unit) * len(SYMBOL_BITS) + symbol


UNUSED_STARTING_ROBOTS = ("shuffle_in", "box")
"""Where the starting robots of the mechanics nobody plays go: the conveyor deck, or away."""


def parse_choice(*choices: str) -> Any:
    def parse(value: object) -> str:
        text = str(value).strip().lower()
        if text not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return text

    return parse


class Holdings(NamedTuple):
    """A seat's owned cards (in hand, draw pile, discard pile and sealed bid), sorted: kept
    as cards are won and placed (moving between those places changes nothing), since every
    view and tensor shows them and the score is read from them; and its score, with the units
    it was worked out from (``None``: not since the cards last changed)."""

    owned: tuple[int, ...]
    units: Units | None
    score: int


NOTHING_OWNED: Final = Holdings((), None, 0)


@lru_cache(maxsize=4096)
def _bids(hand: tuple[int, ...]) -> tuple[Action, ...]:
    """Every bid ``hand`` allows, smallest first: a hand is offered again and again."""
    bits = [1 << card for card in hand]
    return tuple(
        BID_BASE + sum(subset)
        for size in range(1, len(bits) + 1)
        for subset in combinations(bits, size)
    )


@lru_cache(maxsize=4096)
def _bid_texts(hand: tuple[int, ...]) -> tuple[str, ...]:
    """``_bids(hand)`` in notation."""
    return tuple(map(_bid_text, _bids(hand)))


_sorted_units: IdentityCache[tuple[Units, ...], tuple[Units, ...]] = itemwise(
    lambda units: tuple(sorted(units))
)
"""Each seat's units in order, sorted again only when they changed: a view of each position
shows every seat's."""


@lru_cache(maxsize=16384)
def _bid_text(action: Action) -> str:
    """A bid in notation: a seat to act is offered every subset of its hand, move after move."""
    return "bid " + " ".join([NAMES[card] for card in bid_cards(action)])


class FzzztGame(Game["FzzztState"]):
    """Fzzzt! for 2 to 4 players: bid robots off the conveyor belt, build production units."""

    name = "fzzzt"
    observation_class = FzzztObservation
    sampler = "tapisvert.games.fzzzt.sampler"
    min_players = 2
    max_players = 4
    option_specs = (
        OptionSpec(
            "belt_number_counts_front", True, parse_bool, "fzzzt.option.belt_number", "bool"
        ),
        OptionSpec(
            "unused_starting_robots",
            "shuffle_in",
            parse_choice(*UNUSED_STARTING_ROBOTS),
            "fzzzt.option.unused_starting_robots",
            "choice",
            UNUSED_STARTING_ROBOTS,
        ),
        OptionSpec("versus_scoring", False, parse_bool, "fzzzt.option.versus_scoring", "bool"),
        OptionSpec(
            "unlimited_final_placement",
            False,
            parse_bool,
            "fzzzt.option.unlimited_final",
            "bool",
        ),
    )

    @classmethod
    def card_faces(cls) -> dict[str, dict[str, object]]:
        return card_faces()

    def __init__(self, players: int, **options: object) -> None:
        super().__init__(players, **options)
        self.counts_front = bool(self.options["belt_number_counts_front"])
        self.versus = bool(self.options["versus_scoring"])
        self.unlimited_final = bool(self.options["unlimited_final_placement"])
        self.conveyor: tuple[int, ...] = conveyor_cards(
            players, str(self.options["unused_starting_robots"])
        )
        self.mechanics: tuple[int, ...] = MECHANICS[:players]

    def new_initial_state(self, seed: int | None = None) -> FzzztState:
        return FzzztState(self, seed)

    @property
    def rounds(self) -> int:
        """Each round turns 8 conveyor cards; the game ends when fewer than 8 are left."""
        return len(self.conveyor) // BELT_SIZE

    @property
    def placeable_items(self) -> int:
        """The most placements a whole game allows.

        A placement puts an item on a unit for good: a robot card leaves its owner's cards, a
        chit its owner's chits. The items are the robots in play (the seats' starting robots
        and the conveyor's), each one item, except that under VERSUS scoring a robot of
        several symbols is never placed and gives a chit per symbol instead.
        """
        in_play = [
            *self.conveyor,
            *(robot for card in self.mechanics for robot in starting_robots(CARDS[card].mechanic)),
        ]
        return sum(map(self._items_of, filter(is_robot, in_play)))

    def _items_of(self, card: int) -> int:
        """The placements a robot card gives: itself, or under VERSUS scoring a chit per
        symbol when it shows several (the card itself is then never placed)."""
        shown = bin(CARDS[card].symbols).count("1")
        return shown if self.versus and shown > 1 else 1

    @property
    def score_bounds(self) -> tuple[int, int]:
        """The lowest and the highest final score a seat can have, from the rules.

        A score is the points of the robots a seat owns, −1 per Fzzzt! card, and per unit
        its value per completed set, or minus its value if none (rules, section 4). A seat
        never loses a card (a winning bid goes to its own discard pile, a losing one back
        to its hand), so it always owns its three starting robots; it owns nothing else but
        what it wins, at most one card per auction, ``rounds × 8`` auctions in all.

        - Lowest: its starting robots (the poorest set in play), and the worst cards it can
          win: every Fzzzt! card and every unit, none completed. Nothing in the rules keeps
          a seat from winning those 14 cards and no other.
        - Highest: its starting robots (the richest set), the points of the best robots the
          auctions offer, and the most its units can make: one item per unit per production
          phase (``rounds`` phases; no limit in an unlimited final placement), a set taking
          one item per symbol, the items being the placements its robots give (its own and
          every robot of the conveyor). It counts each of these at its best at once, where
          a seat's hand limits what it can win in a round and a unit won late gets fewer
          phases: no game is claimed to reach it, only that none exceeds it.
        """
        auctions = self.rounds * BELT_SIZE
        starting = [starting_robots(CARDS[mechanic].mechanic) for mechanic in self.mechanics]
        own_points = [sum(CARD_POINTS[card] for card in robots) for robots in starting]
        won = [-CARDS[card].value if card in UNITS else CARD_POINTS[card] for card in self.conveyor]
        worst = sum(sorted(points for points in won if points < 0)[:auctions])
        best = sum(sorted((points for points in won if points > 0), reverse=True)[:auctions])
        robots = [card for card in self.conveyor if is_robot(card)]
        items = sum(map(self._items_of, robots)) + max(
            sum(map(self._items_of, own)) for own in starting
        )
        per_unit = items if self.unlimited_final else self.rounds
        made = [0] * (items + 1)  # made[n]: the most the units make from n items
        for unit in UNITS:
            needed = bin(CARDS[unit].symbols).count("1")
            options = [
                (sets * needed, sets * CARDS[unit].value)
                for sets in range(1, per_unit // needed + 1)
            ]
            made = [
                max([made[n], *(made[n - cost] + gain for cost, gain in options if cost <= n)])
                for n in range(items + 1)
            ]
        return min(own_points) + worst, max(own_points) + best + made[items]

    @property
    def longest_game(self) -> int:
        """The most decisions a game can take, counted from the rules (chance steps aside).

        - Bids: in each of a round's 8 auctions, a seat bids at most once (with an empty hand,
          never).
        - Placements: at most ``placeable_items``; and, unless the final placement is
          unlimited, at most one per unit per production phase.
        - Done: at most once per seat per production phase (a seat with nothing to place is
          skipped).
        """
        placements = self.placeable_items
        if not self.unlimited_final:
            placements = min(placements, self.rounds * len(UNITS))
        return self.rounds * (BELT_SIZE * self.players + self.players) + placements


class FzzztState(State):
    def __init__(self, game: FzzztGame, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self._game = game  # ``game`` as this game's: compiled, an attribute keeps its base's type
        players = game.players
        self._players = players
        self._round = 0
        self._auction = 0
        self._chief = 0
        nothing: tuple[tuple[int, ...], ...] = ((),) * players
        self._mechanic_of: tuple[int | None, ...] = (None,) * players
        self._hands = nothing
        """Each seat's hand, sorted; so are the draw piles, the known cards and the chits."""
        self._draw = nothing
        self._discard = nothing
        self._known_held = nothing
        self._units: tuple[Units, ...] = ((),) * players
        self._chits = nothing
        self._pool: tuple[int, ...] = game.conveyor
        self._belt: tuple[int, ...] = ()
        self._reveals: tuple[int, ...] = ()
        self._draws: tuple[tuple[Seat, int], ...] = ()
        """The seats still to draw up to their hand, with how many cards each may draw."""
        self._bids: tuple[tuple[int, ...] | None, ...] = (None,) * players
        self._held: tuple[Holdings, ...] = (NOTHING_OWNED,) * players
        self._bidders: tuple[Seat, ...] = ()
        self._last: AuctionResult | None = None
        self._producers: tuple[Seat, ...] = ()
        self._placed_now: tuple[int, ...] = ()
        self._phase = PHASE_MECHANICS
        self._player = CHANCE

    def clone(self) -> FzzztState:
        twin = self._bare_clone()
        twin._auction = self._auction
        twin._belt = self._belt
        twin._bidders = self._bidders
        twin._bids = self._bids
        twin._chief = self._chief
        twin._chits = self._chits
        twin._discard = self._discard
        twin._draw = self._draw
        twin._draws = self._draws
        twin._game = self._game
        twin._hands = self._hands
        twin._held = self._held
        twin._known_held = self._known_held
        twin._last = self._last
        twin._mechanic_of = self._mechanic_of
        twin._phase = self._phase
        twin._placed_now = self._placed_now
        twin._player = self._player
        twin._players = self._players
        twin._pool = self._pool
        twin._producers = self._producers
        twin._reveals = self._reveals
        twin._round = self._round
        twin._units = self._units
        return twin

    # -- the contract ---------------------------------------------------------------------

    def current_player(self) -> Seat:
        return self._player

    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase == PHASE_BID:
            return list(_bids(self._hands[self._player]))
        if phase == PHASE_PRODUCTION:
            return [*self._placements(self._player), DONE]
        if phase == PHASE_DRAW:
            return list(self._draw[self._draws[0][0]])
        if phase == PHASE_REVEAL:
            return sorted(self._pool)
        if phase == PHASE_MECHANICS:
            return [
                MECHANIC_BASE + index
                for index, m in enumerate(self._game.mechanics)
                if m not in self._mechanic_of
            ]
        return []

    def legal_strings(self) -> list[str]:
        if self._phase == PHASE_BID:
            return list(_bid_texts(self._hands[self._player]))
        return super().legal_strings()

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        outcomes = self.legal_actions() if self._player == CHANCE else []
        return [(action, 1 / len(outcomes)) for action in outcomes]

    def apply_action(self, action: Action) -> None:
        phase = self._phase
        if phase == PHASE_BID:
            self._bid(action)
        elif phase == PHASE_PRODUCTION:
            self._produce(action)
        elif phase in (PHASE_DRAW, PHASE_REVEAL, PHASE_MECHANICS):
            if action not in self.legal_actions():
                raise IllegalActionError(
                    "fzzzt.error.not_an_outcome", action=self._describe(action)
                )
            self._chance(action)
        else:
            raise IllegalActionError("error.game_over")
        self._history = (self._history, action)

    def resolve_chance(self, rng: random.Random | None = None) -> None:
        generator = self._own_rng() if rng is None else rng
        drawn: list[Action] = []
        while self._player == CHANCE:
            outcomes = self.legal_actions()
            action = outcomes[int(generator.random() * len(outcomes))]
            self._chance(action)
            drawn.append(action)
        if drawn:  # one history node for them all
            self._history = (self._history, drawn[0] if len(drawn) == 1 else tuple(drawn))

    def segment(self) -> int:
        return self._round

    def returns(self) -> list[float]:
        return [float(self.score(seat)) for seat in range(self._players)]

    def winners(self) -> list[Seat]:
        """Best score; among tied seats, fewer robot cards owned; then a shared win."""
        scores = self.returns()
        best = max(scores)
        tied = [seat for seat, score in enumerate(scores) if score == best]
        robots = {seat: self.robot_count(seat) for seat in tied}
        fewest = min(robots.values())
        return [seat for seat in tied if robots[seat] == fewest]

    # -- scoring ----------------------------------------------------------------------------

    def owned(self, seat: Seat) -> list[int]:
        """Every card ``seat`` owns that is not on a production unit or a unit itself."""
        return list(self._holdings(seat).owned)

    def _holdings(self, seat: Seat) -> Holdings:
        """``seat``'s owned cards and score, the score worked out again only when its owned
        cards or its units changed (a change of units replaces their tuple)."""
        known, units = self._held[seat], self._units[seat]
        if known.units is units:
            return known
        held = named(Holdings, (known.owned, units, self._score(seat, known.owned)))
        self._held = replaced(self._held, seat, held)
        return held

    def _own(self, seat: Seat, owned: tuple[int, ...]) -> None:
        """``seat`` now owns ``owned`` (sorted): its score is to be worked out again."""
        self._held = replaced(self._held, seat, named(Holdings, (owned, None, 0)))

    def robot_count(self, seat: Seat) -> int:
        on_units = sum(1 for _, items in self._units[seat] for item in items if item.card >= 0)
        return on_units + sum(1 for card in self.owned(seat) if is_robot(card))

    def score(self, seat: Seat) -> int:
        return self._holdings(seat).score

    def _score(self, seat: Seat, owned: tuple[int, ...]) -> int:
        """``seat``'s score, given what it owns besides its units."""
        points = sum([CARD_POINTS[card] for card in owned])
        for unit, items in self._units[seat]:
            points += sum([CARD_POINTS[item.card] for item in items if item.card >= 0])
            points += unit_score(unit, [placement_symbols(item) for item in items])
        return points

    # -- observation ------------------------------------------------------------------------

    def observation(self, seat: Seat | None) -> FzzztObservation:
        self.check_seat(seat)
        public = self._shared("public", self._public_view)
        return FzzztObservation.assemble({**public, **self._own_fields(seat)})

    def view_parts(self, seat: Seat | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The public part converted once for every seat's view of the position, the fields
        a move left as they were taken from the position before's."""
        public = self._shared_converted("public", self._public_view, json_fields, fieldwise=True)
        return public, own_json(seat, *self._own_parts(seat))

    def _own_fields(self, seat: Seat | None) -> dict[str, Any]:
        hand, bid, draw_pile = self._own_parts(seat)
        return {"hand": hand, "bid": bid, "draw_pile": draw_pile, "seat": seat}

    def _own_parts(
        self, seat: Seat | None
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """``seat``'s hand, sealed bid and draw pile, once a position (a spectator's: none)."""
        return ((), (), ()) if seat is None else self._shared(seat, lambda: self._own_view(seat))

    def _own_view(self, seat: Seat) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """``seat``'s hand, sealed bid and draw pile (a hand that is again what it was, a
        lost bid back in it, is then the object it was)."""
        return self._hands[seat], self._bids[seat] or (), self._draw[seat]

    def _public_view(self) -> dict[str, Any]:
        players = range(self._players)
        held = [self._holdings(seat) for seat in players]
        return {
            "players": self._players,
            "round": self._round,
            "auction": self._auction,
            "chief": self._chief,
            "phase": PHASE_NAMES[self._phase],
            "current_player": self._player,
            "mechanics": self._mechanic_of,
            "hand_sizes": tuple(len(self._hands[other]) for other in players),
            "draw_sizes": tuple(len(self._draw[other]) for other in players),
            "bid_sizes": tuple(None if bid is None else len(bid) for bid in self._bids),
            "discards": self._discard,
            "known_held": self._known_held,
            "owned": tuple(holdings.owned for holdings in held),
            "units": _sorted_units(self._units),
            "chits": self._chits,
            "placed_this_phase": self._placed_now,
            "belt": self._belt,
            "pending_draws": self._draws,
            "conveyor_left": len(self._pool) - self._belt.count(HIDDEN),
            "last_auction": self._last,
            "scores": tuple(holdings.score for holdings in held),
        }

    # -- notation ---------------------------------------------------------------------------

    def _describe(self, action: Action) -> str:
        try:
            return self.action_to_string(action)
        except IllegalActionError:
            return str(action)

    def action_to_string(self, action: Action) -> str:
        if BID_BASE < action < BID_BASE << 1:
            return _bid_text(action)
        if 0 <= action < CARD_COUNT:
            verb = "reveal" if self._phase == PHASE_REVEAL else "draw"
            return f"{verb} {name(action)}"
        if MECHANIC_BASE <= action < MECHANIC_BASE + len(MECHANICS):
            return f"mechanic {name(MECHANICS[action - MECHANIC_BASE])}"
        if PLACE_BASE <= action < CHIT_BASE:
            unit, card = divmod(action - PLACE_BASE, CARD_COUNT)
            return f"place {name(card)} on {name(UNITS[unit])}"
        if CHIT_BASE <= action < DONE:
            unit, symbol = divmod(action - CHIT_BASE, len(SYMBOL_BITS))
            return f"place chit {SYMBOL_LETTERS[symbol]} on {name(UNITS[unit])}"
        if action == DONE:
            return "done"
        raise IllegalActionError("error.unknown_action_id", action=action)

    def string_to_action(self, text: str) -> Action:
        words = text.split()
        phase = self._phase
        if phase == PHASE_END:
            raise IllegalActionError("error.game_over")
        expected = message(_EXPECTED[phase])
        if not words:
            raise IllegalActionError("fzzzt.error.unknown_move", text=text, expected=expected)
        verb = words[0].lower()
        if verb == "done" and len(words) == 1 and phase == PHASE_PRODUCTION:
            return DONE
        if verb != _PHASE_VERBS[phase]:
            key = "fzzzt.error.wrong_time" if verb in _PHASE_VERBS else "fzzzt.error.unknown_move"
            raise IllegalActionError(key, text=text, expected=expected)
        if phase == PHASE_BID:
            cards = [card_named(word) for word in words[1:]]
            if not cards:
                raise IllegalActionError("fzzzt.error.empty_bid")
            if len(set(cards)) != len(cards):
                raise IllegalActionError("fzzzt.error.twice")
            return bid_action(cards)
        if phase == PHASE_PRODUCTION:
            if len(words) == 5 and words[1].lower() == "chit" and words[3].lower() == "on":
                letter = words[2].upper()
                if len(letter) != 1 or letter not in SYMBOL_LETTERS:
                    raise IllegalActionError("fzzzt.error.not_a_symbol", text=words[2])
                return chit_action(SYMBOL_LETTERS.index(letter), self._unit_named(words[4]))
            if len(words) != 4 or words[2].lower() != "on":
                raise IllegalActionError("fzzzt.error.unknown_move", text=text, expected=expected)
            return place_action(card_named(words[1]), self._unit_named(words[3]))
        if len(words) != 2:
            raise IllegalActionError("fzzzt.error.unknown_move", text=text, expected=expected)
        card = card_named(words[1])
        if phase == PHASE_MECHANICS:
            if card not in MECHANICS:
                raise IllegalActionError("fzzzt.error.not_a_card", text=words[1])
            return MECHANIC_BASE + MECHANICS.index(card)
        return card

    @staticmethod
    def _unit_named(text: str) -> int:
        unit = card_named(text)
        if unit not in UNITS:
            raise IllegalActionError("fzzzt.error.not_a_unit", text=text)
        return unit

    # -- referee views: for tests and the server, never for a bot --------------------------

    def every_card(self) -> list[int]:
        cards = [*self._pool, *(card for card in self._belt if card >= 0)]
        for seat in range(self._players):
            cards += [*self._hands[seat], *self._draw[seat], *self._discard[seat]]
            cards += self._bids[seat] or ()
            for unit, items in self._units[seat]:
                cards += [unit, *(item.card for item in items if item.card >= 0)]
        if self._phase == PHASE_MECHANICS:  # still in the box
            for mechanic in self._game.mechanics:
                cards += [mechanic, *starting_robots(CARDS[mechanic].mechanic)]
        return sorted(cards)

    def hand(self, seat: Seat) -> list[int]:
        return list(self._hands[seat])

    def sealed_bid(self, seat: Seat) -> list[int]:
        return list(self._bids[seat] or ())

    def pool(self) -> list[int]:
        """The unseen conveyor cards: the face-down belt cards and the conveyor deck."""
        return sorted(self._pool)

    # -- transitions ------------------------------------------------------------------------

    def _chance(self, action: Action) -> None:
        phase = self._phase
        if phase == PHASE_MECHANICS:
            seat = self._mechanic_of.index(None)
            mechanic = self._game.mechanics[action - MECHANIC_BASE]
            self._mechanic_of = replaced(self._mechanic_of, seat, mechanic)
            if None not in self._mechanic_of:
                self._setup_hands()
            return
        if phase == PHASE_DRAW:
            seat, wanted = self._draws[0]
            self._draw = replaced(self._draw, seat, without(self._draw[seat], action))
            self._hands = replaced(self._hands, seat, tuple(sorted((*self._hands[seat], action))))
            self._draws = ((seat, wanted - 1), *self._draws[1:])
            self._continue()
            return
        slot, *others = self._reveals
        self._reveals = tuple(others)
        self._pool = without(self._pool, action)
        self._belt = replaced(self._belt, slot, action)
        if slot == self._auction:
            self._queue_reveals()
        self._continue()

    def _setup_hands(self) -> None:
        for seat, mechanic in enumerate(self._mechanic_of):
            assert mechanic is not None
            number = CARDS[mechanic].mechanic
            hand = tuple(sorted((mechanic, *starting_robots(number))))
            self._hands = replaced(self._hands, seat, hand)
            self._own(seat, hand)
            self._known_held = replaced(self._known_held, seat, hand)
            if number == 1:
                self._chief = seat
            if self._game.versus:
                self._grant_chits(seat, starting_robots(number))
        self._start_round()

    def _grant_chits(self, seat: Seat, cards: tuple[int, ...] | list[int]) -> None:
        """VERSUS scoring: a multi-symbol robot gives one chit per symbol it shows."""
        for card in cards:
            shown = [i for i, bit in enumerate(SYMBOL_BITS) if CARDS[card].symbols & bit]
            if is_robot(card) and len(shown) > 1:
                chits = tuple(sorted((*self._chits[seat], *shown)))
                self._chits = replaced(self._chits, seat, chits)

    def _start_round(self) -> None:
        self._round += 1
        self._auction = 0
        self._belt = (HIDDEN,) * BELT_SIZE
        self._last = None
        if self._round > 1:
            nothing: tuple[tuple[int, ...], ...] = ((),) * self._players
            self._draw = tuple(
                tuple(sorted((*hand, *draw, *discard)))
                for hand, draw, discard in zip(self._hands, self._draw, self._discard, strict=True)
            )
            self._hands = self._discard = self._known_held = nothing
            self._draws = self._drawing_order()
        self._begin_auction()

    def _from_chief(self) -> tuple[Seat, ...]:
        """Every seat, from the Chief Mechanic on."""
        return tuple((self._chief + offset) % self._players for offset in range(self._players))

    def _drawing_order(self) -> tuple[tuple[Seat, int], ...]:
        """Every seat from the Chief Mechanic on, each to draw up to a full hand."""
        return tuple((seat, HAND_LIMIT) for seat in self._from_chief())

    def _begin_auction(self) -> None:
        if all(not hand for hand in self._hands):
            self._draws += self._drawing_order()
        if self._belt[self._auction] == HIDDEN:
            self._reveals = (self._auction,)
        self._bidders = self._from_chief()
        self._bids = (None,) * self._players
        self._continue()

    def _queue_reveals(self) -> None:
        """After the front card is turned: turn more until its belt number is face up."""
        self._reveals += tuple(self.reveals_after_front())

    def reveals_after_front(self) -> list[int]:
        """The face-down slots that the face-up front card makes turn."""
        front = self._auction
        number = CARDS[self._belt[front]].belt
        wanted = number if self._game.counts_front else number + 1
        slots = range(front, min(BELT_SIZE, front + wanted))
        return [slot for slot in slots if self._belt[slot] == HIDDEN]

    def _continue(self) -> None:
        """Move to the next decision or chance step of the auction."""
        while self._draws:
            seat, wanted = self._draws[0]
            if wanted > 0 and not self._draw[seat] and self._discard[seat]:
                self._draw = replaced(self._draw, seat, tuple(sorted(self._discard[seat])))
                self._discard = replaced(self._discard, seat, ())
            if wanted > 0 and len(self._hands[seat]) < HAND_LIMIT and self._draw[seat]:
                self._phase, self._player = PHASE_DRAW, CHANCE
                return
            self._draws = self._draws[1:]
        if self._reveals:
            self._phase, self._player = PHASE_REVEAL, CHANCE
            return
        while self._bidders and not self._hands[self._bidders[0]]:
            self._bidders = self._bidders[1:]
        if self._bidders:
            self._phase, self._player = PHASE_BID, self._bidders[0]
            return
        self._resolve_auction()

    def _bid(self, action: Action) -> None:
        player = self._player
        if not BID_BASE < action < BID_BASE << 1:  # at least one card, and only cards that exist
            raise IllegalActionError("fzzzt.error.bid_expected")
        cards = bid_cards(action)
        hand = self._hands[player]
        missing = [card for card in cards if card not in hand]
        if missing:
            raise IllegalActionError("fzzzt.error.not_in_hand", cards=" ".join(map(name, missing)))
        self._hands = replaced(self._hands, player, tuple(c for c in hand if c not in cards))
        self._bids = replaced(self._bids, player, tuple(cards))
        self._bidders = self._bidders[1:]
        self._continue()

    def _resolve_auction(self) -> None:
        strengths = {seat: strength(bid) for seat, bid in enumerate(self._bids) if bid is not None}
        contenders = [seat for seat in self._from_chief() if seat in strengths]
        best = max(strengths.values())
        winner = next(seat for seat in contenders if strengths[seat] == best)
        card = self._belt[self._auction]
        for seat, bid in enumerate(self._bids):
            if bid is None:
                continue
            known = self._known_held[seat]
            if seat == winner:
                self._discard = replaced(self._discard, seat, (*self._discard[seat], *bid))
                known = tuple(c for c in known if c not in bid)
            else:
                self._hands = replaced(self._hands, seat, tuple(sorted((*self._hands[seat], *bid))))
                known = tuple(sorted({*known, *bid}))
            self._known_held = replaced(self._known_held, seat, known)
        if CARDS[card].kind == Kind.UNIT:
            self._units = replaced(self._units, winner, (*self._units[winner], (card, ())))
        else:
            self._discard = replaced(self._discard, winner, (*self._discard[winner], card))
            self._own(winner, tuple(sorted((*self._held[winner].owned, card))))
            if self._game.versus:
                self._grant_chits(winner, [card])
        self._last = named(AuctionResult, (card, self._bids, winner))
        self._belt = replaced(self._belt, self._auction, GONE)
        self._bids = (None,) * self._players
        self._chief = (self._chief + 1) % self._players
        self._auction += 1
        if self._auction < BELT_SIZE:
            self._begin_auction()
            return
        self._producers = self._from_chief()
        self._placed_now = ()
        self._next_producer()

    def _final_phase(self) -> bool:
        return len(self._pool) < ROUNDS_MINIMUM_DECK

    def _placements(self, seat: Seat) -> list[Action]:
        unlimited = self._game.unlimited_final and self._final_phase()
        units = sorted(unit for unit, _ in self._units[seat])
        free = [unit for unit in units if unlimited or unit not in self._placed_now]
        actions: list[Action] = []
        versus = self._game.versus
        for card in sorted(set(self.owned(seat))):
            spec = CARDS[card]
            if not is_robot(card) or (versus and bin(spec.symbols).count("1") > 1):
                continue
            actions.extend(
                place_action(card, unit) for unit in free if spec.symbols & CARDS[unit].symbols
            )
        for chit in sorted(set(self._chits[seat])):
            actions.extend(
                chit_action(chit, unit) for unit in free if SYMBOL_BITS[chit] & CARDS[unit].symbols
            )
        return actions

    def _produce(self, action: Action) -> None:
        player = self._player
        if action == DONE:
            self._producers = self._producers[1:]
            self._placed_now = ()
            self._next_producer()
            return
        if action not in self._placements(player):
            raise IllegalActionError("fzzzt.error.cannot_place", move=self._describe(action))
        if action >= CHIT_BASE:
            unit_index, chit = divmod(action - CHIT_BASE, len(SYMBOL_BITS))
            self._chits = replaced(self._chits, player, without(self._chits[player], chit))
            item = named(Placement, (-1, chit))
        else:
            unit_index, card = divmod(action - PLACE_BASE, CARD_COUNT)
            self._take_card(player, card)
            item = named(Placement, (card, -1))
        unit = UNITS[unit_index]
        self._units = replaced(
            self._units,
            player,
            tuple(
                (owned, (*items, item) if owned == unit else items)
                for owned, items in self._units[player]
            ),
        )
        self._placed_now += (unit,)

    def _take_card(self, seat: Seat, card: int) -> None:
        """``card`` leaves ``seat``'s hand, draw pile or discard pile, the first that has it."""
        if card in self._hands[seat]:
            self._hands = replaced(self._hands, seat, without(self._hands[seat], card))
        elif card in self._draw[seat]:
            self._draw = replaced(self._draw, seat, without(self._draw[seat], card))
        elif card in self._discard[seat]:
            self._discard = replaced(self._discard, seat, without(self._discard[seat], card))
        self._own(seat, without(self._held[seat].owned, card))
        known = self._known_held[seat]
        self._known_held = replaced(self._known_held, seat, tuple(c for c in known if c != card))

    def _next_producer(self) -> None:
        while self._producers and not self._placements(self._producers[0]):
            self._producers = self._producers[1:]
        if self._producers:
            self._phase, self._player = PHASE_PRODUCTION, self._producers[0]
            return
        if self._final_phase():
            self._phase, self._player = PHASE_END, TERMINAL
            return
        self._start_round()


def placement_symbols(item: Placement) -> int:
    """The symbols a placement supplies: its robot's, or its chit's."""
    return SYMBOL_BITS[item.chit] if item.card < 0 else CARDS[item.card].symbols
