"""Abluxxen / Linko! (Wolfgang Kramer, Michael Kiesling): play sets, steal the ones below."""

from tapisvert.core.registry import GamePlugin, SearchProfile, SmallVariant
from tapisvert.games.abluxxen.bot import AbluxxenHeuristicBot
from tapisvert.games.abluxxen.cards import CardSet, legal_sets, set_to_string
from tapisvert.games.abluxxen.rules import (
    DRAW_PILE,
    AbluxxenGame,
    AbluxxenObservation,
    AbluxxenState,
    set_action,
)
from tapisvert.games.abluxxen.search import heuristic_in_play_out, strongest_sets

PLUGIN = GamePlugin(
    AbluxxenGame,
    heuristic_bot=lambda game: AbluxxenHeuristicBot(),
    terminal_view="tapisvert.games.abluxxen.view",
    web_board="tapisvert.games.abluxxen.web",
    rules="tapisvert.games.abluxxen",
    texts="tapisvert.games.abluxxen.texts",
    encoding="tapisvert.games.abluxxen.encoding:AbluxxenEncoding",
    compiled=tuple(
        f"{__name__}.{module}" for module in ("cards", "rules", "sampler", "bot", "search")
    ),
    search=SearchProfile(
        medium=60,
        hard=300,
        relative=True,
        method="halving",
        shortlist=strongest_sets,
        rollout_policy=heuristic_in_play_out,
    ),
    small_variants=(
        SmallVariant(
            "abluxxen-6-cards",
            2,
            {
                "highest": 3,
                "copies": 2,
                "jokers": 0,
                "hand_size": 2,
                "display_size": 1,
                "start_player": "P1",
            },
            information_states=1016,
        ),
    ),
)
"""What the ``tapisvert.games`` entry point names: all the platform needs to offer the game."""

__all__ = [
    "DRAW_PILE",
    "PLUGIN",
    "AbluxxenGame",
    "AbluxxenObservation",
    "AbluxxenState",
    "CardSet",
    "legal_sets",
    "set_action",
    "set_to_string",
]
