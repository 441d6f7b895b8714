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
from tapisvert.core.registry import plugin


class Bot(Protocol):
    """Chooses one of ``legal_actions``; the same inputs must give the same choice."""

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action: ...


BotFactory = Callable[[Game[Any]], Bot]
_BOTS: dict[str, BotFactory] = {}
_UNLISTED: set[str] = set()
"""Bots whose packages are missing: ``bot_names`` leaves them out; their factories say
what to install."""
LEVELS = ("random", "easy", "medium", "hard")
ALIASES = {"easy": "heuristic"}
HEURISTIC = "heuristic"
"""The rule-based bot each game declares in its plugin."""


def register_bot(name: str, factory: BotFactory, *, listed: bool = True) -> None:
    """Make a bot available by ``name`` to ``make_bot`` and the arena, for every game.

    ``factory(game)`` builds a new bot for that game (one per seat, so a bot may keep
    state). A name already taken is replaced. The registry lives in the process that calls
    this: register when your module is imported (at its top level), so that the arena's
    worker processes, which import your main module again (``spawn``), know the bot too;
    Ray workers do not, so a bot of your own plays in the process pool, not on Ray.

    A bot whose optional packages are missing is registered ``listed=False``: left out of
    ``bot_names``, it is still found by name, and its factory raises the error that names
    the extra to install, rather than ``make_bot`` saying there is no such bot.
    """
    _BOTS[name] = factory
    if listed:
        _UNLISTED.discard(name)
    else:
        _UNLISTED.add(name)


def bot_names(game: str) -> list[str]:
    _load_builtin_bots()
    names = {*_BOTS.keys() - _UNLISTED, HEURISTIC}
    return sorted(names | {alias for alias, name in ALIASES.items() if name in names})


def make_bot(name: str, game: Game[Any]) -> Bot:
    """A new bot called ``name`` (a level such as ``easy`` or ``hard``, or a bot's own name)."""
    _load_builtin_bots()
    key = ALIASES.get(name.lower(), name.lower())
    if key == HEURISTIC:
        bot: Bot = plugin(game.name).heuristic_bot(game)
        return bot
    factory = _BOTS.get(key)
    if factory is None:
        raise OptionError("cli.unknown_bot", name=name, known=", ".join(bot_names(game.name)))
    return factory(game)


def _load_builtin_bots() -> None:
    """Import the modules that register the bots that play every game."""
    for module in BUILTIN_BOT_MODULES:
        import_module(module)


BUILTIN_BOT_MODULES = (
    "tapisvert.bots.random_bot",
    "tapisvert.bots.search",
    "tapisvert.bots.openspiel_bot",
)
