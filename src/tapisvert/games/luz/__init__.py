"""Luz (Taiki Shinzawa): a trick-taking game where you see every hand but your own."""

from tapisvert.core.registry import GamePlugin, SearchProfile, SmallVariant
from tapisvert.games.luz.bot import LuzHeuristicBot
from tapisvert.games.luz.cards import (
    SUCCESS_POINTS,
    YELLOW,
    card_to_string,
    deal_score,
    trick_winner,
)
from tapisvert.games.luz.rules import LuzGame, LuzObservation, LuzState, bet_action, play_action

PLUGIN = GamePlugin(
    LuzGame,
    heuristic_bot=lambda game: LuzHeuristicBot(),
    terminal_view="tapisvert.games.luz.view",
    web_board="tapisvert.games.luz.web",
    rules="tapisvert.games.luz",
    texts="tapisvert.games.luz.texts",
    encoding="tapisvert.games.luz.encoding:LuzEncoding",
    compiled=tuple(
        f"{__name__}.{module}" for module in ("cards", "knowledge", "rules", "sampler", "bot")
    ),
    search=SearchProfile(medium=25, hard=400, redeterminize=True),
    small_variants=(
        SmallVariant(
            "luz-4-cards",
            3,
            {
                "colours": 2,
                "colour_values": 2,
                "hand_size": 1,
                "deals": 1,
                "first_player": "P1",
            },
            information_states=4260,
        ),
    ),
)
"""What the ``tapisvert.games`` entry point names: all the platform needs to offer the game."""

__all__ = [
    "PLUGIN",
    "SUCCESS_POINTS",
    "YELLOW",
    "LuzGame",
    "LuzObservation",
    "LuzState",
    "bet_action",
    "card_to_string",
    "deal_score",
    "play_action",
    "trick_winner",
]
