"""What one position costs the server, game by game, side by side with an earlier version.

The server's work for each move, without sockets or database: the move applied to a copy
of the position (``clone``, ``apply_action``, the chance it leads to, as a table does),
then the frames of the four seats and of the spectators (``Views.frame``, each
carrying only what changed since the frame before it on its channel). For each game,
``--games`` random 4-player games (seeds 0, 1…; uniformly random legal moves from one
seeded generator, so both versions see the same positions); the best of ``--repeats``
passes. Times are the CPU time of the measuring thread, so that other work on the machine
does not count (it still slows the caches).

With ``--before REV`` the same is measured with the code of git revision REV (checked out
in a temporary worktree; each version runs in a process of its own, the two alternating
game by game) and the ratio is printed.

Run: ``.venv/bin/python benchmarks/view_cost.py [--before REV] [--games 30]``
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from revisions import SOURCES, earlier_sources, measured_from
from tapisvert.core.registry import game_names

GAMES = tuple(game_names())


def measure(game_name: str, games: int, repeats: int) -> dict[str, float]:
    """Microseconds per position (the move, the five views), best of ``repeats`` passes."""
    from tapisvert.core.game import CHANCE
    from tapisvert.server.storage import TableRow
    from tapisvert.server.tables import GameTable

    best: dict[str, float] = {}
    for _ in range(repeats):
        moving = viewing = 0.0
        positions = sent = 0
        for seed in range(games):
            row = TableRow("main", game_name, 4, {}, seed, None, "playing", [{}] * 4)
            table = GameTable(row, host=None)  # type: ignore[arg-type]  # views need none
            state = table.game.new_initial_state()
            state.resolve_chance(random.Random(f"{seed}:0"))
            choices = random.Random(seed)
            while True:
                table.state = state
                started = time.thread_time()
                for seat in (0, 1, 2, 3, None):
                    sent += len(table.views.frame(seat, table.views.sent.get(seat)))
                viewed = time.thread_time()
                viewing += viewed - started
                positions += 1
                if state.is_terminal():
                    break
                legal = state.legal_actions()
                action = legal[choices.randrange(len(legal))]
                started = time.thread_time()
                following = state.clone()
                following.apply_action(action)
                if following.current_player() == CHANCE:
                    following.resolve_chance(random.Random(f"{seed}:{positions}"))
                moving += time.thread_time() - started
                state = following
                table.seq += 1
        result = {
            "positions": positions,
            "move": 1e6 * moving / positions,
            "views": 1e6 * viewing / positions,
            "bytes": sent / positions,
        }
        if not best or result["move"] + result["views"] < best["move"] + best["views"]:
            best = result
    return best


def run_side(source: Path, game: str, arguments: argparse.Namespace) -> dict[str, float]:
    """``measure`` in a process of its own, importing tapisvert from ``source``."""
    printed = measured_from(
        source, __file__, "--measure", game,
        "--games", str(arguments.games), "--repeats", str(arguments.repeats),
    )  # fmt: skip
    return dict(json.loads(printed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="random games per game")
    parser.add_argument("--repeats", type=int, default=3, help="passes; the best is kept")
    parser.add_argument("--before", default="", help="git revision to compare with")
    parser.add_argument("--game", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--measure", default="", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        print(json.dumps(measure(arguments.measure, arguments.games, arguments.repeats)))
        return

    if not arguments.before:
        report(arguments, None)
        return
    with earlier_sources(arguments.before) as earlier:
        report(arguments, earlier)


def report(arguments: argparse.Namespace, earlier: Path | None) -> None:
    print(
        f"µs per position: the move (clone, apply, chance) and the views of 4 seats and the"
        f" spectators; {arguments.games} random 4-player games, best of {arguments.repeats};"
        " bytes: the views' frames"
    )
    header = f"{'game':<9} {'positions':>9} {'move':>7} {'views':>7} {'total':>7} {'bytes':>6}"
    if earlier is not None:
        header += f" {'before':>7} {'ratio':>6} {'bytes':>6}"
    print(header)
    for game in arguments.game:
        before: dict[str, Any] | None = None
        if earlier is not None:
            before = run_side(earlier, game, arguments)
        now = run_side(SOURCES, game, arguments)
        total = now["move"] + now["views"]
        line = (
            f"{game:<9} {now['positions']:>9.0f} {now['move']:>7.1f} {now['views']:>7.1f}"
            f" {total:>7.1f} {now['bytes']:>6.0f}"
        )
        if before is not None:
            earlier_total = before["move"] + before["views"]
            line += f" {earlier_total:>7.1f} {earlier_total / total:>6.2f} {before['bytes']:>6.0f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
