"""Fzzzt! (Tony Boydell): a deck-building auction game of robots and production units."""

from tapisvert.core.registry import GamePlugin, SearchProfile
from tapisvert.games.fzzzt.bot import FzzztHeuristicBot
from tapisvert.games.fzzzt.cards import CARDS, card_named, completed_sets, name, unit_score
from tapisvert.games.fzzzt.rules import (
    DONE,
    FzzztGame,
    FzzztObservation,
    FzzztState,
    bid_action,
    chit_action,
    place_action,
)
from tapisvert.games.fzzzt.search import bid_candidates, forecast

PLUGIN = GamePlugin(
    FzzztGame,
    heuristic_bot=lambda game: FzzztHeuristicBot(),
    terminal_view="tapisvert.games.fzzzt.view",
    web_board="tapisvert.games.fzzzt.web",
    rules="tapisvert.games.fzzzt",
    texts="tapisvert.games.fzzzt.texts",
    encoding="tapisvert.games.fzzzt.encoding:FzzztEncoding",
    compiled=tuple(
        f"{__name__}.{module}" for module in ("cards", "rules", "sampler", "bot", "search")
    ),
    search=SearchProfile(
        medium=12,
        hard=900,
        method="halving",
        medium_method="ismcts",
        relative=True,
        candidates=bid_candidates,
        value=forecast,
    ),
)
"""What the ``tapisvert.games`` entry point names: all the platform needs to offer the game."""

__all__ = [
    "CARDS",
    "DONE",
    "PLUGIN",
    "FzzztGame",
    "FzzztObservation",
    "FzzztState",
    "bid_action",
    "card_named",
    "chit_action",
    "completed_sets",
    "name",
    "place_action",
    "unit_score",
]
