"""Wizard (Ken Fisher, 1984): bid exactly the tricks you will take."""

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

__all__ = [
    "JESTER",
    "NO_TRUMP",
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
