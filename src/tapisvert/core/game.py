"""The contract every game implements: an immutable :class:`Game` and a mutable :class:`State`.

Vocabulary follows OpenSpiel. Chance is explicit: at a ``CHANCE`` node the caller
either applies an outcome of :meth:`State.chance_outcomes` (replays, tests, duplicate
deals) or lets the engine draw it with :meth:`State.resolve_chance`. The action
history is therefore the complete game record.
"""

from __future__ import annotations

import random
from abc import ABC, ABCMeta, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from importlib import import_module
from types import MappingProxyType
from typing import Any, ClassVar, Final, Generic, Self, TypeVar, cast

from mypy_extensions import mypyc_attr

from tapisvert.core.errors import OptionError, SeatError
from tapisvert.core.observation import Observation as Observation
from tapisvert.core.options import OptionKind as OptionKind
from tapisvert.core.options import OptionSpec as OptionSpec
from tapisvert.core.options import parse_bool as parse_bool
from tapisvert.core.options import parse_int_between as parse_int_between
from tapisvert.core.options import parse_optional_int as parse_optional_int
from tapisvert.core.options import parse_optional_int_between as parse_optional_int_between
from tapisvert.core.options import parse_optional_seat as parse_optional_seat

Action = int
Seat = int
CHANCE: Final[Seat] = -1
TERMINAL: Final[Seat] = -4

HistoryNode = tuple[Any, Action | tuple[Action, ...]] | None
"""A persistent history, shared between a state and its clones: ``(parent, action)``, or
``(parent, actions)`` for several chance outcomes drawn at once. The parent is a
``HistoryNode`` too (not said so in the type: mypyc cannot compile a recursive alias)."""


def flatten_history(node: HistoryNode, stop: HistoryNode = None) -> list[Action]:
    """The actions from the root of ``node``'s history, or after ``stop``, one of its
    ancestors: a position's latest actions without walking back to its deal."""
    chunks: list[tuple[Action, ...]] = []
    while node is not stop:
        if node is None:
            raise ValueError("this history does not pass through the one to start after")
        node, actions = node
        chunks.append((actions,) if isinstance(actions, int) else actions)
    return [action for chunk in reversed(chunks) for action in chunk]


S = TypeVar("S", bound="State")
T = TypeVar("T")
U = TypeVar("U")


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(ABC, Generic[S]):
    """An immutable description of one game with its player count and options."""

    name: ClassVar[str]
    observation_class: ClassVar[type[Observation]]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int | None] = None
    """The player count when none is given; ``None``: ``min_players`` (a game whose fewest
    players need an option off its default names a count its defaults allow)."""
    option_specs: ClassVar[Sequence[OptionSpec]] = ()
    sampler: ClassVar[str]
    """The module whose ``sample_state(game, observation, rng)`` draws what a seat cannot see;
    imported when first needed (a sampler builds states, so it imports the rules)."""

    @classmethod
    def card_faces(cls) -> dict[str, dict[str, object]]:
        """What each card shows, by its notation, for a client that draws the cards.

        JSON-ready; empty for a game whose notation says it all (a suit and a value).
        """
        return {}

    @classmethod
    def scoring(cls) -> dict[str, object]:
        """The game's published scoring tables, JSON-ready, for a client to show beside the
        score sheet; empty for a game whose scoring the rules say in a sentence."""
        return {}

    def __init__(self, players: int, **options: object) -> None:
        if not self.min_players <= players <= self.max_players:
            raise OptionError(
                "error.players",
                game=self.name,
                players=players,
                low=self.min_players,
                high=self.max_players,
            )
        self.players = players
        known = {spec.name: spec for spec in self.option_specs}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise OptionError(
                "error.unknown_option", name=unknown[0], known=", ".join(sorted(known)) or "-"
            )
        values: dict[str, object] = {}
        for spec in self.option_specs:
            raw = options.get(spec.name, spec.default)
            try:
                values[spec.name] = spec.parse(raw)
            except ValueError as error:
                raise OptionError(
                    "error.option_value", name=spec.name, value=raw, reason=str(error)
                ) from None
        self.options: Mapping[str, object] = MappingProxyType(values)

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={value!r}" for key, value in self.options.items())
        return f"{type(self).__name__}(players={self.players}, {shown})"

    def __reduce__(self) -> tuple[Callable[..., Game[Any]], tuple[Any, ...]]:
        """Pickled as its class, players and options, which make the whole of it (OpenSpiel
        serialises a state by pickling it)."""
        return (_rebuilt_game, (type(self), self.players, dict(self.options)))

    def seat_option(self, name: str) -> Seat | None:
        """A seat given as an option (``P1``…), checked against the seats; ``None`` is random."""
        value = self.options[name]
        if value is None:
            return None
        seat = int(str(value))
        if not 0 <= seat < self.players:
            raise OptionError(
                "error.seat_option", name=name, players=self.players, last=self.players - 1
            )
        return seat

    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> S:
        """A fresh game; ``seed`` drives the chance outcomes the engine draws itself."""

    def sample_state(self, observation: Observation, rng: random.Random) -> S:
        """A full state whose ``observation(observation.seat)`` equals ``observation``."""
        if not isinstance(observation, self.observation_class):
            raise TypeError(f"{self.name} samples states from a {self.observation_class.__name__}")
        draw: Callable[[Game[S], Observation, random.Random], S] | None
        draw = _SAMPLERS.get(self.sampler)
        if draw is None:  # looked up once: a search draws thousands of worlds a second
            draw = _SAMPLERS[self.sampler] = import_module(self.sampler).sample_state
        return draw(self, observation, rng)


_SAMPLERS: Final[dict[str, Callable[..., Any]]] = {}
"""Each game's ``sample_state``, by the name of its sampler's module."""


_MISSING: Final[Any] = object()

_Parts = tuple[HistoryNode, dict[Hashable, Any], dict[Hashable, Any]]
"""A position's history node, the parts of its observations computed so far, and those
of the position before."""


def _kept(new: T, old: Any) -> T:
    """``new``, with what equals ``old`` (the whole, or an item of a dictionary or a tuple)
    replaced by ``old``'s object."""
    value: Any = new
    if type(old) is not type(value):
        return new
    if type(value) is dict:
        for key, item in value.items():
            earlier = old.get(key, _MISSING)
            if earlier is not item:
                value[key] = _kept(item, earlier)
        return new
    if old == value:
        return cast(T, old)
    if type(value) is tuple and len(value) == len(old):
        return cast(T, tuple(map(_same, value, old)))
    return new


def _same(new: object, old: object) -> object:
    return old if type(old) is type(new) and old == new else new


def _rebuilt_game(cls: type[Game[Any]], players: int, options: dict[str, object]) -> Game[Any]:
    return cls(players, **options)


@mypyc_attr(allow_interpreted_subclasses=True)
class State(metaclass=ABCMeta):
    """A position. Mutable; :meth:`clone` is cheap and written by hand."""

    game: Game[Any]

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        """Written out so that ``cls.__new__(cls)`` makes a blank state, compiled or not
        (mypyc's own constructor would run ``__init__``)."""
        return object.__new__(cls)

    def __init__(self, game: Game[Any], seed: int | None = None) -> None:
        self.game = game
        self._seed = seed
        self._rng: random.Random | None = None
        self._history: HistoryNode = None
        self._parts: _Parts | None = None

    def _bare_clone(self) -> Self:
        """What a game's :meth:`clone` starts from: a state of this class with this one's
        game, seed, generator, history and observation parts, and nothing else.

        The game copies its own fields into it. Compiled (``scripts/compile``), a state keeps
        these fields out of its ``__dict__``, and ``object.__new__`` cannot make one.
        """
        twin = type(self).__new__(type(self))
        twin.game = self.game
        twin._seed = self._seed
        twin._rng = self._rng
        twin._history = self._history
        twin._parts = self._parts
        return twin

    def check_seat(self, seat: Seat | None) -> None:
        """Refuse a seat that is none of the game's, which every ``observation`` does first:
        a negative one would read another seat's cards through indexing from the end."""
        players = self.game.players
        if seat is not None and not 0 <= seat < players:
            raise SeatError("error.no_such_seat", seat=seat, players=players, last=players - 1)

    def _own_rng(self) -> random.Random:
        """The generator seeded by ``new_initial_state``, made on first use (seeding is slow)."""
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    @abstractmethod
    def current_player(self) -> Seat:
        """The seat that acts, ``CHANCE`` or ``TERMINAL``."""

    @abstractmethod
    def legal_actions(self) -> list[Action]:
        """The legal actions of the current player; the outcomes at a chance node."""

    @abstractmethod
    def apply_action(self, action: Action) -> None:
        """Play ``action``, or apply a chance outcome; raises ``IllegalActionError``."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """The outcomes of the pending chance event with their probabilities."""

    @abstractmethod
    def observation(self, seat: Seat | None) -> Observation:
        """Everything ``seat`` may know and nothing else; ``None`` is a spectator."""

    def unshared_observation(self, seat: Seat | None) -> Observation:
        """``observation(seat)``, its parts not matched against the position before's.

        A search walks positions in place and keys its tree by observations it builds once
        each: the matching that lets a server's views and the encoders' caches see what did
        not change (see ``_shared``) only costs it. The parts kept so far are let go."""
        self._parts = None
        return self.observation(seat)

    def public_action(self, action: Action) -> bool:
        """Whether every seat sees ``action`` of the player to act, and sees nothing else
        change by it than what the action tells (a card played face up, a bid made in the
        open): a seat's observation after it is then told by the one before and the action,
        and a search keys its tree by the action instead of building the observation. A
        game answers ``False`` (the default) where it cannot say so, and a seat's own
        actions count as seen by all only if the others see them too."""
        return False

    def view(self, seat: Seat | None) -> dict[str, Any]:
        """``observation(seat).to_dict()``: what a client is sent of the position."""
        public, own = self.view_parts(seat)
        return {**public, **own}

    def view_parts(self, seat: Seat | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """``view(seat)`` in two parts with no key in common: what every seat is shown,
        and what this seat is shown of its own.

        A server sends every seat what changed in its view after each move: what changed in
        the part every seat shares is worked out once. A game whose dictionaries convert
        its cards builds the shared part once a position (see ``_shared_converted``);
        by default the whole view is the seat's own. The conformance kit checks that the
        parts have no key in common and make ``observation(seat).to_dict()``.
        """
        return {}, self.observation(seat).to_dict()

    def legal_strings(self) -> list[str]:
        """The legal actions in notation, in their order: what the seat to act is offered."""
        return [self.action_to_string(action) for action in self.legal_actions()]

    @abstractmethod
    def returns(self) -> list[float]:
        """The final score of every seat (the running score before the end)."""

    @abstractmethod
    def action_to_string(self, action: Action) -> str:
        """The notation of ``action`` at this position."""

    @abstractmethod
    def string_to_action(self, text: str) -> Action:
        """The action that ``text`` names here; raises ``IllegalActionError``."""

    @abstractmethod
    def every_card(self) -> list[int]:
        """Every card of the game wherever it lies (hands, piles, table, tricks, set aside,
        box), sorted: the same from the first position to the last, which the conformance
        kit checks. A referee's view, never for a bot."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy; engine-drawn chance keeps using the same generator."""

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def _shared(self, part: Hashable, compute: Callable[[], T], matched: bool = True) -> T:
        """A part of this position's observations (what every seat sees, one seat's own
        cards), computed once.

        A server asks for every seat's observation after each move; the history node names
        the position, since every action replaces it. A part equal to the one the position
        before had (its parent, or itself before its last move) is that same object, item
        by item for a dictionary or a tuple: conversions remembered by identity still apply,
        the view sent last is seen unchanged at a glance, and the equal copy is freed at
        once, instead of living on for the garbage collector to visit. ``matched=False``
        skips that matching, for a part made of such conversions.
        """
        parts = self._parts_now()
        found = parts[1].get(part, _MISSING)
        if found is _MISSING:  # taken from the position before, so that it lives no longer
            earlier = parts[2].pop(part, _MISSING)
            found = parts[1][part] = _kept(compute(), earlier) if matched else compute()
        return cast(T, found)

    def _parts_now(self) -> _Parts:
        """This position's parts, and the position before's not yet taken over."""
        parts = self._parts
        if parts is None or parts[0] is not self._history:
            parts = self._parts = (self._history, {}, {} if parts is None else parts[1])
        return parts

    def _shared_converted(
        self,
        part: Hashable,
        compute: Callable[[], dict[str, Any]],
        convert: Callable[[dict[str, Any]], dict[str, Any]],
        fieldwise: bool = False,
    ) -> dict[str, Any]:
        """``convert`` applied to the shared ``part``, itself once per position: the JSON form
        of what every seat sees, from which each seat's ``view`` starts. Not matched again
        once converted: the part's items are matched, and a conversion remembered by
        identity gives an unchanged item's converted form as the same object.

        ``fieldwise``: ``convert`` converts each field on its own (any of the part's fields,
        not all, give their converted forms), so that only the fields that changed since the
        position before are converted again, the others kept from its converted part.
        """
        key = (part, "converted")
        parts = self._parts_now()
        found: dict[str, Any] | None = parts[1].get(key)
        if found is not None:
            return found
        before = parts[2].get(part)  # read before ``_shared`` takes it over
        converted_before = parts[2].pop(key, None)
        now = self._shared(part, compute)
        if fieldwise and before is not None and converted_before is not None:
            changed = {
                field: value
                for field, value in now.items()
                if before.get(field, _MISSING) is not value
            }
            if len(now) == len(before) and changed.keys() <= before.keys():  # the same fields
                found = {**converted_before, **convert(changed)} if changed else converted_before
        if found is None:
            found = convert(now)
        parts[1][key] = found
        return found

    def segment(self) -> int:
        """Which scoring segment (round, deal) the game is in: search looks no further.

        A game scored only at its end has one segment, 0.
        """
        return 0

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def history(self) -> list[Action]:
        """Every action and chance outcome so far, in order."""
        return flatten_history(self._history)

    def history_since(self, earlier: State | None) -> list[Action]:
        """The actions and chance outcomes since ``earlier``, a position this one was cloned
        from and then played on (``None``: since the start), without reading the rest."""
        return flatten_history(self._history, None if earlier is None else earlier._history)

    def winners(self) -> list[Seat]:
        """The seats with the best final score (all of them share a tie)."""
        scores = self.returns()
        best = max(scores)
        return [seat for seat, score in enumerate(scores) if score == best]

    def resolve_chance(self, rng: random.Random | None = None) -> None:
        """Draw and apply chance outcomes until a seat must act or the game ends.

        Uses ``rng`` when given, else the generator seeded by ``new_initial_state``.
        Games override this with a faster draw (a whole deal at once, say).
        """
        generator = self._own_rng() if rng is None else rng
        while self.current_player() == CHANCE:
            outcomes = self.chance_outcomes()
            actions = [action for action, _ in outcomes]
            weights = [probability for _, probability in outcomes]
            self.apply_action(generator.choices(actions, weights)[0])

    def apply_string(self, text: str) -> Action:
        """Parse ``text`` in this position's notation and apply it; returns the action."""
        action = self.string_to_action(text)
        self.apply_action(action)
        return action
