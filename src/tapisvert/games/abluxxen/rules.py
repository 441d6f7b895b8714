"""Abluxxen (Linko!) as a state machine (for players: ``rules.en.md``, ``rules.fr.md``).

A turn: the active seat plays a set; unless its hand is now empty, each opponent whose
top set has the same size and a lower value is abluxxed in turn from its left — in the
duel, the imaginary third player first. For a real victim the thief takes the cards or
declines; after a decline the victim takes them back or discards them; whoever is owed
cards draws them one by one from the display or the pile, and the display is refilled
once they are done. Every decision is the decision point of the seat that makes it.

Chance steps: each card of the deal, each display refill, each card drawn from the pile
(the pile's order is unknown to all, so a draw is a uniform pick from its contents), and
in the duel each card drawn into the imaginary player's face-up row.

A series (option ``series``, or ``series_target``) plays game after game on a fresh deal,
the start player moving one seat to the left each time, and adds up the scores.
"""

from __future__ import annotations

import random
from functools import lru_cache
from operator import add, sub
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
    parse_optional_seat,
)
from tapisvert.core.notation import ascii_number
from tapisvert.core.tuples import added, replaced
from tapisvert.games.abluxxen.cards import (
    COPIES,
    DISPLAY_SIZE,
    HAND_SIZE,
    HIGHEST,
    JOKER,
    JOKER_SET_VALUE,
    JOKERS,
    KINDS,
    CardSet,
    can_steal,
    card_tuple,
    cards_of,
    is_playable,
    kind_to_string,
    legal_sets,
    set_to_string,
    string_to_kind,
    string_to_set,
)
from tapisvert.games.abluxxen.observation import AbluxxenObservation as AbluxxenObservation
from tapisvert.games.abluxxen.observation import GameSummary as GameSummary
from tapisvert.games.abluxxen.observation import SeatView as SeatView
from tapisvert.games.abluxxen.observation import cards_json, public_json
from tapisvert.i18n import message

DUMMY: Final = -2
"""The imaginary third player of the duel, as a victim."""
DUEL_JOKERS_EACH: Final = 2

SET_BASE: Final = 1000
TAKE: Final = 3000
DECLINE: Final = 3001
KEEP: Final = 3002
DISCARD: Final = 3003
DRAW_PILE: Final = 3004
DRAW_DISPLAY_BASE: Final = 3010
DUMMY_STEAL_BASE: Final = 3100

PHASE_START: Final = 0
PHASE_DEAL: Final = 1
PHASE_PLAY: Final = 2
PHASE_STEAL: Final = 3
PHASE_VICTIM: Final = 4
PHASE_DRAW: Final = 5
PHASE_PILE: Final = 6
PHASE_REFILL: Final = 7
PHASE_DUMMY_CHOICE: Final = 8
PHASE_DUMMY_REFILL: Final = 9
PHASE_END: Final = 10
PHASE_NAMES = (
    "start",
    "deal",
    "play",
    "steal",
    "victim",
    "draw",
    "pile",
    "refill",
    "dummy_choice",
    "dummy_refill",
    "end",
)
_CHANCE_VERBS = {
    PHASE_DEAL: "deal",
    PHASE_PILE: "pile",
    PHASE_REFILL: "refill",
    PHASE_DUMMY_REFILL: "dummy",
}


def set_action(played: CardSet) -> Action:
    return SET_BASE + played.value * 100 + played.numbers * 10 + played.jokers


def action_set(action: Action) -> CardSet:
    code = action - SET_BASE
    return CardSet(code // 100, code // 10 % 10, code % 10)


def _sets_of(value: int, hand: list[int]) -> tuple[Action, ...]:
    """The sets of ``value`` (``JOKER_SET_VALUE``: jokers alone) that ``hand`` can play, as
    actions, in the order of ``legal_sets``."""
    return tuple([set_action(played) for played in legal_sets(hand) if played.value == value])


def _hand_of(value: int, count: int, jokers: int) -> list[int]:
    hand = [0] * KINDS
    hand[value] += count
    hand[JOKER] += jokers
    return hand


_SETS_WITH: Final = tuple(
    tuple(
        tuple(_sets_of(value, _hand_of(value, count, jokers)) for jokers in range(JOKERS + 1))
        for count in range(COPIES + 1)
    )
    for value in range(KINDS)
)
"""``_SETS_WITH[value][count][jokers]``: the sets of ``value`` that ``count`` cards of it and
``jokers`` jokers can play (a hand is new at most moves, and a set made as a ``CardSet`` costs
more than its action found in a table)."""
_JOKER_SETS: Final = tuple(
    _sets_of(JOKER_SET_VALUE, _hand_of(JOKER, 0, jokers)) for jokers in range(JOKERS + 1)
)
"""``_JOKER_SETS[jokers]``: the sets of jokers alone."""


def _set_actions(hand: tuple[int, ...]) -> list[Action]:
    """The sets ``hand`` can play, as actions, in the order of ``legal_sets``."""
    jokers = hand[JOKER]
    actions: list[Action] = []
    for value in range(1, KINDS):
        count = hand[value]
        if count:
            actions += _SETS_WITH[value][count][jokers]
    actions += _JOKER_SETS[jokers]
    return actions


def _set_text(action: Action) -> str:
    """A set's action in notation."""
    return f"set {set_to_string(action_set(action))}"


_SET_TEXTS: Final = {
    action: _set_text(action)
    for sets in (*(by_count[COPIES][JOKERS] for by_count in _SETS_WITH), _JOKER_SETS[JOKERS])
    for action in sets
}
"""Every set's action in notation, from the sets of a hand holding every copy and joker (the
seat to act is offered its sets in notation after every move)."""


@lru_cache(maxsize=16384)
def _set_texts(hand: tuple[int, ...]) -> tuple[str, ...]:
    """``_set_actions(hand)`` in notation."""
    return tuple(map(_SET_TEXTS.__getitem__, _set_actions(hand)))


_totals_of: IdentityCache[tuple[GameSummary, ...], tuple[int, ...]] = IdentityCache(
    lambda past: tuple(map(sum, zip(*(summary.points for summary in past), strict=True)))
)
"""Each seat's points over the finished games of a series, once per tuple of them (a view or
tensor of every position reads them)."""


class AbluxxenGame(Game["AbluxxenState"]):
    """Abluxxen for 2 to 5 players, with the duel against an imaginary third player.

    ``highest``, ``copies``, ``jokers``, ``hand_size`` and ``display_size`` shrink the deck
    and the deal: the same game made small enough for exact analysis (OpenSpiel's CFR and
    best responses). The duel keeps the whole deck.
    """

    name = "abluxxen"
    observation_class = AbluxxenObservation
    sampler = "tapisvert.games.abluxxen.sampler"
    min_players = 2
    max_players = 5
    option_specs = (
        OptionSpec(
            "start_player", None, parse_optional_seat, "abluxxen.option.start_player", "seat"
        ),
        OptionSpec("duel", False, parse_bool, "abluxxen.option.duel", "bool"),
        OptionSpec("dummy_subset_steal", False, parse_bool, "abluxxen.option.dummy_subset", "bool"),
        OptionSpec("tie_break", False, parse_bool, "abluxxen.option.tie_break", "bool"),
        OptionSpec("series", False, parse_bool, "abluxxen.option.series", "bool"),
        OptionSpec(
            "series_target",
            None,
            parse_optional_int,
            "abluxxen.option.series_target",
            "int",
            minimum=1,
        ),
        OptionSpec(
            "highest",
            HIGHEST,
            parse_int_between(1, HIGHEST),
            "abluxxen.option.highest",
            "int",
            minimum=1,
            maximum=HIGHEST,
            shrinks=True,
        ),
        OptionSpec(
            "copies",
            COPIES,
            parse_int_between(1, COPIES),
            "abluxxen.option.copies",
            "int",
            minimum=1,
            maximum=COPIES,
            shrinks=True,
        ),
        OptionSpec(
            "jokers",
            JOKERS,
            parse_int_between(0, JOKERS),
            "abluxxen.option.jokers",
            "int",
            minimum=0,
            maximum=JOKERS,
            shrinks=True,
        ),
        OptionSpec(
            "hand_size",
            HAND_SIZE,
            parse_int_between(1, HAND_SIZE),
            "abluxxen.option.hand_size",
            "int",
            minimum=1,
            maximum=HAND_SIZE,
            shrinks=True,
        ),
        OptionSpec(
            "display_size",
            DISPLAY_SIZE,
            parse_int_between(1, DISPLAY_SIZE),
            "abluxxen.option.display_size",
            "int",
            minimum=1,
            maximum=DISPLAY_SIZE,
            shrinks=True,
        ),
    )

    def __init__(self, players: int, **options: object) -> None:
        super().__init__(players, **options)
        self.duel = bool(self.options["duel"])
        if self.duel and players != 2:
            raise OptionError("abluxxen.error.duel_players", players=players)
        self.subset_steal = bool(self.options["dummy_subset_steal"])
        self.tie_break = bool(self.options["tie_break"])
        self.start_player = self.seat_option("start_player")
        target = self.options["series_target"]
        self.series_target: int | None = None if target is None else int(str(target))
        if self.series_target == 0:
            raise OptionError("abluxxen.error.series_target")
        self.games: int | None = (
            None if self.series_target is not None else players if self.options["series"] else 1
        )
        """How many games are played; ``None``: until a total reaches ``series_target``."""
        highest, copies = int(str(self.options["highest"])), int(str(self.options["copies"]))
        jokers = int(str(self.options["jokers"]))
        self.deck_counts: tuple[int, ...] = (
            jokers,
            *([copies] * highest),
            *([0] * (HIGHEST - highest)),
        )
        self.hand_size = int(str(self.options["hand_size"]))
        self.display_size = int(str(self.options["display_size"]))
        whole = (highest, copies, jokers, self.hand_size, self.display_size)
        if self.duel and whole != (HIGHEST, COPIES, JOKERS, HAND_SIZE, DISPLAY_SIZE):
            raise OptionError("abluxxen.error.duel_whole_deck")
        needed = self.hand_size * players + self.display_size
        if needed > sum(self.deck_counts):
            raise OptionError(
                "abluxxen.error.deck_too_small", needed=needed, deck=sum(self.deck_counts)
            )

    def new_initial_state(self, seed: int | None = None) -> AbluxxenState:
        return AbluxxenState(self, seed)


def stack_sizes(stacks: tuple[tuple[CardSet, ...], ...]) -> tuple[int, ...]:
    """The cards in each stack."""
    return tuple(sum(played.size for played in stack) for stack in stacks)


class AbluxxenState(State):
    def __init__(self, game: AbluxxenGame, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self._game = game  # ``game`` as this game's: compiled, an attribute keeps its base's type
        self._players = game.players
        self._game_index = 0
        self._past_games: tuple[GameSummary, ...] = ()
        self._set_up_game(game.start_player or 0)
        if game.start_player is None:
            self._phase = PHASE_START

    def lay_stacks(self, stacks: tuple[tuple[CardSet, ...], ...]) -> None:
        """Every stack at once (a new game, a world drawn, a position set up), with the
        cards in each counted: kept beside the stacks, since a score reads them at every
        view."""
        self._stacks = stacks
        self._stacked = stack_sizes(stacks)

    def _set_up_game(self, starter: Seat) -> None:
        """A full deck and empty tables, ready to deal a game that ``starter`` begins."""
        players = self._players
        none: tuple[int, ...] = (0,) * KINDS
        self._pile = self._game.deck_counts
        """Count vectors, by kind: the pile, each hand, what is known of each hand, …"""
        self._hands = (none,) * players
        self._known = (none,) * players
        self.lay_stacks(((),) * players)
        self._display: tuple[tuple[int, ...], ...] = ()
        self._discard = none
        self._dummy = none
        self._played: CardSet | None = None
        self._steals: tuple[Seat, ...] = ()
        self._victim: Seat | None = None
        self._in_play: tuple[int, ...] = ()
        self._drawer: Seat | None = None
        self._draws_left = 0
        self._refill = False
        if self._game.duel:
            self._hands = (added(none, JOKER, DUEL_JOKERS_EACH),) * players
            self._pile = added(self._pile, JOKER, -DUEL_JOKERS_EACH * players)
        per_seat = self._game.hand_size - (DUEL_JOKERS_EACH if self._game.duel else 0)
        self._deal_queue = (*range(players),) * per_seat + (-1,) * self._game.display_size
        self._starter = self._active = starter
        self._phase = PHASE_DEAL
        self._player = CHANCE

    def clone(self) -> AbluxxenState:
        twin = self._bare_clone()
        twin._active = self._active
        twin._deal_queue = self._deal_queue
        twin._discard = self._discard
        twin._display = self._display
        twin._drawer = self._drawer
        twin._draws_left = self._draws_left
        twin._dummy = self._dummy
        twin._game = self._game
        twin._game_index = self._game_index
        twin._hands = self._hands
        twin._in_play = self._in_play
        twin._known = self._known
        twin._past_games = self._past_games
        twin._phase = self._phase
        twin._pile = self._pile
        twin._played = self._played
        twin._player = self._player
        twin._players = self._players
        twin._refill = self._refill
        twin._stacks = self._stacks
        twin._stacked = self._stacked
        twin._starter = self._starter
        twin._steals = self._steals
        twin._victim = self._victim
        return twin

    # -- the contract ---------------------------------------------------------------------

    def current_player(self) -> Seat:
        return self._player

    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase == PHASE_PLAY:
            return _set_actions(self._hands[self._player])
        if phase == PHASE_STEAL:
            return [TAKE, DECLINE]
        if phase == PHASE_VICTIM:
            return [KEEP, DISCARD]
        if phase == PHASE_DRAW:
            display = [DRAW_DISPLAY_BASE + index for index in range(len(self._display))]
            return [*display, DRAW_PILE] if sum(self._pile) else display
        if phase == PHASE_DUMMY_CHOICE:
            return [DUMMY_STEAL_BASE + value for value in self._dummy_options()]
        if phase == PHASE_START:
            return list(range(self._players))
        if phase in _CHANCE_VERBS:
            return [kind for kind in range(KINDS) if self._pile[kind]]
        return []

    def legal_strings(self) -> list[str]:
        if self._phase == PHASE_PLAY:
            return list(_set_texts(self._hands[self._player]))
        return super().legal_strings()

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self._phase == PHASE_START:
            return [(seat, 1 / self._players) for seat in range(self._players)]
        if self._player != CHANCE:
            return []
        total = sum(self._pile)
        return [(kind, self._pile[kind] / total) for kind in range(KINDS) if self._pile[kind]]

    def apply_action(self, action: Action) -> None:
        phase = self._phase
        if phase == PHASE_PLAY:
            self._play(action)
        elif phase == PHASE_STEAL:
            self._thief_decides(action)
        elif phase == PHASE_VICTIM:
            self._victim_decides(action)
        elif phase == PHASE_DRAW:
            self._choose_draw(action)
        elif phase == PHASE_DUMMY_CHOICE:
            if action - DUMMY_STEAL_BASE not in self._dummy_options():
                raise IllegalActionError("abluxxen.error.dummy_choice")
            self._steal_from_dummy(action - DUMMY_STEAL_BASE)
        elif phase == PHASE_START:
            if not 0 <= action < self._players:
                raise IllegalActionError("abluxxen.error.not_a_seat", players=self._players)
            self._starter = self._active = action
            self._phase = PHASE_DEAL
        elif phase in _CHANCE_VERBS:
            if not (0 <= action < KINDS and self._pile[action]):
                raise IllegalActionError("abluxxen.error.not_in_pile", card=str(action))
            self._chance(action)
        else:
            raise IllegalActionError("error.game_over")
        self._history = (self._history, action)

    def resolve_chance(self, rng: random.Random | None = None) -> None:
        """Draw chance outcomes until a seat decides; a whole deal at once."""
        generator = self._own_rng() if rng is None else rng
        while self._player == CHANCE:
            if self._phase == PHASE_START:
                action = generator.randrange(self._players)
                self._starter = self._active = action
                self._phase = PHASE_DEAL
                self._history = (self._history, action)
                continue
            count = len(self._deal_queue) if self._phase == PHASE_DEAL else 1
            drawn = draw(cards_of(self._pile), count, generator)
            for card in drawn:
                self._chance(card)
            self._history = (self._history, tuple(drawn))

    def returns(self) -> list[float]:
        return [float(total) for total in self.totals()]

    def score(self, seat: Seat) -> int:
        """``seat``'s score in the game on the table."""
        return self._stacked[seat] - sum(self._hands[seat])

    def totals(self) -> tuple[int, ...]:
        """The scores of the series: the games played, and the one going on."""
        finished = self._finished_totals()
        if self._phase == PHASE_END:
            return finished
        return tuple(total + self.score(seat) for seat, total in enumerate(finished))

    def _finished_totals(self) -> tuple[int, ...]:
        past = self._past_games
        return _totals_of(past) if past else (0,) * self._players

    def segment(self) -> int:
        return self._game_index

    def winners(self) -> list[Seat]:
        """Best score (of the series: total); ties are shared, or (option ``tie_break``) go
        to fewer cards in hand, then more cards in the stack, in the last game."""
        totals = self.totals()

        def key(seat: Seat) -> tuple[int, ...]:
            if not self._game.tie_break:
                return (totals[seat],)
            return (totals[seat], -sum(self._hands[seat]), self._stacked[seat])

        best = max(key(seat) for seat in range(self._players))
        return [seat for seat in range(self._players) if key(seat) == best]

    def observation(self, seat: Seat | None) -> AbluxxenObservation:
        self.check_seat(seat)
        public = self._shared("public", self._public_view)
        return AbluxxenObservation.assemble({**public, "seat": seat, "hand": self._hand(seat)})

    def view_parts(self, seat: Seat | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The public part converted once for every seat's view of the position."""
        public = self._shared_converted("public", self._public_view, public_json)
        return public, {"seat": seat, "hand": cards_json(self._hand(seat))}

    def _hand(self, seat: Seat | None) -> tuple[int, ...]:
        if seat is None:
            return ()
        return self._shared(seat, lambda: card_tuple(self._hands[seat]))

    def seat_view(self, seat: Seat) -> SeatView:
        """What ``observation(seat).seat_view()`` gives, without the observation."""
        return SeatView(seat, self._hands[seat], self._stacks, self._display, self._in_play)

    def _public_view(self) -> dict[str, Any]:
        finished = self._finished_totals()
        hand_sizes = tuple(map(sum, self._hands))
        game_scores = tuple(map(sub, self._stacked, hand_sizes))
        return {
            "players": self._players,
            "active": self._active,
            "phase": PHASE_NAMES[self._phase],
            "current_player": self._player,
            "hand_sizes": hand_sizes,
            "known_in_hand": tuple(map(card_tuple, self._known)),
            "stacks": self._stacks,
            "display": self._display,
            "pile_size": sum(self._pile),
            "discard": card_tuple(self._discard),
            "dummy": card_tuple(self._dummy),
            "played": self._played,
            "victim": self._victim,
            "in_play": self._in_play,
            "drawer": self._drawer,
            "draws_left": self._draws_left,
            "pending_steals": self._steals,
            "refill_pending": self._refill,
            "deal_queue": self._deal_queue,
            "game_scores": game_scores,
            "scores": (
                tuple(map(add, finished, game_scores)) if self._phase != PHASE_END else finished
            ),
            "game_number": self._game_index + 1,
            "games": self._game.games,
            "series_target": self._game.series_target,
            "starter": self._starter,
            "past_games": self._past_games,
        }

    # -- notation ---------------------------------------------------------------------------

    def action_to_string(self, action: Action) -> str:
        if self._phase == PHASE_START and 0 <= action < self._players:
            return f"start P{action + 1}"
        if 0 <= action < KINDS:
            verb = _CHANCE_VERBS.get(self._phase, "deal")
            return f"{verb} {kind_to_string(action)}"
        if SET_BASE <= action < TAKE:
            return _set_text(action)
        words = {
            TAKE: "take",
            DECLINE: "decline",
            KEEP: "keep",
            DISCARD: "discard",
            DRAW_PILE: "draw pile",
        }
        if action in words:
            return words[action]
        if DRAW_DISPLAY_BASE <= action < DUMMY_STEAL_BASE:
            return f"draw display {action - DRAW_DISPLAY_BASE + 1}"
        if DUMMY_STEAL_BASE <= action <= DUMMY_STEAL_BASE + HIGHEST:
            return f"steal dummy {action - DUMMY_STEAL_BASE}"
        raise IllegalActionError("error.unknown_action_id", action=action)

    def string_to_action(self, text: str) -> Action:
        words = text.lower().split()
        phase = self._phase
        expected = message(_EXPECTED[phase])
        if phase == PHASE_END:
            raise IllegalActionError("error.game_over")
        simple = {
            ("take",): TAKE,
            ("decline",): DECLINE,
            ("keep",): KEEP,
            ("discard",): DISCARD,
            ("draw", "pile"): DRAW_PILE,
        }
        if tuple(words) in simple:
            return simple[tuple(words)]
        if len(words) == 2 and words[0] == "set":
            return set_action(string_to_set(words[1]))
        place = ascii_number(words[2]) if len(words) == 3 else None
        shown = self._game.display_size
        if words[:2] == ["draw", "display"] and place is not None and 1 <= place <= shown:
            return DRAW_DISPLAY_BASE + place - 1
        if len(words) == 3 and words[:2] == ["steal", "dummy"]:
            return DUMMY_STEAL_BASE + string_to_kind(words[2])
        if len(words) == 2 and words[0] == "start" and words[1].upper().startswith("P"):
            seat = ascii_number(words[1][1:])
            if seat is not None and seat >= 1:
                return seat - 1
        if len(words) == 2 and words[0] == _CHANCE_VERBS.get(phase):
            return string_to_kind(words[1])
        raise IllegalActionError("abluxxen.error.unknown_move", text=text, expected=expected)

    # -- referee views: for tests and the server, never for a bot --------------------------

    def every_card(self) -> list[int]:
        counts = [
            sum(kind)
            for kind in zip(self._pile, self._discard, self._dummy, *self._hands, strict=True)
        ]
        cards = [*cards_of(counts), *self._in_play]
        cards += [card for entry in self._display for card in entry]
        cards += [card for stack in self._stacks for played in stack for card in played.cards()]
        return sorted(cards)

    def hand(self, seat: Seat) -> list[int]:
        return cards_of(self._hands[seat])

    def pile(self) -> list[int]:
        return cards_of(self._pile)

    # -- transitions ------------------------------------------------------------------------

    def _chance(self, card: int) -> None:
        self._pile = added(self._pile, card, -1)
        phase = self._phase
        if phase == PHASE_DEAL:
            target = self._deal_queue[0]
            self._deal_queue = self._deal_queue[1:]
            if target >= 0:
                self._hands = replaced(self._hands, target, added(self._hands[target], card, 1))
            else:
                self._display += ((card,),)
            if not self._deal_queue:
                if self._game.duel:
                    self._phase = PHASE_DUMMY_REFILL
                    return
                self._begin_turn()
            return
        if phase == PHASE_PILE:
            drawer = self._drawer
            assert drawer is not None
            self._hands = replaced(self._hands, drawer, added(self._hands[drawer], card, 1))
            self._draws_left -= 1
        elif phase == PHASE_REFILL:
            self._display += ((card,),)
        elif phase == PHASE_DUMMY_REFILL:
            if card in (HIGHEST, JOKER):
                index = self._lowest_display_entry()
                self._display = replaced(self._display, index, (*self._display[index], card))
            else:
                self._dummy = added(self._dummy, card, 1)
        self._advance()

    def _lowest_display_entry(self) -> int:
        """Where a 13 or joker from the imaginary player goes: the lowest entry that carries
        no extra card yet (a joker counts 14; leftmost on ties), else the lowest entry."""

        def value(index: int) -> int:
            first = self._display[index][0]
            return JOKER_SET_VALUE if first == JOKER else first

        entries = range(len(self._display))
        bare = [index for index in entries if len(self._display[index]) == 1]
        return min(bare or entries, key=value)

    def _begin_turn(self) -> None:
        self._phase = PHASE_PLAY
        self._player = self._active
        self._played = None
        self._victim = None

    def _play(self, action: Action) -> None:
        player = self._player
        hand = self._hands[player]
        played = action_set(action) if SET_BASE <= action < TAKE else None
        if played is None or not is_playable(played, hand):
            raise IllegalActionError(
                "abluxxen.error.illegal_set",
                set=set_to_string(played) if played else str(action),
            )
        known = list(self._known[player])
        for card in played.cards():
            hand = added(hand, card, -1)
            # Others cannot tell a known card from an unknown one of the same kind.
            known[card] = max(0, known[card] - 1)
        self._hands = replaced(self._hands, player, hand)
        self._known = replaced(self._known, player, tuple(known))
        self._stacks = replaced(self._stacks, player, (*self._stacks[player], played))
        self._stacked = added(self._stacked, player, played.size)
        self._played = played
        if not sum(hand):
            self._finish()
            return
        order = [(player + offset) % self._players for offset in range(1, self._players)]
        self._steals = (DUMMY,) if self._game.duel and self._dummy_options() else ()
        self._steals += tuple(
            victim
            for victim in order
            if self._stacks[victim] and can_steal(played, self._stacks[victim][-1])
        )
        self._advance()

    def _dummy_options(self) -> list[int]:
        """The values of the imaginary player's cards that the set on the table may steal."""
        played = self._played
        if played is None:
            return []
        return [
            value
            for value in range(1, HIGHEST)
            if value < played.value
            and (
                self._dummy[value] >= played.size
                if self._game.subset_steal
                else self._dummy[value] == played.size
            )
        ]

    def _steal_from_dummy(self, value: int) -> None:
        assert self._played is not None
        size = self._played.size
        self._dummy = added(self._dummy, value, -size)
        self._receive_openly(self._active, (value,) * size)
        self._advance()

    def _thief_decides(self, action: Action) -> None:
        if action not in (TAKE, DECLINE):
            raise IllegalActionError("abluxxen.error.take_or_decline")
        assert self._victim is not None
        if action == TAKE:
            self._receive_openly(self._active, self._in_play)
            self._owe(self._victim, len(self._in_play))
            self._in_play = ()
            self._advance()
            return
        self._phase = PHASE_VICTIM
        self._player = self._victim

    def _victim_decides(self, action: Action) -> None:
        if action not in (KEEP, DISCARD):
            raise IllegalActionError("abluxxen.error.keep_or_discard")
        assert self._victim is not None
        if action == KEEP:
            self._receive_openly(self._victim, self._in_play)
        else:
            for card in self._in_play:
                self._discard = added(self._discard, card, 1)
            self._owe(self._victim, len(self._in_play))
        self._in_play = ()
        self._advance()

    def _receive_openly(self, seat: Seat, cards: tuple[int, ...]) -> None:
        """Cards that everyone sees go into ``seat``'s hand: they are known to be there."""
        hand, known = self._hands[seat], self._known[seat]
        for card in cards:
            hand, known = added(hand, card, 1), added(known, card, 1)
        self._hands = replaced(self._hands, seat, hand)
        self._known = replaced(self._known, seat, known)

    def _owe(self, seat: Seat, count: int) -> None:
        self._drawer = seat
        self._draws_left = count
        self._refill = True

    def _choose_draw(self, action: Action) -> None:
        drawer = self._drawer
        assert drawer is not None
        if action == DRAW_PILE:
            if not sum(self._pile):
                raise IllegalActionError("abluxxen.error.pile_empty")
            self._phase = PHASE_PILE
            self._player = CHANCE
            return
        index = action - DRAW_DISPLAY_BASE
        if not 0 <= index < len(self._display):
            raise IllegalActionError("abluxxen.error.no_display_card", position=index + 1)
        taken = self._display[index]
        self._display = (*self._display[:index], *self._display[index + 1 :])
        self._receive_openly(drawer, taken)
        self._draws_left -= 1
        self._advance()

    def _exhausted(self) -> bool:
        return not self._display and not sum(self._pile)

    def _advance(self) -> None:
        """Go on with the turn: owed draws, the display refill, the imaginary player's
        refill, the next steal, or the next turn."""
        if self._exhausted():
            self._finish()
            return
        if self._drawer is not None:
            if self._draws_left > 0:
                self._phase, self._player = PHASE_DRAW, self._drawer
                return
            self._drawer = None
        if self._refill:
            if len(self._display) < self._game.display_size and sum(self._pile) > 0:
                self._phase, self._player = PHASE_REFILL, CHANCE
                return
            self._refill = False
        if self._game.duel and sum(self._dummy) < HAND_SIZE and sum(self._pile) > 0:
            self._phase, self._player = PHASE_DUMMY_REFILL, CHANCE
            return
        if self._played is None:
            self._begin_turn()
            return
        while self._steals:
            victim, *others = self._steals
            self._steals = tuple(others)
            if victim == DUMMY:
                options = self._dummy_options()
                if len(options) > 1:
                    self._phase, self._player = PHASE_DUMMY_CHOICE, self._active
                    return
                self._steal_from_dummy(options[0])
                return
            self._victim = victim
            *kept, taken = self._stacks[victim]
            self._stacks = replaced(self._stacks, victim, tuple(kept))
            self._stacked = added(self._stacked, victim, -taken.size)
            self._in_play = tuple(taken.cards())
            self._phase, self._player = PHASE_STEAL, self._active
            return
        self._active = (self._active + 1) % self._players
        self._begin_turn()

    def _finish(self) -> None:
        """The game is over: its scores join the series, and the next game is set up."""
        points = tuple(self.score(seat) for seat in range(self._players))
        summary = GameSummary(self._game_index + 1, self._starter, points)
        self._past_games = (*self._past_games, summary)
        if self._series_goes_on():
            self._game_index += 1
            self._set_up_game((self._starter + 1) % self._players)
            return
        self._phase = PHASE_END
        self._player = TERMINAL

    def _series_goes_on(self) -> bool:
        target, games = self._game.series_target, self._game.games
        if target is not None:
            return max(self._finished_totals()) < target
        assert games is not None
        return len(self._past_games) < games


_EXPECTED = (
    "abluxxen.expect.chance",
    "abluxxen.expect.chance",
    "abluxxen.expect.play",
    "abluxxen.expect.steal",
    "abluxxen.expect.victim",
    "abluxxen.expect.draw",
    "abluxxen.expect.chance",
    "abluxxen.expect.chance",
    "abluxxen.expect.dummy",
    "abluxxen.expect.chance",
    "abluxxen.expect.end",
)
