"""The games this installation knows: each game package declares itself as a plugin.

A game package names a :class:`GamePlugin` in its distribution's metadata, under the
entry point group ``tapisvert.games`` (``pyproject.toml``)::

    [project.entry-points."tapisvert.games"]
    duel = "duel_game:PLUGIN"

Installing the package is all it takes: the library, the bots, the command line and the
server find it here, and none of them names a game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Literal, Protocol, cast

from tapisvert.core.errors import OptionError
from tapisvert.core.game import Action, Game, Observation, State
from tapisvert.core.notation import ascii_number
from tapisvert.i18n import add_catalogues

if TYPE_CHECKING:
    from rich.console import RenderableType

ENTRY_POINT_GROUP = "tapisvert.games"


@dataclass(frozen=True)
class SearchProfile:
    """How the search bots (``medium``, ``hard``) play a game."""

    medium: int = 150
    """Iterations (play-outs with ``halving``) per decision of ``medium``."""
    hard: int = 600
    """Iterations (play-outs with ``halving``) per decision of ``hard``, sized so that it
    decides within a second."""
    method: Literal["ismcts", "halving"] = "ismcts"
    """The search: IS-MCTS, or flat sequential halving over the bot's own options with
    paired play-outs (``tapisvert.bots.search.HalvingBot``)."""
    medium_method: Literal["ismcts", "halving"] | None = None
    """The search of ``medium`` where it is not ``method``: a weaker kind of search keeps
    ``medium`` between ``easy`` and ``hard`` when a small budget of the strong one would not."""
    horizon: int | None = None
    """At most this many decisions per rollout (``None``: to the end of the scoring segment)."""
    relative: bool = False
    """Value a seat's lead over the others rather than its own points: right where a move
    mostly takes from the others (a steal)."""
    redeterminize: bool = False
    """Draw the hidden information again for every opponent's decision: right where players
    do not see their own hand, so each opponent must be modelled from its own view."""
    candidates: Callable[[list[Action]], list[Action]] | None = None
    """The legal actions worth searching (an action abstraction), where many legal actions
    do nearly the same thing and would share the budget too thinly; ``None``: all of them."""
    value: Callable[[State], list[float]] | None = None
    """Each seat's points where a rollout stops, where the running score misjudges what is
    still to come (a unit that can be filled in later rounds); ``None``: ``returns()``."""
    shortlist: Callable[[Observation, list[Action]], list[Action]] | None = None
    """The options a flat search (``halving``, ``pimc``) plays out at the bot's decision,
    narrowed with what its observation shows (the few a rule of thumb rates best), where a
    budget shared by all of them would play each out too seldom; ``None``: all candidates."""
    rollout_policy: Callable[[State, list[Action], random.Random], Action] | None = None
    """The heuristic bot's move for the seat to act in a play-out, read off the position
    from what that seat's observation shows, where building the whole observation at every
    step would cost more than the choice; ``None``: the heuristic bot on the observation."""


@dataclass(frozen=True)
class SmallVariant:
    """The game with options that shrink it until OpenSpiel's exact tools (tabular CFR, best
    responses over every information state) solve it within minutes: the same rules, small."""

    name: str
    players: int
    options: dict[str, object]
    information_states: int
    """How many information states the seats have, counted by enumerating the game tree
    (``benchmarks/exploitability.py`` prints the count and the tests check it)."""


@dataclass(frozen=True)
class GamePlugin:
    """What a game package declares: everything the platform needs to offer the game.

    The places are import names: ``terminal_view`` a module with ``render`` and ``news``
    (a :class:`TerminalView`); ``web_board`` a package holding ``<game>.js`` and
    ``<game>.css``, the board the browser draws (see ``docs/design.md``); ``rules`` a
    package holding ``rules.<language>.md``, the rules for players; ``texts`` a package
    whose ``*.<language>.toml`` files are added to the platform's catalogues (the game's
    own texts); ``encoding``, for a game that offers one, a ``module:Class`` whose class,
    built from a game, turns observations into tensors and actions into a compact index
    (see ``tapisvert.encoding``); ``compiled`` the modules worth compiling for speed
    (``scripts/compile``; the game's rules, sampler and bots); ``small_variants`` the game
    shrunk by its own options for exact analysis (``benchmarks/exploitability.py``).
    """

    game: type[Game[Any]]
    heuristic_bot: Callable[[Game[Any]], Any]
    """Builds the game's rule-based bot (the ``easy`` level; search rollouts play it)."""
    terminal_view: str
    web_board: str
    rules: str
    search: SearchProfile = field(default_factory=SearchProfile)
    texts: str | None = None
    encoding: str | None = None
    compiled: tuple[str, ...] = ()
    small_variants: tuple[SmallVariant, ...] = ()


_plugins: dict[str, GamePlugin] | None = None


def plugins() -> dict[str, GamePlugin]:
    """Every installed game's plugin, by game name (read from the metadata once)."""
    global _plugins
    if _plugins is None:
        found: dict[str, GamePlugin] = {}
        for entry in entry_points(group=ENTRY_POINT_GROUP):
            declared = entry.load()
            if not isinstance(declared, GamePlugin):
                raise TypeError(f"the entry point {entry.value} is not a GamePlugin")
            name = declared.game.name
            if name in found:
                raise TypeError(f"two installed packages declare a game called {name}")
            found[name] = declared
            if declared.texts is not None:
                add_catalogues(declared.texts)
        _plugins = found
    return _plugins


def game_names() -> list[str]:
    """The names of the games this installation knows."""
    return sorted(plugins())


def plugin(name: str) -> GamePlugin:
    try:
        return plugins()[name.lower()]
    except KeyError:
        known = ", ".join(game_names())
        raise OptionError("error.unknown_game", name=name, known=known) from None


class TerminalView(Protocol):
    """What a game's ``terminal_view`` module holds: the game drawn as text."""

    def render(self, observation: Observation, language: str) -> RenderableType:
        """The table as the observation's seat sees it."""

    def news(
        self, before: Observation | None, after: Observation, language: str
    ) -> list[RenderableType]:
        """What that seat learnt between two observations (tricks taken, rounds scored)."""


def terminal_view(name: str) -> TerminalView:
    """The game's view as text (the command line's, the environments' ``ansi`` rendering)."""
    return cast(TerminalView, import_module(plugin(name).terminal_view))


def game_class(name: str) -> type[Game[Any]]:
    return plugin(name).game


def load_game(name: str, players: int | str | None = None, **options: object) -> Game[Any]:
    """An immutable game; ``players`` (a number, or its digits, as an option's value may be)
    defaults to the game's ``default_players``, or else to its smallest count."""
    cls = game_class(name)
    if players is None:
        return cls(
            cls.min_players if cls.default_players is None else cls.default_players, **options
        )
    count = ascii_number(players.strip()) if isinstance(players, str) else players
    if not isinstance(count, int) or isinstance(count, bool):
        raise OptionError(
            "error.players", game=name, players=players, low=cls.min_players, high=cls.max_players
        )
    return cls(count, **options)


def fewest_players(game: str, options: Mapping[str, object] | None = None) -> int:
    """The fewest players the game takes with its default options: what a table's form
    offers (a smaller count may need options that shrink the game, such as two-player
    Wizard's smaller deck, which the form's options set before the count is tried)."""
    cls = game_class(game)
    for players in range(cls.min_players, cls.max_players):
        try:
            load_game(game, players, **(options or {}))
        except OptionError:
            continue
        return players
    return cls.max_players
