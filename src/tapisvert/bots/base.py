"""The bot interface: a bot gets its seat's observation, the legal actions and an rng.

Never a state: a bot that could read the state could cheat. A bot is built for one game
(the rules and options are public), and a search bot looks ahead only through
``game.sample_state(observation, rng)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, Protocol

from tapisvert.core.errors import OptionError
from tapisvert.core.game import Action, Game, Observation


class Bot(Protocol):
    """Chooses one of ``legal_actions``; the same inputs must give the same choice."""

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action: ...


BotFactory = Callable[[Game[Any]], Bot]
_GENERIC: dict[str, BotFactory] = {}
_PER_GAME: dict[tuple[str, str], BotFactory] = {}
LEVELS = ("random", "easy", "medium", "hard")
ALIASES = {"easy": "heuristic"}


def register_bot(name: str, factory: BotFactory, game: str | None = None) -> None:
    """Make a bot available by name, for every game or for one game only."""
    if game is None:
        _GENERIC[name] = factory
    else:
        _PER_GAME[(game, name)] = factory


def bot_names(game: str) -> list[str]:
    _load_builtin_bots()
    names = set(_GENERIC) | {name for (owner, name) in _PER_GAME if owner == game}
    return sorted(names | {alias for alias, name in ALIASES.items() if name in names})


def make_bot(name: str, game: Game[Any]) -> Bot:
    """A new bot called ``name`` (a level such as ``easy`` or ``hard``, or a bot's own name)."""
    _load_builtin_bots()
    key = ALIASES.get(name.lower(), name.lower())
    factory = _PER_GAME.get((game.name, key)) or _GENERIC.get(key)
    if factory is None:
        raise OptionError("cli.unknown_bot", name=name, known=", ".join(bot_names(game.name)))
    return factory(game)


def _load_builtin_bots() -> None:
    """Import the modules that register the built-in bots."""
    for module in BUILTIN_BOT_MODULES:
        import_module(module)


BUILTIN_BOT_MODULES = (
    "tapisvert.bots.random_bot",
    "tapisvert.bots.search",
    "tapisvert.games.abluxxen.bot",
    "tapisvert.games.fzzzt.bot",
    "tapisvert.games.luz.bot",
    "tapisvert.games.wizard.bot",
)
