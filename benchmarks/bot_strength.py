"""Bot strength and search speed, measured side by side with OpenSpiel.

1. Search speed: our IS-MCTS (uniformly random rollouts, ``legal[int(rng.random() * n)]``
   with a Python ``random.Random``) on 10-card 4-player Wizard rounds, 1,000 iterations at
   the first decision of a hand, against OpenSpiel's IS-MCTS on ``oh_hell`` (4 players, 10
   tricks) doing the same: its Python ``ISMCTSBot`` with an evaluator whose rollouts are
   drawn exactly as ours (the like-for-like figure), and, labelled as different work, with
   its own numpy rollouts (``RandomState.choice``, about 6 µs a call) and its C++ bot.
2. Strength, per game, with duplicate deals and seat rotation (the arena): each search level
   (``--levels``, ``hard`` by default) alone against ``easy`` bots, and ``easy`` alone
   against ``random`` bots — margins per game and per round with 95% intervals, bids made,
   win rates, decision times; with ``medium`` and ``hard`` both, whether ``medium``'s
   interval lies strictly between ``easy`` (zero) and ``hard``'s.
3. Wizard full games: ``hard`` against three ``easy``, win rate.

Run: ``.venv/bin/python benchmarks/bot_strength.py [--deals 100] [--full-games 10]``
(hours on 2 cores with the defaults; ``--deals 5 --full-games 1`` for a quick look, and
``TAPISVERT_SEARCH_SCALE=0.1`` to shrink the search budgets of the levels). The levels
alone: ``--seconds 0 --full-games 0 --no-easy-vs-random --levels medium,hard``.
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import tapisvert
from tapisvert.arena import ArenaReport, run_arena
from tapisvert.bots.search import ISMCTSBot, SearchSettings

GAME_OPTIONS = {"wizard": {"rounds": "10"}, "luz": {}, "abluxxen": {}, "fzzzt": {}}


def our_iterations_per_second(seconds: float) -> float:
    game = tapisvert.load_game("wizard", players=4, rounds="10")
    bot = ISMCTSBot(game, SearchSettings(iterations=1000, rollout="random"))
    done, spent, seed = 0, 0.0, 0
    while spent < seconds:
        state = game.new_initial_state(seed)
        state.resolve_chance()
        player = state.current_player()
        started = time.perf_counter()
        bot.choose(state.observation(player), state.legal_actions(), random.Random(seed))
        spent += time.perf_counter() - started
        done += bot.iterations_done
        seed += 1
    return done / spent


def openspiel_iterations_per_second(seconds: float) -> dict[str, float] | None:
    """OpenSpiel's IS-MCTS on ``oh_hell`` (4 players, 10 tricks; 52 cards where ours has 60),
    1,000 iterations at the first decision of a hand, three ways: its Python bot with its own
    numpy random rollouts; its Python bot with rollouts made as ours are (``ours_policy``:
    ``legal[int(rng.random() * len(legal))]`` with a Python ``random.Random``); its C++ bot
    (C++ random rollouts)."""
    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 10})

    def first_decision(seed: int) -> object:
        rng = random.Random(seed)
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        return state

    class OurRolloutPolicy(mcts.Evaluator):  # type: ignore[misc]
        """A uniformly random rollout to the end, drawn as our search draws it."""

        def __init__(self, rng: random.Random) -> None:
            self.rng = rng

        def evaluate(self, state: Any) -> Any:
            working = state.clone()
            draw = self.rng.random
            while not working.is_terminal():
                legal = working.legal_actions()
                working.apply_action(legal[int(draw() * len(legal))])
            return np.array(working.returns())

        def prior(self, state: Any) -> list[tuple[int, float]]:
            legal = state.legal_actions()
            return [(action, 1.0 / len(legal)) for action in legal]

    def python_bot(evaluator: Any) -> Any:
        return ismcts.ISMCTSBot(
            game=game,
            evaluator=evaluator,
            uct_c=2.0,
            max_simulations=1000,
            random_state=np.random.RandomState(2),
        )

    bots = {
        "python_numpy": (
            python_bot(mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))),
            1000,
        ),
        "python_ours_policy": (python_bot(OurRolloutPolicy(random.Random(1))), 1000),
        "cpp": (
            pyspiel.ISMCTSBot(
                3,
                pyspiel.RandomRolloutEvaluator(1, 4),
                2.0,
                10_000,
                -1,
                pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT,
                False,
                False,
            ),
            10_000,
        ),
    }
    rates = {}
    for name, (bot, simulations) in bots.items():
        done, spent, seed = 0, 0.0, 0
        while spent < seconds:
            state = first_decision(seed)
            started = time.perf_counter()
            bot.step(state)
            spent += time.perf_counter() - started
            done += simulations
            seed += 1
        rates[name] = done / spent
    return rates


def describe(report: ArenaReport) -> None:
    for entry in report.entries:
        game_margin = entry.margin_per_game
        line = (
            f"  {entry.entry}:{entry.bot:<9} margin/game {game_margin.mean:+7.2f} "
            f"[{game_margin.low:+.2f}, {game_margin.high:+.2f}]"
        )
        if entry.margin_per_segment is not None:
            seg = entry.margin_per_segment
            line += f"  margin/round {seg.mean:+7.2f} [{seg.low:+.2f}, {seg.high:+.2f}]"
        if entry.contracts_made is not None:
            line += f"  bids made {100 * entry.contracts_made:5.1f}%"
        thinking = 1000 * entry.mean_decision_seconds
        line += f"  wins {100 * entry.win_rate:5.1f}%  decision {thinking:.0f} ms"
        line += f" (max {1000 * entry.max_decision_seconds:.0f})"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals per match (x 4 rotations)")
    parser.add_argument("--full-games", type=int, default=10, help="Wizard full-game deals")
    parser.add_argument("--games", default="wizard,luz,abluxxen,fzzzt")
    parser.add_argument(
        "--levels", default="hard", help="search levels, each alone against three easy"
    )
    parser.add_argument(
        "--easy-vs-random",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="easy alone against three random too",
    )
    parser.add_argument("--seed", type=int, default=11, help="of the deals")
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="per search-speed figure (0: none)"
    )
    parser.add_argument("--workers", type=int, default=2)
    arguments = parser.parse_args()

    if arguments.seconds > 0:
        search_speed(arguments.seconds)
    for game in arguments.games.split(","):
        lineups = [[level, "easy", "easy", "easy"] for level in arguments.levels.split(",")]
        if arguments.easy_vs_random:
            lineups.append(["easy", "random", "random", "random"])
        margins = {}
        for lineup in lineups:
            started = time.perf_counter()
            report = run_arena(
                game,
                lineup,
                arguments.deals,
                seed=arguments.seed,
                options=GAME_OPTIONS[game],
                workers=arguments.workers,
            )
            print(
                f"{game}: {','.join(lineup)}, {arguments.deals} deals x 4 rotations "
                f"({time.perf_counter() - started:.0f} s)"
            )
            describe(report)
            margins[lineup[0]] = report.entries[0].margin_per_game
        if "medium" in margins and "hard" in margins:
            medium, hard = margins["medium"], margins["hard"]
            between = medium.low > 0 and medium.high < hard.low
            print(
                f"{game}: medium strictly between easy and hard: {'yes' if between else 'no'}"
                f" (medium [{medium.low:+.2f}, {medium.high:+.2f}], hard from {hard.low:+.2f})"
            )

    if arguments.full_games:
        report = run_arena(
            "wizard",
            ["hard", "easy", "easy", "easy"],
            arguments.full_games,
            seed=12,
            workers=arguments.workers,
        )
        print(f"wizard full games: hard,easy,easy,easy, {arguments.full_games} deals x 4 rotations")
        describe(report)


def search_speed(seconds: float) -> None:
    ours = our_iterations_per_second(seconds)
    print(f"search speed, 10-card 4-player Wizard, IS-MCTS random rollouts: {ours:,.0f} it/s")
    peer = openspiel_iterations_per_second(seconds)
    if peer is None:
        print("OpenSpiel is not installed: pip install open_spiel to compare")
    else:
        print(
            f"OpenSpiel Python ISMCTSBot, rollouts drawn as ours:  "
            f"{peer['python_ours_policy']:,.0f} it/s (ratio ours/theirs"
            f" {ours / peer['python_ours_policy']:.2f}, target >= 1.0)"
        )
        print(
            f"OpenSpiel Python ISMCTSBot, its numpy rollouts:     "
            f"{peer['python_numpy']:,.0f} it/s (ratio {ours / peer['python_numpy']:.2f})"
        )
        print(
            f"OpenSpiel C++ ISMCTSBot, its C++ rollouts:          "
            f"{peer['cpp']:,.0f} it/s (ratio {ours / peer['cpp']:.2f})"
        )


if __name__ == "__main__":
    main()
