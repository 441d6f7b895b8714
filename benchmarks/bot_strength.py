"""Bot strength and search speed, measured side by side with OpenSpiel.

1. Search speed, for each of our engines (pure Python and, where it is built, compiled by
   mypyc; each in a process of its own, the two started together and taking turns
   ``--rounds`` times, so that both share the same minutes of the machine): our IS-MCTS
   (uniformly random rollouts, ``legal[int(rng.random() * n)]`` with a Python
   ``random.Random``) on 10-card 4-player Wizard rounds, 1,000 iterations at the first
   decision of a hand, against OpenSpiel's IS-MCTS on ``oh_hell`` (4 players, 10 tricks)
   doing the same, in that process: its Python ``ISMCTSBot`` with an evaluator whose rollouts
   are drawn exactly as ours (the like-for-like figure), and, labelled as different work, with
   its own numpy rollouts (``RandomState.choice``, about 6 µs a call) and its C++ bot; all
   with the same UCT constant, the Python bot's iterations counted as it runs them. Then
   ``hard``'s decisions in each game (positions of games the ``easy`` bots play): its budget,
   milliseconds and iterations per decision, and the share of decisions that reached the
   one-second cap.
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
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import tapisvert
from engines import KINDS, alternate, check_engine, engines_to_measure, serve_slices
from tapisvert import CHANCE
from tapisvert.arena import ArenaReport, run_arena
from tapisvert.bots import make_bot
from tapisvert.bots.search import HalvingBot, ISMCTSBot, SearchSettings
from tapisvert.compiled import engine_in_use

GAME_OPTIONS = {"wizard": {"rounds": "10"}}
"""Options other than the defaults, where a whole game would take too long."""


UCT_CONSTANT = SearchSettings().exploration
"""The exploration constant of every IS-MCTS measured here, ours and OpenSpiel's alike (ours
weighs it against rewards scaled by the largest seen, OpenSpiel's against raw returns)."""
SEARCH_ITERATIONS = 1000
"""Iterations a decision, of every IS-MCTS measured here."""


class Counted:
    """Decisions timed so far and the iterations counted in them, across slices."""

    def __init__(self) -> None:
        self.iterations = 0
        self.seconds = 0.0
        self.seed = 0

    def slice(self, seconds: float, decide: Callable[[int], int]) -> list[float]:
        """Time ``decide(seed)`` (which returns the iterations it ran) for ``seconds`` or
        one decision, whichever is longer; the iterations and seconds of this slice."""
        done, spent = 0, 0.0
        while spent < seconds:
            started = time.perf_counter()
            done += decide(self.seed)
            spent += time.perf_counter() - started
            self.seed += 1
        return [done, spent]


class SearchSpeed:
    """The search-speed figures of this process's engine, measured a slice at a time, each
    figure going on from where its last slice stopped."""

    def __init__(self) -> None:
        self.game = tapisvert.load_game("wizard", players=4, rounds="10")
        self.ours = ISMCTSBot(
            self.game, SearchSettings(iterations=SEARCH_ITERATIONS, rollout="random")
        )
        self.counted = {"ours": Counted()}
        self.openspiel = openspiel_bots()
        for name in self.openspiel or {}:
            self.counted[name] = Counted()
        self.hard = {name: HardDecisions(name) for name in tapisvert.game_names()}

    def our_decision(self, seed: int) -> int:
        state = self.game.new_initial_state(seed)
        state.resolve_chance()
        player = state.current_player()
        self.ours.choose(state.observation(player), state.legal_actions(), random.Random(seed))
        return self.ours.iterations_done

    def __call__(self, seconds: float) -> dict[str, Any]:
        figures: dict[str, Any] = {"ours": self.counted["ours"].slice(seconds, self.our_decision)}
        for name, decide in (self.openspiel or {}).items():
            figures[name] = self.counted[name].slice(seconds, decide)
        figures["hard"] = {name: hard.slice(seconds) for name, hard in self.hard.items()}
        return figures


def openspiel_bots() -> dict[str, Callable[[int], int]] | None:
    """OpenSpiel's IS-MCTS on ``oh_hell`` (4 players, 10 tricks; 52 cards where ours has 60),
    ``SEARCH_ITERATIONS`` at the first decision of a hand, three ways, each a function of the
    deal's seed that decides and returns the iterations it ran: its Python bot with rollouts
    made as ours are (``legal[int(rng.random() * len(legal))]`` with a Python
    ``random.Random``); the same with its own numpy random rollouts; its C++ bot (C++ random
    rollouts). ``None`` without OpenSpiel."""
    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts
    except ImportError:
        return None
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 10})

    def first_decision(seed: int) -> Any:
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

    class CountingBot(ismcts.ISMCTSBot):  # type: ignore[misc]
        """Its Python bot, counting the iterations it runs: its search draws a world at the
        start of each, and nowhere else."""

        iterations = 0

        def sample_root_state(self, state: Any) -> Any:
            self.iterations += 1
            return super().sample_root_state(state)

    def python_bot(evaluator: Any) -> Callable[[int], int]:
        bot = CountingBot(
            game=game,
            evaluator=evaluator,
            uct_c=UCT_CONSTANT,
            max_simulations=SEARCH_ITERATIONS,
            random_state=np.random.RandomState(2),
        )

        def decide(seed: int) -> int:
            before = bot.iterations
            bot.step(first_decision(seed))
            return int(bot.iterations - before)

        return decide

    cpp = pyspiel.ISMCTSBot(
        3,
        pyspiel.RandomRolloutEvaluator(1, 4),
        UCT_CONSTANT,
        SEARCH_ITERATIONS,
        -1,
        pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT,
        False,
        False,
    )

    def cpp_decision(seed: int) -> int:
        """Its C++ search cannot be counted from here; it runs ``max_simulations`` iterations
        unless there is one legal action (then none), and nothing else stops it."""
        state = first_decision(seed)
        cpp.step(state)
        return SEARCH_ITERATIONS if len(state.legal_actions()) > 1 else 0

    return {
        "python_ours_policy": python_bot(OurRolloutPolicy(random.Random(1))),
        "python_numpy": python_bot(mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))),
        "cpp": cpp_decision,
    }


class HardDecisions:
    """``hard``'s decisions in one game, in positions of games the ``easy`` bots play (4
    players), where ``hard`` weighs every decision with a choice; a slice at a time."""

    def __init__(self, name: str) -> None:
        game = tapisvert.load_game(name, players=4, **GAME_OPTIONS.get(name, {}))
        hard = make_bot("hard", game)
        assert isinstance(hard, (ISMCTSBot, HalvingBot))
        self.hard = hard
        settings = self.hard.searcher.settings
        self.budget = settings.iterations
        self.cap = math.inf if settings.seconds is None else settings.seconds
        self.decisions = self.positions(game, make_bot("easy", game))

    def positions(self, game: Any, easy: Any) -> Iterator[tuple[float, int]]:
        """Each of ``hard``'s decisions: its seconds and iterations."""
        rng = random.Random(5)
        decided = 0
        for seed in itertools.count():
            state = game.new_initial_state(seed)
            while not state.is_terminal():
                player = state.current_player()
                if player == CHANCE:
                    state.resolve_chance(rng)
                    continue
                observation, legal = state.observation(player), state.legal_actions()
                if len(legal) > 1:
                    started = time.perf_counter()
                    self.hard.choose(observation, legal, random.Random(decided))
                    yield time.perf_counter() - started, self.hard.iterations_done
                    decided += 1
                state.apply_action(easy.choose(observation, legal, rng))

    def slice(self, seconds: float) -> dict[str, Any]:
        times: list[float] = []
        iterations: list[int] = []
        while sum(times) < seconds:
            spent, done = next(self.decisions)
            times.append(spent)
            iterations.append(done)
        return {
            "budget": self.budget,
            "times": times,
            "iterations": iterations,
            "capped": sum(spent >= self.cap for spent in times),
        }


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
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="turns each engine takes at the search-speed figures, the others waiting",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--engine", choices=KINDS, help="measure search speed here, a slice at a time, as JSON"
    )
    arguments = parser.parse_args()
    if arguments.engine is not None:
        check_engine(arguments.engine)
        serve_slices(SearchSpeed())
        return

    if arguments.seconds > 0:
        search_speed(arguments.seconds, arguments.rounds)
    print(f"the games below run on the {engine_in_use()} engine")
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


def search_speed(seconds: float, rounds: int) -> None:
    """Search speed and ``hard``'s decisions, each engine in a process of its own, the two
    taking turns ``rounds`` times."""
    kinds, missing = engines_to_measure()
    if missing is not None:
        print(f"The compiled engine (mypyc) is {missing}: the pure-Python one alone is measured.")
    slices = alternate(__file__, kinds, rounds, seconds / rounds)
    print(
        f"search speed, 10-card 4-player Wizard, IS-MCTS random rollouts, {SEARCH_ITERATIONS:,}"
        f" iterations a decision, UCT constant {UCT_CONSTANT:g} on both sides; the engines"
        f" alternating, {rounds} turns of {seconds / rounds:g} s a figure each; OpenSpiel's"
        " iterations counted as its Python bot runs them:"
    )
    print(f"  {'engine':<9} {'ours it/s':>10} {'OpenSpiel Python, rollouts as ours':>36}")
    for kind in kinds:
        ours = rate(slices[kind], "ours")
        line = f"  {kind:<9} {ours:>10,.0f}"
        if "cpp" in slices[kind][0]:
            theirs, numpy, cpp = (
                rate(slices[kind], name) for name in ("python_ours_policy", "python_numpy", "cpp")
            )
            line += f" {theirs:>16,.0f} it/s (ratio ours/theirs {ours / theirs:.2f})"
            line += f"; its numpy rollouts {numpy:,.0f} it/s (ratio {ours / numpy:.2f})"
            line += f"; OpenSpiel C++ {cpp:,.0f} it/s (ratio {ours / cpp:.2f})"
        print(line)
    if "cpp" not in slices["pure"][0]:
        print("OpenSpiel is not installed: pip install open_spiel to compare")
    print("hard's decisions in games of easy bots (4 players; Wizard 10-card rounds):")
    print(
        f"  {'game':<9} {'engine':<9} {'budget':>6} {'decisions':>9} {'ms':>6} {'max ms':>7}"
        f" {'iterations':>10} {'capped':>7}"
    )
    for name in tapisvert.game_names():
        for kind in kinds:
            parts = [part["hard"][name] for part in slices[kind]]
            times = [spent for part in parts for spent in part["times"]]
            iterations = [done for part in parts for done in part["iterations"]]
            capped = sum(part["capped"] for part in parts) / len(times)
            print(
                f"  {name if kind == 'pure' else '':<9} {kind:<9} {parts[0]['budget']:>6.0f}"
                f" {len(times):>9.0f} {1000 * statistics.fmean(times):>6.0f}"
                f" {1000 * max(times):>7.0f} {statistics.fmean(iterations):>10.0f}"
                f" {100 * capped:>6.0f}%"
            )


def rate(slices: list[dict[str, Any]], figure: str) -> float:
    """Iterations a second of one figure, over all its slices."""
    done = sum(float(part[figure][0]) for part in slices)
    return done / sum(float(part[figure][1]) for part in slices)


if __name__ == "__main__":
    main()
