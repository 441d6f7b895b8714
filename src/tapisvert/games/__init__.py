"""One package per game, each of the same shape: cards, rules, notation, sampler, heuristic bot."""

from tapisvert.games import abluxxen, fzzzt, luz, wizard

__all__ = ["abluxxen", "fzzzt", "luz", "wizard"]
