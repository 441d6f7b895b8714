"""Luz (Taiki Shinzawa): a trick-taking game where you see every hand but your own."""

from tapisvert.games.luz.cards import (
    SUCCESS_POINTS,
    YELLOW,
    card_to_string,
    deal_score,
    trick_winner,
)
from tapisvert.games.luz.rules import LuzGame, LuzObservation, LuzState, bet_action, play_action

__all__ = [
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
