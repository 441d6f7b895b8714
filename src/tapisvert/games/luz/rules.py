"""Luz's rules as a state machine (for players: ``rules.en.md``, ``rules.fr.md``).

A game is four deals. A deal is one chance step per dealt card (10 per seat; the rest
is set aside unseen), one bet per seat from the first player on, then ten tricks. A
game that leaves the first player to chance starts with one chance step naming them.
"""

from __future__ import annotations

import random
from typing import Any, Final

from tapisvert.core.cache import IdentityCache
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
    parse_optional_int,
    parse_optional_int_between,
    parse_optional_seat,
)
from tapisvert.core.notation import ascii_number
from tapisvert.core.tuples import named, replaced, without
from tapisvert.games.luz.cards import (
    CARD_VALUES,
    COLOUR_COUNT,
    DEALS,
    FAIL_POINTS_PER_TRICK,
    HAND_SIZE,
    MAX_VALUE,
    SUCCESS_POINTS,
    YELLOW,
    card_to_string,
    colour_name,
    colour_of,
    deal_score,
    deck,
    final_ranking,
    string_to_card,
    trick_winner,
)
from tapisvert.games.luz.knowledge import colour_values, unknown_by_colour
from tapisvert.games.luz.observation import PLAYED as PLAYED
from tapisvert.games.luz.observation import SLOT_TEXT, public_json
from tapisvert.games.luz.observation import DealSummary as DealSummary
from tapisvert.games.luz.observation import Knowledge as Knowledge
from tapisvert.games.luz.observation import LuzObservation as LuzObservation
from tapisvert.games.luz.observation import LuzPlay as LuzPlay
from tapisvert.games.luz.observation import LuzTrick as LuzTrick
from tapisvert.i18n import message

CARD_IDS: Final = 60
FIRST_BASE: Final = 60
BET_BASE: Final = 70
MAX_BET: Final = HAND_SIZE
PLAY_BASE: Final = BET_BASE + 2 * (MAX_BET + 1)
ACTION_COUNT: Final = PLAY_BASE + HAND_SIZE

PHASE_FIRST: Final = 0
PHASE_DEAL: Final = 1
PHASE_BET: Final = 2
PHASE_PLAY: Final = 3
PHASE_END: Final = 4
PHASE_NAMES = ("first", "deal", "bet", "play", "end")
_PHASE_VERBS = ("first", "deal", "bet", "play", "")
_EXPECTED = (
    "luz.expect.first",
    "luz.expect.deal",
    "luz.expect.bet",
    "luz.expect.play",
    "luz.expect.end",
)


def bet_action(bet: int, safety: int = 0) -> Action:
    return BET_BASE + 2 * bet + safety


def play_action(slot: int) -> Action:
    return PLAY_BASE + slot


_COLOUR_OF: Final[tuple[int, ...]] = (*map(colour_of, range(CARD_IDS)), PLAYED)
"""Each card's colour, by card id; ``PLAYED`` (-1) reads the last entry: played."""
_VALUE_OF: Final[tuple[int | None, ...]] = (*CARD_VALUES, None)
"""Each card's value, by card id; ``PLAYED`` (-1) reads the last entry: none."""

_colours_of: IdentityCache[tuple[int, ...], tuple[int, ...]] = IdentityCache(
    lambda hand: tuple(map(_COLOUR_OF.__getitem__, hand))
)
"""A hand's colours, slot by slot; hands are replaced when played from, so a hand that
did not change is not read again."""


def _deal_layout(dealt: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """A seat's cards as dealt, sorted (its slots), and the slots of each colour: tuples,
    which the garbage collector stops visiting once it has seen they hold numbers only (a
    cache keeps thousands of layouts)."""
    cards = tuple(sorted(dealt))
    slots: list[list[int]] = [[] for _ in range(COLOUR_COUNT)]
    for slot, card in enumerate(cards):
        slots[colour_of(card)].append(slot)
    return cards, tuple(map(tuple, slots))


ALL_COLOURS = (1 << COLOUR_COUNT) - 1
"""Every colour's bit: what a seat knows is deduced for every colour at first."""
_layout: Final = IdentityCache(_deal_layout)
"""Each seat's deal layout, once a deal."""
DealLayouts = tuple[
    tuple[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], ...], tuple[tuple[int, ...], ...]
]
"""Each seat's deal layout (see ``_deal_layout``), and the set-aside cards by colour."""
_by_colour: Final = IdentityCache(unknown_by_colour)
"""The set-aside cards by colour, in order, once a deal."""
_seen_hand_json: IdentityCache[tuple[int, ...], tuple[str | None, ...]] = IdentityCache(
    lambda hand: tuple([SLOT_TEXT[_COLOUR_OF[card]][_VALUE_OF[card]] for card in hand])
)
"""A hand as the other seats read it."""
_unseen_hand_json: IdentityCache[tuple[int, ...], tuple[str | None, ...]] = IdentityCache(
    lambda hand: tuple([SLOT_TEXT[_COLOUR_OF[card]][None] for card in hand])
)
"""A hand as its holder and the spectators read it: colours only."""


class LuzGame(Game["LuzState"]):
    """Luz for 3 to 5 players: you see everyone's cards but your own.

    ``hand_size``, ``deals``, ``colours`` and ``colour_values`` shrink it (fewer cards, fewer
    deals, a smaller deck, always with yellow, the trump): the
    same game made small enough for exact analysis (OpenSpiel's CFR and best responses).
    """

    name = "luz"
    observation_class = LuzObservation
    sampler = "tapisvert.games.luz.sampler"
    min_players = 3
    max_players = 5
    option_specs = (
        OptionSpec("first_player", None, parse_optional_seat, "luz.option.first_player", "seat"),
        OptionSpec(
            "first_player_rotates", True, parse_bool, "luz.option.first_player_rotates", "bool"
        ),
        OptionSpec(
            "bet_bead_supply",
            None,
            parse_optional_int,
            "luz.option.bet_bead_supply",
            "int",
            minimum=0,
        ),
        OptionSpec(
            "hand_size",
            HAND_SIZE,
            parse_int_between(1, HAND_SIZE),
            "luz.option.hand_size",
            "int",
            minimum=1,
            maximum=HAND_SIZE,
            shrinks=True,
        ),
        OptionSpec(
            "deals",
            DEALS,
            parse_int_between(1, DEALS),
            "luz.option.deals",
            "int",
            minimum=1,
            maximum=DEALS,
            shrinks=True,
        ),
        OptionSpec(
            "colours",
            COLOUR_COUNT,
            parse_int_between(YELLOW + 1, COLOUR_COUNT),
            "luz.option.colours",
            "int",
            minimum=YELLOW + 1,
            maximum=COLOUR_COUNT,
            shrinks=True,
        ),
        OptionSpec(
            "colour_values",
            None,
            parse_optional_int_between(1, MAX_VALUE),
            "luz.option.colour_values",
            "int",
            minimum=1,
            maximum=MAX_VALUE,
            shrinks=True,
        ),
    )

    @classmethod
    def scoring(cls) -> dict[str, object]:
        """The table of successes by deal, without and with the safety bead, and what each
        trick away from the bet costs."""
        return {
            "success": {"plain": SUCCESS_POINTS[0], "bead": SUCCESS_POINTS[1]},
            "miss_per_trick": FAIL_POINTS_PER_TRICK,
        }

    def __init__(self, players: int, **options: object) -> None:
        super().__init__(players, **options)
        self.first_player = self.seat_option("first_player")
        self.rotates = bool(self.options["first_player_rotates"])
        supply = self.options["bet_bead_supply"]
        self.bet_bead_supply: int | None = None if supply is None else int(str(supply))
        values = self.options["colour_values"]
        colour_values = None if values is None else int(str(values))
        colours = int(str(self.options["colours"]))
        self.deck: tuple[int, ...] = tuple(deck(players, colour_values, colours))
        self.hand_size = int(str(self.options["hand_size"]))
        self.deals = int(str(self.options["deals"]))
        if self.hand_size * players > len(self.deck):
            raise OptionError(
                "luz.error.deck_too_small",
                players=players,
                cards=self.hand_size,
                deck=len(self.deck),
            )

    def new_initial_state(self, seed: int | None = None) -> LuzState:
        return LuzState(self, seed)


class LuzState(State):
    def __init__(self, game: LuzGame, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self._game = game  # ``game`` as this game's: compiled, an attribute keeps its base's type
        self._players = game.players
        self._deal_index = 0
        self._scores: tuple[int, ...] = (0,) * game.players
        self._past: tuple[DealSummary, ...] = ()
        self._start_deal(0 if game.first_player is None else game.first_player)
        if game.first_player is None:
            self._phase = PHASE_FIRST

    def _start_deal(self, first: Seat) -> None:
        players = self._players
        self._first = first
        self._remaining: tuple[int, ...] = self._game.deck
        self._dealt: tuple[tuple[int, ...], ...] = ((),) * players
        self._hands: tuple[tuple[int, ...], ...] = ((),) * players
        """Each seat's cards, sorted at the deal, ``PLAYED`` where one has left."""
        self._bets: tuple[tuple[int, int] | None, ...] = (None,) * players
        self._trick: tuple[LuzPlay, ...] = ()
        self._leader = first
        self._completed: tuple[LuzTrick, ...] = ()
        self._tricks_won: tuple[int, ...] = (0,) * players
        """The tricks each seat took of the deal's finished tricks."""
        self._phase = PHASE_DEAL
        self._player = CHANCE
        self._known: tuple[Knowledge | None, ...] = (None,) * players
        """Each seat's knowledge of its own values, once deduced (``None``: not yet)."""
        self._stale: tuple[int, ...] = (0,) * players
        """For each seat, the colours it has played since its knowledge was last deduced."""
        self._layouts: DealLayouts | None = None
        """Each seat's deal layout and the set-aside cards by colour, once a seat's knowledge
        is first deduced in the deal (``None``: not yet)."""

    def clone(self) -> LuzState:
        twin = self._bare_clone()
        twin._bets = self._bets
        twin._completed = self._completed
        twin._tricks_won = self._tricks_won
        twin._deal_index = self._deal_index
        twin._dealt = self._dealt
        twin._first = self._first
        twin._game = self._game
        twin._hands = self._hands
        twin._known = self._known
        twin._leader = self._leader
        twin._past = self._past
        twin._phase = self._phase
        twin._player = self._player
        twin._players = self._players
        twin._remaining = self._remaining
        twin._scores = self._scores
        twin._stale = self._stale
        twin._layouts = self._layouts
        twin._trick = self._trick
        return twin

    def current_player(self) -> Seat:
        return self._player

    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase == PHASE_PLAY:
            return [PLAY_BASE + slot for slot in self._playable_slots(self._player)]
        if phase == PHASE_BET:
            limit = self._bet_limit()
            return [bet_action(bet, safety) for bet in range(limit + 1) for safety in (0, 1)]
        if phase == PHASE_DEAL:
            return sorted(self._remaining)
        if phase == PHASE_FIRST:
            return [FIRST_BASE + seat for seat in range(self._players)]
        return []

    def _playable_slots(self, seat: Seat) -> list[int]:
        hand = self._hands[seat]
        held = [slot for slot, held_card in enumerate(hand) if held_card != PLAYED]
        if self._trick:
            led = colour_of(self._trick[0].card)
            following = [slot for slot in held if colour_of(hand[slot]) == led]
            if following:
                return following
        return held

    def _bet_limit(self) -> int:
        supply = self._game.bet_bead_supply
        if supply is None:
            return self._game.hand_size
        placed = sum(bet for bet, _ in (pair for pair in self._bets if pair is not None))
        return max(0, min(self._game.hand_size, supply - placed))

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self._phase == PHASE_FIRST:
            return [(FIRST_BASE + seat, 1 / self._players) for seat in range(self._players)]
        if self._phase == PHASE_DEAL:
            share = 1 / len(self._remaining)
            return [(card_id, share) for card_id in sorted(self._remaining)]
        return []

    def apply_action(self, action: Action) -> None:
        phase = self._phase
        if phase == PHASE_PLAY:
            self._play(action)
        elif phase == PHASE_BET:
            self._bet(action)
        elif phase == PHASE_DEAL:
            if action not in self._remaining:
                shown = card_to_string(action) if 0 <= action < CARD_IDS else str(action)
                raise IllegalActionError("luz.error.not_in_deck", card=shown)
            self._deal(action)
        elif phase == PHASE_FIRST:
            if not FIRST_BASE <= action < FIRST_BASE + self._players:
                raise IllegalActionError("luz.error.not_a_seat", players=self._players)
            self._start_deal(action - FIRST_BASE)
        else:
            raise IllegalActionError("error.game_over")
        self._history = (self._history, action)

    def resolve_chance(self, rng: random.Random | None = None) -> None:
        """Name the first player, or deal the whole hand at once."""
        generator = self._own_rng() if rng is None else rng
        while self._player == CHANCE:
            if self._phase == PHASE_FIRST:
                action = FIRST_BASE + generator.randrange(self._players)
                self._start_deal(action - FIRST_BASE)
                self._history = (self._history, action)
                continue
            count = self._game.hand_size * self._players - sum(len(cards) for cards in self._dealt)
            drawn = draw(self._remaining, count, generator)
            for card_id in drawn:
                self._deal(card_id)
            self._history = (self._history, tuple(drawn))

    def _deal(self, card_id: int) -> None:
        self._remaining = without(self._remaining, card_id)
        dealt_so_far = sum(len(cards) for cards in self._dealt)
        seat = (self._first + dealt_so_far) % self._players
        self._dealt = replaced(self._dealt, seat, (*self._dealt[seat], card_id))
        if dealt_so_far + 1 == self._game.hand_size * self._players:
            self._hands = tuple(tuple(sorted(cards)) for cards in self._dealt)
            self._known = (None,) * self._players
            self._stale = (0,) * self._players
            self._layouts = None
            self._phase = PHASE_BET
            self._player = self._first

    def _bet(self, action: Action) -> None:
        code = action - BET_BASE
        bet, safety = divmod(code, 2)
        if not (0 <= code < 2 * (MAX_BET + 1) and bet <= self._game.hand_size):
            raise IllegalActionError("luz.error.bet_range", cards=self._game.hand_size)
        if bet > self._bet_limit():
            raise IllegalActionError("luz.error.bead_supply", left=self._bet_limit())
        player = self._player
        self._bets = (*self._bets[:player], (bet, safety), *self._bets[player + 1 :])
        following = (player + 1) % self._players
        if following == self._first:
            self._phase = PHASE_PLAY
            self._player = self._leader
        else:
            self._player = following

    def _play(self, action: Action) -> None:
        player = self._player
        slot = action - PLAY_BASE
        hand = self._hands[player]
        if not (0 <= slot < len(hand) and hand[slot] != PLAYED):
            raise IllegalActionError("luz.error.no_card_there", position=slot)
        allowed = self._playable_slots(player)
        if slot not in allowed:
            led = colour_of(self._trick[0].card)
            raise IllegalActionError(
                "luz.error.must_follow",
                colour=colour_name(led),
                positions=" ".join(map(str, allowed)),
            )
        played = hand[slot]
        self._hands = replaced(self._hands, player, replaced(hand, slot, PLAYED))
        self._trick += (named(LuzPlay, (player, slot, played)),)
        if self._known[player] is not None:  # what it learns is deduced when asked
            stale = self._stale[player] | 1 << colour_of(played)
            self._stale = (*self._stale[:player], stale, *self._stale[player + 1 :])
        if len(self._trick) < self._players:
            self._player = (player + 1) % self._players
            return
        winner = self._trick_winner()
        self._completed = (*self._completed, named(LuzTrick, (self._leader, self._trick, winner)))
        self._tricks_won = replaced(self._tricks_won, winner, self._tricks_won[winner] + 1)
        self._trick = ()
        if len(self._completed) == self._game.hand_size:
            self._end_deal()
        else:
            self._leader = winner
            self._player = winner

    def _trick_winner(self) -> Seat:
        return self._trick[trick_winner([play.card for play in self._trick])].seat

    def tricks_won(self) -> tuple[int, ...]:
        """Tricks taken by each seat in the current deal."""
        return self._tricks_won

    def _end_deal(self) -> None:
        tricks = self.tricks_won()
        bets = tuple(pair if pair is not None else (0, 0) for pair in self._bets)
        points = tuple(
            deal_score(took, bet, safety, self._deal_index + 1)
            for took, (bet, safety) in zip(tricks, bets, strict=True)
        )
        self._scores = tuple(
            total + gained for total, gained in zip(self._scores, points, strict=True)
        )
        self._past = (
            *self._past,
            DealSummary(self._deal_index + 1, self._first, bets, tricks, points, self._completed),
        )
        self._deal_index += 1
        if self._deal_index == self._game.deals:
            self._phase = PHASE_END
            self._player = TERMINAL
            self._completed = ()
            self._tricks_won = (0,) * self._players
            return
        following = (self._first + 1) % self._players if self._game.rotates else self._first
        self._start_deal(following)

    def segment(self) -> int:
        return self._deal_index

    def returns(self) -> list[float]:
        return [float(score) for score in self._scores]

    def ranking(self) -> list[Seat]:
        """Seats from first to last, with the tie-breaks of the rules."""
        if not self._past:
            return final_ranking(self._scores, (0,) * self._players, self._first)
        last = self._past[-1]
        return final_ranking(self._scores, last.points, last.first_player)

    def winners(self) -> list[Seat]:
        return [self.ranking()[0]]

    def observation(self, seat: Seat | None) -> LuzObservation:
        self.check_seat(seat)
        public = self._shared("public", self._public_view)
        values = self._shared(seat, lambda: self._values_seen_by(seat))
        knowledge = () if seat is None else self._knowledge(seat)
        return LuzObservation.assemble(
            {**public, "seat": seat, "values": values, "knowledge": knowledge}
        )

    def view_parts(self, seat: Seat | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The public part converted once for every seat's view of the position, and each
        hand once as others see it and once as its holder does."""
        public = self._shared_converted("public", self._public_view, public_json)
        hands = tuple(
            (_unseen_hand_json if other == seat or seat is None else _seen_hand_json)(hand)
            for other, hand in enumerate(self._hands)
        )
        knowledge = () if seat is None else self._knowledge(seat)
        return public, {"seat": seat, "knowledge": knowledge, "hands": hands}

    def _values_seen_by(self, seat: Seat | None) -> tuple[tuple[int | None, ...], ...]:
        seen_values, unseen_values = self._shared("values", self._hand_values)
        return tuple(
            unseen if other == seat or seat is None else seen
            for other, (seen, unseen) in enumerate(zip(seen_values, unseen_values, strict=True))
        )

    def _public_view(self) -> dict[str, Any]:
        return {
            "players": self._players,
            "deals": self._game.deals,
            "deal_index": self._deal_index,
            "first_player": self._first,
            "phase": PHASE_NAMES[self._phase],
            "current_player": self._player,
            "colours": tuple(map(_colours_of, self._hands)),
            "bets": self._bets,
            "tricks_won": self.tricks_won(),
            "leader": self._leader,
            "trick": self._trick,
            "completed_tricks": self._completed,
            "scores": self._scores,
            "past_deals": self._past,
        }

    def _hand_values(
        self,
    ) -> tuple[tuple[tuple[int | None, ...], ...], tuple[tuple[None, ...], ...]]:
        """Each hand's values as seen by the others and by its holder (``None`` everywhere:
        played or hidden)."""
        seen = tuple(tuple(map(_VALUE_OF.__getitem__, hand)) for hand in self._hands)
        unseen = tuple((None,) * len(hand) for hand in self._hands)
        return seen, unseen

    def _knowledge(self, seat: Seat) -> Knowledge:
        """What ``seat`` knows of its own values: deduced once per deal, then, after it has
        played, deduced again for the colours it played only.

        Every card of the others was in sight from the deal on, so what ``seat`` has not
        seen is its own unplayed cards and the set-aside ones."""
        known, stale = self._known[seat], self._stale[seat]
        if known is None or stale:
            hand = self._hands[seat]
            if not hand:  # not dealt yet
                return ()
            layouts = self._layouts
            if layouts is None:
                layouts = self._layouts = (
                    tuple([_layout(dealt) for dealt in self._dealt]),
                    _by_colour(self._remaining),
                )
            dealt, colour_slots = layouts[0][seat]
            unseen = layouts[1]
            possible: list[tuple[int, ...] | None]
            if known is None:
                possible, stale = [None] * len(hand), ALL_COLOURS
            else:
                possible = list(known)
            while stale:
                colour = (stale & -stale).bit_length() - 1
                stale &= stale - 1
                slots = colour_slots[colour]
                if slots:
                    first = colour * MAX_VALUE
                    colour_values(possible, slots, dealt, hand, unseen[colour], first)
            known = tuple(possible)
            self._known = replaced(self._known, seat, known)
            self._stale = replaced(self._stale, seat, 0)
        return known

    def action_to_string(self, action: Action) -> str:
        if 0 <= action < CARD_IDS:
            return f"deal {card_to_string(action)}"
        if FIRST_BASE <= action < BET_BASE:
            return f"first P{action - FIRST_BASE + 1}"
        if BET_BASE <= action < PLAY_BASE:
            bet, safety = divmod(action - BET_BASE, 2)
            return f"bet {bet}{'+' if safety else ''}"
        if PLAY_BASE <= action < ACTION_COUNT:
            return f"play {action - PLAY_BASE}"
        raise IllegalActionError("error.unknown_action_id", action=action)

    def string_to_action(self, text: str) -> Action:
        words = text.split()
        phase = self._phase
        if phase == PHASE_END:
            raise IllegalActionError("error.game_over")
        if len(words) == 1 and phase == PHASE_PLAY and ascii_number(words[0]) is not None:
            words = ["play", *words]
        if len(words) != 2 or words[0].lower() not in _PHASE_VERBS[:-1]:
            raise IllegalActionError(
                "luz.error.unknown_move", text=text, expected=message(_EXPECTED[phase])
            )
        verb, argument = words[0].lower(), words[1]
        if verb != _PHASE_VERBS[phase]:
            raise IllegalActionError(
                "luz.error.wrong_time", text=text, expected=message(_EXPECTED[phase])
            )
        if phase == PHASE_DEAL:
            return string_to_card(argument)
        if phase == PHASE_BET:
            safety = 1 if argument.endswith("+") else 0
            number = ascii_number(argument.removesuffix("+"))
            if number is None or number > self._game.hand_size:
                raise IllegalActionError("luz.error.bet_range", cards=self._game.hand_size)
            return bet_action(number, safety)
        if phase == PHASE_PLAY:
            position = ascii_number(argument)
            if position is None or position >= self._game.hand_size:
                raise IllegalActionError("luz.error.no_card_there", position=argument)
            return PLAY_BASE + position
        seat = ascii_number(argument.upper().removeprefix("P"))
        if seat is None or not 1 <= seat <= self._players:
            raise IllegalActionError("luz.error.not_a_seat", players=self._players)
        return FIRST_BASE + seat - 1

    # -- referee views: for tests and the server, never for a bot -----------------------

    def hand(self, seat: Seat) -> list[int]:
        """The cards ``seat`` still holds, in slot order."""
        return [held for held in self._hands[seat] if held != PLAYED]

    def every_card(self) -> list[int]:
        tricks = self._completed
        if self._phase == PHASE_END:
            tricks = self._past[-1].played
        cards = [*self._remaining, *(play.card for play in self._trick)]
        cards += [play.card for trick in tricks for play in trick.plays]
        if self._phase == PHASE_DEAL:
            cards += [card for dealt in self._dealt for card in dealt]
        else:
            cards += [card for hand in self._hands for card in hand if card != PLAYED]
        return sorted(cards)

    def set_aside(self) -> list[int]:
        """The cards nobody sees this deal (the undealt rest, during the deal)."""
        return sorted(self._remaining)
