"""What the research interfaces cost: decisions per second through the raw engine, the engine
with the seat's tensor and mask, the PettingZoo environment, the OpenSpiel adapter, and steps
per second of eight Gymnasium environments in a ``SyncVectorEnv`` beside ``TablesVectorEnv``,
side by side in one run.

Each plays whole 4-player games by uniformly random legal decisions (Wizard's first five
rounds, and Wizard's 12-card round alone, ``wizard-12``):
- engine: ``legal_actions()``, ``random.choice``, ``apply_action()``, ``resolve_chance()``;
- tensor + mask: the same, with the same generator, hence the same positions, and at each
  decision the seat's tensor (``Encoding.write_state``) and mask (``write_legal``, whose legal
  actions the choice is made from) written into buffers kept from one decision to the next;
- PettingZoo: ``last()`` (the seat's tensor and mask), a random index the mask allows,
  ``step()`` (chance drawn inside);
- OpenSpiel: ``pyspiel`` calls on the registered game, chance drawn from
  ``chance_outcomes()``, as OpenSpiel's own tools do;
- ``SyncVectorEnv`` of 8 ``SingleSeatEnv`` (opponents ``random``) against one
  ``TablesVectorEnv`` of ``--tables`` tables, both reset with seed 1 and choosing a random
  index each mask allows with the same numpy generator: steps/s, a step being one table's (a
  ``SingleSeatEnv`` step also plays its opponents' moves up to the seat's next turn).
Each pair alternates in ``--rounds`` rounds (5 by default), each side measured for
``--seconds`` / (2 × rounds) in each, so that both sides of a round share the same moments of
the machine, whose speed swings within seconds. The rates printed are each side's median over
the rounds; the ratios (tensor + mask / engine, and ``TablesVectorEnv`` / ``SyncVectorEnv``)
are the median of the rounds' ratios, then their range.

With ``--before REV``, engine + tensor + mask alone, side by side with the sources of git
revision REV (pure Python both; a process per measure, the two versions alternating for
``--rounds`` rounds of ``--seconds`` each): the decisions/s of each, and the median of the
rounds' ratios (this version's / REV's) with their range, a change's worth.

Run: ``.venv/bin/python benchmarks/interface_cost.py [--seconds 6] [--rounds 5] [--tables 64]
[--game wizard] [--before REV]``
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy
import pyspiel

import tapisvert
from engine_speed import rate
from interface_games import OPTIONS, PLAYERS, engine_games, tensor_games
from revisions import SOURCES, earlier_sources, measured_from
from tapisvert.envs.gymnasium import SingleSeatEnv
from tapisvert.envs.openspiel import register
from tapisvert.envs.pettingzoo import env
from tapisvert.envs.vector import TablesVectorEnv

SYNC_ENVS = 8
STEPS_PER_CALL = 20
"""Vector steps per timed call, so that timing costs nothing beside them."""


def rows(chosen: list[str]) -> list[str]:
    """The rows to measure: every game, then the rows of other options (``wizard-12``)."""
    games = tapisvert.game_names()
    every = [*games, *(row for row in OPTIONS if row not in games)]
    unknown = sorted(set(chosen) - set(every))
    if unknown:
        raise SystemExit(f"no row {unknown[0]}: the rows are {', '.join(every)}")
    return [row for row in every if not chosen or row in chosen]


def pettingzoo_games(row: str) -> Callable[[], int]:
    name, options = OPTIONS.get(row, (row, {}))
    table = env(name, PLAYERS, **options)
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


def openspiel_games(row: str) -> Callable[[], int]:
    name, options = OPTIONS.get(row, (row, {}))
    game = pyspiel.load_game(register(name, players=PLAYERS, **options))
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


def vector_steps(tables: Any) -> Callable[[], int]:
    """Steps of every table of a vector environment, a random index each mask allows."""
    rng = numpy.random.default_rng(1)
    observations, _ = tables.reset(seed=1)

    def play() -> int:
        nonlocal observations
        for _ in range(STEPS_PER_CALL):
            masks = observations["action_mask"]
            chosen = (rng.random(masks.shape) * masks).argmax(axis=1)
            observations, *_ = tables.step(chosen)
        return STEPS_PER_CALL * int(tables.num_envs)

    return play


def sync_envs(row: str) -> gymnasium.vector.SyncVectorEnv:
    name, options = OPTIONS.get(row, (row, {}))
    return gymnasium.vector.SyncVectorEnv(
        [
            lambda: SingleSeatEnv(name, PLAYERS, opponents="random", **options)
            for _ in range(SYNC_ENVS)
        ]
    )


def paired(
    ours: Callable[[], int], theirs: Callable[[], int], seconds: float, rounds: int
) -> tuple[float, float, list[float]]:
    """Each side's median rate over ``rounds`` alternating rounds of ``seconds`` in all, and
    the rounds' ratios (``theirs`` / ``ours``: the second side over the first), sorted."""
    window = seconds / (2 * rounds)
    first, second = [], []
    for _ in range(rounds):
        first.append(rate(ours, window))
        second.append(rate(theirs, window))
    ratios = sorted(b / a for a, b in zip(first, second, strict=True))
    return statistics.median(first), statistics.median(second), ratios


def spread(ratios: list[float], digits: int) -> str:
    """The median of sorted ``ratios`` and their range, as ``0.33 [0.31–0.35]``."""
    return (
        f"{statistics.median(ratios):.{digits}f} [{ratios[0]:.{digits}f}–{ratios[-1]:.{digits}f}]"
    )


def tensor_rate(sources: Path, row: str, seconds: float) -> float:
    """Engine + tensor + mask decisions/s of ``row`` over ``seconds``, in a process of its
    own importing ``tapisvert`` from ``sources`` (after a first game, imports warmed)."""
    return float(measured_from(sources, __file__, "--measure", row, "--seconds", str(seconds)))


def compare(chosen: list[str], revision: str, seconds: float, rounds: int) -> None:
    """Engine + tensor + mask of this version against ``revision``'s, row by row."""
    print(
        f"engine + tensor + mask, decisions/s: this version against {revision}, pure Python,"
        f" {rounds} alternating rounds of {seconds:g} s each (medians; ratio: this / before)"
    )
    print(f"{'game':10} {'before':>10} {'now':>10} {'ratio':>6} {'range':>12}")
    with earlier_sources(revision) as earlier:
        for row in rows(chosen):
            before, now = [], []
            for _ in range(rounds):
                before.append(tensor_rate(earlier, row, seconds))
                now.append(tensor_rate(SOURCES, row, seconds))
            ratios = sorted(ours / theirs for ours, theirs in zip(now, before, strict=True))
            print(
                f"{row:10} {statistics.median(before):10,.0f} {statistics.median(now):10,.0f}"
                f" {statistics.median(ratios):6.3f} {ratios[0]:5.3f}–{ratios[-1]:.3f}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="per pair and row")
    parser.add_argument("--tables", type=int, default=64, help="tables of TablesVectorEnv")
    parser.add_argument(
        "--game", action="append", default=[], help="a row to measure (all by default)"
    )
    parser.add_argument("--before", default="", help="a git revision to compare tensors with")
    parser.add_argument("--rounds", type=int, default=5, help="alternations of each pair")
    parser.add_argument("--measure", default="", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    seconds = arguments.seconds
    if arguments.measure:
        play = tensor_games(arguments.measure)
        play()
        print(rate(play, seconds))
        return
    if arguments.before:
        compare(arguments.game, arguments.before, seconds, arguments.rounds)
        return
    print(
        f"{'':10} {'decisions/s':-^79}  steps/s: {SYNC_ENVS} SingleSeatEnv, "
        f"{arguments.tables} tables; rates: medians of {arguments.rounds} alternating rounds, "
        "ratios: their median [range]"
    )
    print(
        f"{'game':10} {'engine':>10} {'tensor+mask':>11} {'ratio':>21} {'pettingzoo':>10} "
        f"{'openspiel':>10} {'sync':>10} {'vector':>10} {'ratio':>15}"
    )
    rounds = arguments.rounds
    for row in rows(arguments.game):
        name, options = OPTIONS.get(row, (row, {}))
        engine, tensor, tensor_ratios = paired(
            engine_games(row), tensor_games(row), seconds, rounds
        )
        pettingzoo, openspiel, _ = paired(
            pettingzoo_games(row), openspiel_games(row), seconds, rounds
        )
        sync, vector, vector_ratios = paired(
            vector_steps(sync_envs(row)),
            vector_steps(TablesVectorEnv(name, arguments.tables, PLAYERS, **options)),
            seconds,
            rounds,
        )
        print(
            f"{row:10} {engine:10,.0f} {tensor:11,.0f} {spread(tensor_ratios, 2):>21} "
            f"{pettingzoo:10,.0f} {openspiel:10,.0f} {sync:10,.0f} {vector:10,.0f} "
            f"{spread(vector_ratios, 1):>15}",
            flush=True,
        )


if __name__ == "__main__":
    main()
