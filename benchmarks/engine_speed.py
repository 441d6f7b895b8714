"""Engine speed, side by side with OpenSpiel's C++ ``oh_hell`` driven from Python.

Random playouts of 4-player 12-trick hands (deal, trump, bids, plays):
- ours: Wizard with ``rounds=12``; the deal and the turned card are drawn by the engine
  (``resolve_chance``), every bid and card is a uniformly random legal action;
- theirs: ``oh_hell`` with ``num_tricks_fixed=12``; every chance outcome (uniform there)
  and every action is ``random.choice`` of ``legal_actions()``, the fastest sensible way.
Both loops call the public API once per decision and pick with the same Python ``random``.
Then full 4-player Wizard games per second and ``clone()`` per second.

Run: ``.venv/bin/python benchmarks/engine_speed.py [--seconds 5]``
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import tapisvert
from tapisvert import CHANCE


def rate(run_once: Callable[[int], object], seconds: float) -> float:
    """Calls per second of ``run_once(i)`` over about ``seconds``, best of three slices."""
    best = 0.0
    for _ in range(3):
        count = 0
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds / 3:
            run_once(count)
            count += 1
        best = max(best, count / elapsed)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0, help="time per measurement")
    arguments = parser.parse_args()
    rng = random.Random(1)
    choice = rng.choice

    def random_playouts(game: tapisvert.Game[Any]) -> Callable[[int], None]:
        """One whole game per call: engine-drawn chance, uniformly random legal moves."""

        def playout(seed: int) -> None:
            state = game.new_initial_state(seed)
            while True:
                player = state.current_player()
                if player >= 0:
                    state.apply_action(choice(state.legal_actions()))
                elif player == CHANCE:
                    state.resolve_chance(rng)
                else:
                    return

        return playout

    full_game = tapisvert.load_game("wizard", players=4)
    our_hand = random_playouts(tapisvert.load_game("wizard", players=4, rounds="12"))
    our_game = random_playouts(full_game)

    print(f"tapisvert {tapisvert.__version__}, {arguments.seconds:g} s per measurement")
    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("OpenSpiel is not installed: pip install open_spiel to compare")

    if pyspiel is None:
        print(f"ours   4-player 12-trick hands/s: {rate(our_hand, arguments.seconds):12,.0f}")
    else:
        their_game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 12})

        def their_hand(_: int) -> None:
            state = their_game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))

        # Alternate the two so that both see the same machine load; keep the best of each.
        ours = theirs = 0.0
        for _ in range(2):
            ours = max(ours, rate(our_hand, arguments.seconds / 2))
            theirs = max(theirs, rate(their_hand, arguments.seconds / 2))
        print(f"ours   4-player 12-trick hands/s: {ours:12,.0f} (tapisvert Wizard, pure Python)")
        print(f"theirs 4-player 12-trick hands/s: {theirs:12,.0f} (OpenSpiel oh_hell, C++)")
        print(f"ratio ours/theirs: {ours / theirs:.2f} (target >= 1.0)")

    games = rate(our_game, arguments.seconds)
    print(f"ours   full 4-player Wizard games/s: {games:10,.0f}")
    luz_games = rate(random_playouts(tapisvert.load_game("luz", players=4)), arguments.seconds)
    print(f"ours   full 4-player Luz games/s:    {luz_games:10,.0f}")
    fzzzt_games = rate(random_playouts(tapisvert.load_game("fzzzt", players=4)), arguments.seconds)
    print(f"ours   full 4-player Fzzzt! games/s: {fzzzt_games:10,.0f}")
    abluxxen = random_playouts(tapisvert.load_game("abluxxen", players=4))
    print(f"ours   full 4-player Abluxxen games/s: {rate(abluxxen, arguments.seconds):8,.0f}")

    state = full_game.new_initial_state(3)
    state.resolve_chance()
    for _ in range(20):
        state.apply_action(state.legal_actions()[0])
        if state.current_player() == CHANCE:
            state.resolve_chance()
    clone = state.clone
    batch = 10_000

    def clones(_: int) -> None:
        for _ in range(batch):
            clone()

    print(f"ours   clones/s: {rate(clones, arguments.seconds) * batch:,.0f} (target >= 1,000,000)")


if __name__ == "__main__":
    main()
