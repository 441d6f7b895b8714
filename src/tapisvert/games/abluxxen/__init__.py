"""Abluxxen / Linko! (Wolfgang Kramer, Michael Kiesling): play sets, steal the ones below."""

from tapisvert.games.abluxxen.cards import CardSet, legal_sets, set_to_string
from tapisvert.games.abluxxen.rules import (
    DRAW_PILE,
    AbluxxenGame,
    AbluxxenObservation,
    AbluxxenState,
    set_action,
)

__all__ = [
    "DRAW_PILE",
    "AbluxxenGame",
    "AbluxxenObservation",
    "AbluxxenState",
    "CardSet",
    "legal_sets",
    "set_action",
    "set_to_string",
]
