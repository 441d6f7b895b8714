"""One package per game, each of the same shape: cards, rules, notation, sampler, heuristic bot."""

from tapisvert.games import fzzzt, luz, wizard

__all__ = ["fzzzt", "luz", "wizard"]
