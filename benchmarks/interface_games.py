"""The games that ``interface_cost.py`` and ``interface_instructions.py`` play: whole 4-player
games by uniformly random legal decisions, through the engine alone or with the seat's tensor
and mask written at every decision, on the same positions (the same generator)."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy

import tapisvert
from tapisvert.encoding import encoding_for

OPTIONS: dict[str, tuple[str, dict[str, object]]] = {
    "wizard": ("wizard", {"rounds": "first5"}),
    "wizard-12": ("wizard", {"rounds": "12"}),
}
"""Each row's game and options, where they are not the game's defaults (a whole Wizard game
would take too long; its 12-card round alone is the longest hand)."""
PLAYERS = 4


def engine_games(row: str) -> Callable[[], int]:
    name, options = OPTIONS.get(row, (row, {}))
    game = tapisvert.load_game(name, PLAYERS, **options)
    rng = random.Random(1)

    def play() -> int:
        state = game.new_initial_state(rng.getrandbits(32))
        decisions = 0
        state.resolve_chance()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            state.resolve_chance()
            decisions += 1
        return decisions

    return play


def tensor_games(row: str) -> Callable[[], int]:
    name, options = OPTIONS.get(row, (row, {}))
    game = tapisvert.load_game(name, PLAYERS, **options)
    encoding = encoding_for(game)
    tensor = numpy.zeros(encoding.shape, dtype=numpy.float32)
    mask = numpy.zeros(encoding.action_count, dtype=numpy.int8)
    rng = random.Random(1)

    def play() -> int:
        state = game.new_initial_state(rng.getrandbits(32))
        decisions = 0
        state.resolve_chance()
        while not state.is_terminal():
            encoding.write_state(tensor, state, state.current_player())
            state.apply_action(rng.choice(encoding.write_legal(mask, state)))
            state.resolve_chance()
            decisions += 1
        return decisions

    return play
