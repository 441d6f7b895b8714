"""OpenSpiel's IS-MCTS by name (``openspiel-ismcts``), where OpenSpiel is installed.

The bot lives with the OpenSpiel adapter (``tapisvert.envs.openspiel``), which needs the
openspiel extra: it is imported when such a bot is built, never before. Without the extra the
bot is not listed, and asking for it says what to install.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from tapisvert.bots.base import Bot, register_bot
from tapisvert.core.extras import OPENSPIEL_MODULES, missing, needs
from tapisvert.core.game import Game


def openspiel_ismcts(game: Game[Any]) -> Bot:
    with needs("openspiel", "openspiel-ismcts", *OPENSPIEL_MODULES):
        adapter = import_module("tapisvert.envs.openspiel")
    bot: Bot = adapter.IsmctsBot(game)
    return bot


register_bot("openspiel-ismcts", openspiel_ismcts, listed=not missing(*OPENSPIEL_MODULES))
