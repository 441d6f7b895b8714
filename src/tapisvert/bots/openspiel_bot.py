"""OpenSpiel's IS-MCTS by name (``openspiel-ismcts``), where OpenSpiel is installed.

The bot lives with the OpenSpiel adapter (``tapisvert.envs.openspiel``), which needs numpy
and pyspiel: it is imported when such a bot is built, never before.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import Any

from tapisvert.bots.base import Bot, register_bot
from tapisvert.core.game import Game


def openspiel_ismcts(game: Game[Any]) -> Bot:
    bot: Bot = import_module("tapisvert.envs.openspiel").IsmctsBot(game)
    return bot


if find_spec("pyspiel") is not None:
    register_bot("openspiel-ismcts", openspiel_ismcts)
