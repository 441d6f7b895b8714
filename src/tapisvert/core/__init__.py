"""The small, typed core: the game contract, records, errors and statistics."""

from tapisvert.core.errors import IllegalActionError, OptionError, RecordError, TapisvertError
from tapisvert.core.game import (
    CHANCE,
    TERMINAL,
    Action,
    Game,
    Observation,
    OptionSpec,
    Seat,
    State,
)
from tapisvert.core.registry import game_class, games, load_game, register_game

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "Game",
    "IllegalActionError",
    "Observation",
    "OptionError",
    "OptionSpec",
    "RecordError",
    "Seat",
    "State",
    "TapisvertError",
    "game_class",
    "games",
    "load_game",
    "register_game",
]
