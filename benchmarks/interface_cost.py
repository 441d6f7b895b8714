"""What the research interfaces cost: decisions per second through the raw engine, the
PettingZoo environment and the OpenSpiel adapter, side by side in one run.

Each plays whole 4-player games (Abluxxen too) by uniformly random legal decisions:
- engine: ``legal_actions()``, ``random.choice``, ``apply_action()``, ``resolve_chance()``;
- PettingZoo: ``last()`` (the seat's tensor and mask), a random index the mask allows,
  ``step()`` (chance drawn inside);
- OpenSpiel: ``pyspiel`` calls on the registered game, chance drawn from
  ``chance_outcomes()``, as OpenSpiel's own tools do.
The three alternate in rounds, each keeping its best.

Run: ``.venv/bin/python benchmarks/interface_cost.py [--seconds 6]``
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

import numpy
import pyspiel

import tapisvert
from engine_speed import side_by_side
from tapisvert.envs.openspiel import register
from tapisvert.envs.pettingzoo import env

OPTIONS = {"wizard": {"rounds": "first5"}}
"""Options other than the defaults, where a whole game would take too long."""
PLAYERS = 4


def engine_games(name: str) -> Callable[[], int]:
    game = tapisvert.load_game(name, PLAYERS, **OPTIONS.get(name, {}))
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


def pettingzoo_games(name: str) -> Callable[[], int]:
    table = env(name, PLAYERS, **OPTIONS.get(name, {}))
    rng = numpy.random.default_rng(1)

    def play() -> int:
        table.reset(seed=int(rng.integers(2**31)))
        decisions = 0
        while True:
            observation, _, terminated, _, _ = table.last()
            if terminated:
                return decisions
            table.step(int(rng.choice(numpy.flatnonzero(observation["action_mask"]))))
            decisions += 1

    return play


def openspiel_games(name: str) -> Callable[[], int]:
    game = pyspiel.load_game(register(name, players=PLAYERS, **OPTIONS.get(name, {})))
    rng = random.Random(1)

    def play() -> int:
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions

    return play


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="per game and interface")
    seconds = parser.parse_args().seconds
    print(f"{'game':10} {'engine':>10} {'pettingzoo':>11} {'openspiel':>10}  decisions/s")
    for name in tapisvert.game_names():
        engine, pettingzoo = side_by_side(engine_games(name), pettingzoo_games(name), seconds)
        openspiel, _ = side_by_side(openspiel_games(name), None, seconds / 2)
        print(f"{name:10} {engine:10,.0f} {pettingzoo or 0:11,.0f} {openspiel:10,.0f}")


if __name__ == "__main__":
    main()
