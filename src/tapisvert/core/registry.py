"""The table of games by name; each game package registers itself on import."""

from __future__ import annotations

from typing import Any

from tapisvert.core.errors import OptionError
from tapisvert.core.game import Game

_GAMES: dict[str, type[Game[Any]]] = {}


def register_game(game_class: type[Game[Any]]) -> type[Game[Any]]:
    """Class decorator: make ``game_class`` loadable by its ``name``."""
    _GAMES[game_class.name] = game_class
    return game_class


def games() -> list[str]:
    """The names of the games this installation knows."""
    _load_builtin_games()
    return sorted(_GAMES)


def game_class(name: str) -> type[Game[Any]]:
    _load_builtin_games()
    try:
        return _GAMES[name.lower()]
    except KeyError:
        known = ", ".join(sorted(_GAMES))
        raise OptionError("error.unknown_game", name=name, known=known) from None


def load_game(name: str, players: int | None = None, **options: object) -> Game[Any]:
    """An immutable game; ``players`` defaults to the game's smallest count."""
    cls = game_class(name)
    return cls(cls.min_players if players is None else players, **options)


def _load_builtin_games() -> None:
    import tapisvert.games  # noqa: F401  (registers the built-in games)
