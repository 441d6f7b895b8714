"""Bot strength and search speed, measured side by side with OpenSpiel.

1. Search speed, for each of our engines (pure Python and, where it is built, compiled by
   mypyc; each in a process of its own): our IS-MCTS (uniformly random rollouts,
   ``legal[int(rng.random() * n)]`` with a Python ``random.Random``) on 10-card 4-player
   Wizard rounds, 1,000 iterations at the first decision of a hand, against OpenSpiel's
   IS-MCTS on ``oh_hell`` (4 players, 10 tricks) doing the same, in that process: its Python
   ``ISMCTSBot`` with an evaluator whose rollouts are drawn exactly as ours (the like-for-like
   figure), and, labelled as different work, with its own numpy rollouts
   (``RandomState.choice``, about 6 µs a call) and its C++ bot. Then ``hard``'s decisions in
   each game (positions of games the ``easy`` bots play): its budget, milliseconds and
   iterations per decision, and the share of decisions that reached the one-second cap.
2. Strength, per game, with duplicate deals and seat rotation (the arena): each search level
   (``--levels``, ``hard`` by default) alone against ``easy`` bots, and ``easy`` alone
   against ``random`` bots — margins per game and per round with 95% intervals, bids made,
   win rates, decision times; with ``medium`` and ``hard`` both, whether ``medium``'s
   interval lies strictly between ``easy`` (zero) and ``hard``'s.
3. Wizard full games: ``hard`` against three ``easy``, win rate.

Parts 2 and 3 run on the engine this process imports (``PYTHONPATH=build/compiled`` for the
compiled one), which the output names.

Run: ``.venv/bin/python benchmarks/bot_strength.py [--deals 100] [--full-games 10]``
(hours on 2 cores with the defaults; ``--deals 5 --full-games 1`` for a quick look, and
``TAPISVERT_SEARCH_SCALE=0.1`` to shrink the search budgets of the levels). The levels
alone: ``--seconds 0 --full-games 0 --no-easy-vs-random --levels medium,hard``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from typing import Any

import tapisvert
from engines import KINDS, check_engine, engine, engines_to_measure, run_engine
from tapisvert import CHANCE
from tapisvert.arena import ArenaReport, run_arena
from tapisvert.bots import make_bot
from tapisvert.bots.search import HalvingBot, ISMCTSBot, SearchSettings

GAME_OPTIONS = {"wizard": {"rounds": "10"}}
"""Options other than the defaults, where a whole game would take too long."""


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


def hard_decisions(seconds: float) -> dict[str, dict[str, float]]:
    """``hard``'s decisions in each game, about ``seconds`` of them: positions of games the
    ``easy`` bots play (4 players), where ``hard`` weighs every decision with a choice."""
    figures = {}
    for name in tapisvert.game_names():
        game = tapisvert.load_game(name, players=4, **GAME_OPTIONS.get(name, {}))
        hard = make_bot("hard", game)
        assert isinstance(hard, (ISMCTSBot, HalvingBot))
        settings = hard.searcher.settings
        budget = settings.iterations
        cap = math.inf if settings.seconds is None else settings.seconds
        easy = make_bot("easy", game)
        rng = random.Random(5)
        times: list[float] = []
        iterations: list[int] = []
        seed = 0
        while sum(times) < seconds:
            state = game.new_initial_state(seed)
            seed += 1
            while not state.is_terminal() and sum(times) < seconds:
                player = state.current_player()
                if player == CHANCE:
                    state.resolve_chance(rng)
                    continue
                observation, legal = state.observation(player), state.legal_actions()
                if len(legal) > 1:
                    started = time.perf_counter()
                    hard.choose(observation, legal, random.Random(len(times)))
                    times.append(time.perf_counter() - started)
                    iterations.append(hard.iterations_done)
                state.apply_action(easy.choose(observation, legal, rng))
        figures[name] = {
            "budget": budget,
            "decisions": len(times),
            "ms": 1000 * statistics.fmean(times),
            "max_ms": 1000 * max(times),
            "iterations": statistics.fmean(iterations),
            "capped": sum(spent >= cap for spent in times) / len(times),
        }
    return figures


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
    parser.add_argument("--games", default=",".join(tapisvert.game_names()), help="'': none")
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
    parser.add_argument("--engine", choices=KINDS, help="measure search speed here, as JSON")
    arguments = parser.parse_args()
    if arguments.engine is not None:
        check_engine(arguments.engine)
        seconds = arguments.seconds
        speed = {
            "ours": our_iterations_per_second(seconds),
            "openspiel": openspiel_iterations_per_second(seconds),
            "hard": hard_decisions(seconds),
        }
        print(json.dumps(speed))
        return

    if arguments.seconds > 0:
        search_speed(arguments.seconds)
    print(f"the games below run on the {engine()} engine")
    for game in filter(None, arguments.games.split(",")):
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
                options=GAME_OPTIONS.get(game, {}),
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
    """Search speed and ``hard``'s decisions, each engine in a process of its own."""
    kinds, missing = engines_to_measure()
    if missing is not None:
        print(f"The compiled engine (mypyc) is {missing}: the pure-Python one alone is measured.")
    figures = {kind: run_engine(__file__, kind, "--seconds", str(seconds)) for kind in kinds}
    print("search speed, 10-card 4-player Wizard, IS-MCTS random rollouts, 1,000 iterations:")
    print(f"  {'engine':<9} {'ours it/s':>10} {'OpenSpiel Python, rollouts as ours':>36}")
    for kind in kinds:
        ours, peer = figures[kind]["ours"], figures[kind]["openspiel"]
        line = f"  {kind:<9} {ours:>10,.0f}"
        if peer is not None:
            theirs = peer["python_ours_policy"]
            line += f" {theirs:>16,.0f} it/s (ratio ours/theirs {ours / theirs:.2f})"
            line += f"; its numpy rollouts {peer['python_numpy']:,.0f} it/s"
            line += f" (ratio {ours / peer['python_numpy']:.2f})"
            line += f"; OpenSpiel C++ {peer['cpp']:,.0f} it/s (ratio {ours / peer['cpp']:.2f})"
        print(line)
    if figures["pure"]["openspiel"] is None:
        print("OpenSpiel is not installed: pip install open_spiel to compare")
    print("hard's decisions in games of easy bots (4 players; Wizard 10-card rounds):")
    print(
        f"  {'game':<9} {'engine':<9} {'budget':>6} {'decisions':>9} {'ms':>6} {'max ms':>7}"
        f" {'iterations':>10} {'capped':>7}"
    )
    for name in tapisvert.game_names():
        for kind in kinds:
            hard = figures[kind]["hard"][name]
            print(
                f"  {name if kind == 'pure' else '':<9} {kind:<9} {hard['budget']:>6.0f}"
                f" {hard['decisions']:>9.0f} {hard['ms']:>6.0f} {hard['max_ms']:>7.0f}"
                f" {hard['iterations']:>10.0f} {100 * hard['capped']:>6.0f}%"
            )


if __name__ == "__main__":
    main()
