"""Wizard (Ken Fisher, 1984): bid exactly the tricks you will take."""

from tapisvert.core.registry import GamePlugin, SearchProfile, SmallVariant
from tapisvert.games.wizard.bot import WizardHeuristicBot
from tapisvert.games.wizard.cards import (
    JESTER,
    NO_TRUMP,
    WIZARD,
    card_to_string,
    string_to_card,
    trick_winner,
)
from tapisvert.games.wizard.rules import (
    WizardGame,
    WizardObservation,
    WizardState,
    bid_action,
    dealer_action,
    trump_action,
)

PLUGIN = GamePlugin(
    WizardGame,
    heuristic_bot=lambda game: WizardHeuristicBot(),
    terminal_view="tapisvert.games.wizard.view",
    web_board="tapisvert.games.wizard.web",
    rules="tapisvert.games.wizard",
    texts="tapisvert.games.wizard.texts",
    encoding="tapisvert.games.wizard.encoding:WizardEncoding",
    compiled=tuple(f"{__name__}.{module}" for module in ("cards", "rules", "sampler", "bot")),
    search=SearchProfile(medium=30, hard=1000),
    small_variants=(
        SmallVariant(
            "wizard-6-cards",
            2,
            {"suit_values": 1, "specials": 1, "rounds": "1", "first_dealer": "P1"},
            information_states=1040,
        ),
        SmallVariant(
            "wizard-10-cards",
            2,
            {"suit_values": 2, "specials": 1, "rounds": "1", "first_dealer": "P1"},
            information_states=4572,
        ),
    ),
)
"""What the ``tapisvert.games`` entry point names: all the platform needs to offer the game."""

__all__ = [
    "JESTER",
    "NO_TRUMP",
    "PLUGIN",
    "WIZARD",
    "WizardGame",
    "WizardObservation",
    "WizardState",
    "bid_action",
    "card_to_string",
    "dealer_action",
    "string_to_card",
    "trick_winner",
    "trump_action",
]
