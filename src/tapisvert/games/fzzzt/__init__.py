"""Fzzzt! (Tony Boydell): a deck-building auction game of robots and production units."""

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

__all__ = [
    "CARDS",
    "DONE",
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
