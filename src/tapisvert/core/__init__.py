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
from tapisvert.core.registry import (
    GamePlugin,
    SearchProfile,
    game_class,
    game_names,
    load_game,
    plugin,
)

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "Game",
    "GamePlugin",
    "IllegalActionError",
    "Observation",
    "OptionError",
    "OptionSpec",
    "RecordError",
    "SearchProfile",
    "Seat",
    "State",
    "TapisvertError",
    "game_class",
    "game_names",
    "load_game",
    "plugin",
]
