"""tapisvert: Luz, Abluxxen, Wizard and Fzzzt! — exact rules engines, bots, and a place to play.

>>> import tapisvert
>>> "wizard" in tapisvert.games()
True
>>> game = tapisvert.load_game("wizard", players=4)
>>> state = game.new_initial_state(seed=7)
>>> state.current_player() == tapisvert.CHANCE
True
"""

import tapisvert.games as _builtin_games  # noqa: F401  (registers the games; see below)
from tapisvert.core import (
    CHANCE,
    TERMINAL,
    Action,
    Game,
    IllegalActionError,
    Observation,
    OptionError,
    RecordError,
    Seat,
    State,
    load_game,
)
from tapisvert.core import games as games  # rebinds the name the subpackage import took

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "Game",
    "IllegalActionError",
    "Observation",
    "OptionError",
    "RecordError",
    "Seat",
    "State",
    "__version__",
    "games",
    "load_game",
]
