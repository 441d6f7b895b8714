"""tapisvert: Luz, Abluxxen, Wizard and Fzzzt! — exact rules engines, bots, and a place to play.

>>> import tapisvert
>>> "wizard" in tapisvert.game_names()
True
>>> game = tapisvert.load_game("wizard", players=4)
>>> state = game.new_initial_state(seed=7)
>>> state.current_player() == tapisvert.CHANCE
True
"""

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
    game_names,
    load_game,
)

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
    "game_names",
    "load_game",
]
