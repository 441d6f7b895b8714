"""Engine speed, side by side with OpenSpiel's C++ ``oh_hell`` driven from Python.

The two sides play 4-player 12-trick hands: ours Wizard with ``rounds=12`` (60 cards, with
Wizards and Jesters, and a trump the dealer chooses when a Wizard is turned), theirs
``oh_hell`` with ``num_tricks_fixed=12`` (52 cards). Both are driven through their public
Python API, one call per step, choosing with the same Python ``random``; the two alternate in
one run, and each keeps its best of the rounds.

(a) Decisions only: 200 positions dealt once on each side, every chance step done; then, over
    and over, a clone of one of them played to the end by uniformly random legal bids and
    cards (``legal_actions()``, ``random.choice``, ``apply_action()``). Decisions per second.
(b) Whole hands, the deal as separate chance steps on both sides: at each chance step
    ``legal_actions()`` and ``random.choice`` (both engines' chance outcomes are uniform).
(c) Whole hands, each engine dealt its fastest way: ours in one call (``resolve_chance``,
    which draws the whole deal and the turned card at once); theirs as in (b), since
    OpenSpiel has no other way from Python.

Then decisions/s and whole games/s of each of our four games (4 players, random legal moves,
the engine drawing chance), and each game's ``clone()``/s of a position 20 decisions into a
game (Wizard's from a 12-trick hand, OpenSpiel's ``oh_hell`` clone of the same kind beside it).

Every figure for our pure-Python engine and, when it is built (``scripts/setup --compiled``),
for the compiled one (the same sources compiled by mypyc, ``build/compiled``): each engine in a
process of its own, side by side with OpenSpiel there.

Run: ``.venv/bin/python benchmarks/engine_speed.py [--seconds 6]``
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

import tapisvert
from engines import KINDS, check_engine, engines_to_measure, run_engine
from tapisvert import CHANCE

POSITIONS = 200
ROW_LABELS = (
    "(a) decisions/s from dealt positions",
    "(b) hands/s, the deal as separate chance steps",
    "(c) hands/s, each dealing its fastest way (ours at once)",
)


def rate(run_once: Callable[[], int], seconds: float) -> float:
    """Units per second (``run_once`` answers how many it did) over about ``seconds``."""
    done = 0
    started = time.perf_counter()
    while (elapsed := time.perf_counter() - started) < seconds:
        done += run_once()
    return done / elapsed


def side_by_side(
    ours: Callable[[], int], theirs: Callable[[], int] | None, seconds: float
) -> tuple[float, float | None]:
    """The best of three alternating rounds for each side, so both see the same machine."""
    best_ours, best_theirs = 0.0, 0.0
    for _ in range(3):
        best_ours = max(best_ours, rate(ours, seconds / 6))
        if theirs is not None:
            best_theirs = max(best_theirs, rate(theirs, seconds / 6))
    return best_ours, (best_theirs if theirs is not None else None)


def play_out(state: Any, choice: Callable[[list[int]], int]) -> int:
    """Random legal decisions to the end of a dealt position; answers how many."""
    decisions = 0
    while not state.is_terminal():
        state.apply_action(choice(state.legal_actions()))
        decisions += 1
    return decisions


def ours_step_by_step(state: tapisvert.State, choice: Callable[[list[int]], int]) -> None:
    """Every chance step through ``legal_actions`` (uniform here), as OpenSpiel is driven."""
    while not state.is_terminal():
        state.apply_action(choice(state.legal_actions()))


def game_rates(
    game: tapisvert.Game[Any], rng: random.Random, seconds: float
) -> tuple[float, float, float]:
    """Decisions/s and games/s of whole games (random legal moves, the engine drawing
    chance), then ``clone()``/s of a position 20 decisions into a game."""
    decisions = games = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = game.new_initial_state(games)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.resolve_chance(rng)
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        games += 1
    elapsed = time.perf_counter() - started
    clones = rate(clones_of(advanced(game.new_initial_state(0), rng.choice)), seconds)
    return decisions / elapsed, games / elapsed, clones


def advanced(state: Any, choice: Callable[[list[int]], int]) -> Any:
    """``state`` once 20 decisions (and the chance steps between them) are made."""
    decisions = 0
    while decisions < 20 and not state.is_terminal():
        decisions += not state.is_chance_node()
        state.apply_action(choice(state.legal_actions()))
    return state


def clones_of(state: Any, batch: int = 10_000) -> Callable[[], int]:
    def clones() -> int:
        for _ in range(batch):
            state.clone()
        return batch

    return clones


def measure(seconds: float) -> dict[str, Any]:
    """Every figure of this engine (pure or compiled, whichever this process imports)."""
    rng = random.Random(1)
    choice = rng.choice
    hand_game = tapisvert.load_game("wizard", players=4, rounds="12")
    try:
        import pyspiel

        their_game: Any = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 12})
    except ImportError:
        their_game = None

    def dealt_ours(seed: int) -> tapisvert.State:
        state = hand_game.new_initial_state(seed)
        state.resolve_chance(random.Random(seed))
        if state.current_player() == CHANCE:
            raise AssertionError("a dealt position still waits for chance")
        return state

    def dealt_theirs(seed: int) -> Any:
        state = their_game.new_initial_state()
        deal = random.Random(seed)
        while state.is_chance_node():
            state.apply_action(deal.choice(state.legal_actions()))
        return state

    our_positions = [dealt_ours(seed) for seed in range(POSITIONS)]
    their_positions = (
        [dealt_theirs(seed) for seed in range(POSITIONS)] if their_game is not None else []
    )
    counter = iter(range(10**12))

    def our_decisions() -> int:
        return play_out(our_positions[next(counter) % POSITIONS].clone(), choice)

    def their_decisions() -> int:
        return play_out(their_positions[next(counter) % POSITIONS].clone(), choice)

    def our_hand_in_steps() -> int:
        ours_step_by_step(hand_game.new_initial_state(), choice)
        return 1

    def our_hand_fastest() -> int:
        state = hand_game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.resolve_chance(rng)
            else:
                state.apply_action(choice(state.legal_actions()))
        return 1

    def their_hand() -> int:
        state = their_game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
        return 1

    comparisons = [
        (our_decisions, their_decisions),
        (our_hand_in_steps, their_hand),
        (our_hand_fastest, their_hand),
    ]
    rows = [
        side_by_side(ours, theirs if their_game is not None else None, seconds)
        for ours, theirs in comparisons
    ]
    games = {
        name: game_rates(tapisvert.load_game(name, players=4), rng, seconds / 2)
        for name in tapisvert.game_names()
    }

    def first(legal: list[int]) -> int:
        return legal[0]

    clones = side_by_side(
        clones_of(advanced(our_positions[0].clone(), first)),
        clones_of(advanced(their_positions[0].clone(), first)) if their_game is not None else None,
        seconds,
    )
    return {"rows": rows, "games": games, "clones": clones}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="time per comparison")
    parser.add_argument("--engine", choices=KINDS, help="measure this engine here and print JSON")
    arguments = parser.parse_args()
    seconds = arguments.seconds
    if arguments.engine is not None:
        check_engine(arguments.engine)
        print(json.dumps(measure(seconds)))
        return
    kinds, missing = engines_to_measure()
    figures = {kind: run_engine(__file__, kind, "--seconds", str(seconds)) for kind in kinds}

    print(f"tapisvert {tapisvert.__version__}; {seconds:g} s per comparison; 4 players, 12 tricks")
    if missing is not None:
        print(f"The compiled engine (mypyc) is {missing}: the pure-Python one alone is measured.")
    if figures["pure"]["rows"][0][1] is None:
        print("OpenSpiel is not installed: pip install open_spiel to compare")
    print(f"{'':<58} {'engine':<9} {'ours':>10} {'OpenSpiel':>10} {'ratio':>6}")
    for number, label in enumerate(ROW_LABELS):
        for kind in kinds:
            mine, other = figures[kind]["rows"][number]
            shown = f"{label if kind == 'pure' else '':<58} {kind:<9} {mine:>10,.0f}"
            print(shown if other is None else f"{shown} {other:>10,.0f} {mine / other:>6.2f}")

    print()
    print(
        f"{'our games, 4 players':<24} {'engine':<9} {'decisions/s':>12} {'games/s':>9}"
        f" {'clones/s':>10}"
    )
    for name in tapisvert.game_names():
        for kind in kinds:
            decisions, games, clones = figures[kind]["games"][name]
            shown_name = name if kind == "pure" else ""
            print(f"{shown_name:<24} {kind:<9} {decisions:>12,.0f} {games:>9,.0f} {clones:>10,.0f}")

    print()
    heading = f"{'clone()/s, 12-trick hand':<58} {'engine':<9} {'ours':>10}"
    print(f"{heading} {'OpenSpiel':>10} {'ratio':>6}")
    for kind in kinds:
        mine, other = figures[kind]["clones"]
        shown = f"{'Wizard / oh_hell, 20 decisions in' if kind == 'pure' else '':<58} {kind:<9}"
        shown += f" {mine:>10,.0f}"
        print(shown if other is None else f"{shown} {other:>10,.0f} {mine / other:>6.2f}")


if __name__ == "__main__":
    main()
