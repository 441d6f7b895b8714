"""A fixed amount of engine work, ours or OpenSpiel's, to profile or to count instructions.

The work is that of the like-for-like figures of ``engine_speed.py`` and ``bot_strength.py``:
``decisions``, random legal decisions from dealt 4-player 12-trick positions to the end of the
hand (Wizard ``rounds=12`` against OpenSpiel's ``oh_hell``, ``num_tricks_fixed=12``, the same
Python ``random`` choosing), and ``search``, IS-MCTS at the first decision of 10-card 4-player
hands, 1,000 iterations with uniformly random rollouts drawn as ours (OpenSpiel's Python
``ISMCTSBot`` with such an evaluator). A machine shared with other work makes timings drift
from minute to minute; the number of instructions a unit of work takes does not, which is what
``--instructions`` counts (valgrind's callgrind, the run with no work subtracted from the run
with ``--count`` units). Without it, the work runs once, for a profiler to watch:

``py-spy record -f raw -o decisions.txt -- .venv/bin/python benchmarks/engine_profile.py
decisions``; ``.venv/bin/python benchmarks/engine_profile.py search --instructions``.
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import tapisvert
from bot_strength import SEARCH_ITERATIONS, openspiel_bots
from engine_speed import POSITIONS, play_out
from tapisvert.bots.search import ISMCTSBot, SearchSettings
from tapisvert.compiled import engine_in_use

SIDES = ("ours", "openspiel")


def decisions(side: str) -> Callable[[int], int]:
    """Play the ``index``-th dealt position out; answers the decisions made."""
    choice = random.Random(1).choice
    if side == "ours":
        game = tapisvert.load_game("wizard", players=4, rounds="12")
        positions = []
        for seed in range(POSITIONS):
            state = game.new_initial_state(seed)
            state.resolve_chance(random.Random(seed))
            positions.append(state)
    else:
        import pyspiel

        their_game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 12})
        positions = [dealt(their_game.new_initial_state(), seed) for seed in range(POSITIONS)]
    return lambda index: play_out(positions[index % POSITIONS].clone(), choice)


def dealt(state: Any, seed: int) -> Any:
    """OpenSpiel's state once its chance steps are drawn by ``random.Random(seed)``."""
    deal = random.Random(seed)
    while state.is_chance_node():
        state.apply_action(deal.choice(state.legal_actions()))
    return state


def search(side: str) -> Callable[[int], int]:
    """Search the first decision of the ``seed``-th hand; answers the iterations run."""
    if side == "ours":
        game = tapisvert.load_game("wizard", players=4, rounds="10")
        bot = ISMCTSBot(game, SearchSettings(iterations=SEARCH_ITERATIONS, rollout="random"))

        def ours(seed: int) -> int:
            state = game.new_initial_state(seed)
            state.resolve_chance()
            observation = state.observation(state.current_player())
            bot.choose(observation, state.legal_actions(), random.Random(seed))
            return bot.iterations_done

        return ours
    bots = openspiel_bots()
    if bots is None:
        raise SystemExit("OpenSpiel is not installed: pip install open_spiel")
    return bots["python_ours_policy"]


WORK = {"decisions": decisions, "search": search}


def run(work: str, side: str, count: int) -> int:
    """``count`` units of ``work``; the decisions or iterations they took."""
    unit = WORK[work](side)
    return sum(unit(index) for index in range(count))


def instructions(work: str, side: str, count: int) -> tuple[float, int]:
    """Instructions a decision or an iteration of ``work``, and how many were counted."""
    runs = []
    # Once outside the count: the first run after a build writes the bytecode caches of the
    # modules it imports, which would swell the idle run and shrink the difference.
    idle = [sys.executable, __file__, work, "--side", side, "--count", "0"]
    subprocess.run(idle, capture_output=True, check=True)
    for units in (0, count):
        command = [sys.executable, __file__, work, "--side", side, "--count", str(units)]
        finished = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
            capture_output=True,
            text=True,
            check=True,
        )
        found = re.search(r"Collected : ([\d,]+)", finished.stderr)
        assert found is not None, finished.stderr
        runs.append((int(found.group(1).replace(",", "")), int(finished.stdout.split()[-1])))
    (idle, _), (busy, done) = runs
    return (busy - idle) / done, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", choices=sorted(WORK))
    parser.add_argument("--side", choices=SIDES, help="one side only (both by default)")
    parser.add_argument("--count", type=int, help="positions played out, or decisions searched")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions under valgrind"
    )
    arguments = parser.parse_args()
    count = arguments.count
    if count is None:
        count = 1000 if arguments.work == "decisions" else 3
    sides = SIDES if arguments.side is None else (arguments.side,)
    if not arguments.instructions:
        for side in sides:
            print(f"{side} {run(arguments.work, side, count)}")
        return
    per_unit = "decision" if arguments.work == "decisions" else "iteration"
    print(f"{arguments.work}, {engine_in_use()} engine, instructions a {per_unit} (callgrind):")
    counted = {side: instructions(arguments.work, side, count) for side in sides}
    for side, (figure, done) in counted.items():
        print(f"  {side:<10} {figure:>12,.0f}  ({done:,} {per_unit}s)")
    if len(counted) == 2:
        print(f"  ratio OpenSpiel/ours {counted['openspiel'][0] / counted['ours'][0]:.2f}")


if __name__ == "__main__":
    main()
