"""What a game's end costs the storage, side by side with an earlier version.

When a game ends, the writer thread writes each seat's result and the ratings they change
(``storage.ratings.rating``), in the transaction that logs the last move. That work is Python
(SQLAlchemy) holding the interpreter's lock, so the event loop waits while it runs: at 250
tables of a short game, game ends come every few hundred moves. Measured on a SQLite file, in a
transaction rolled back each time (the same game ends again and again): four guests (no
rating changes, as in ``server_load.py``), then four registered accounts rated before (each
rating updated). Microseconds of the measuring thread's CPU time a game's end, the best of
``--repeats`` passes of ``--games`` game ends.

With ``--before REV`` the same is measured with the code of git revision REV (checked out in a
temporary worktree; each version in a process of its own, the two alternating) and the ratio
is printed.

Run: ``.venv/bin/python benchmarks/game_end_cost.py [--before REV] [--games 300]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from revisions import SOURCES, earlier_sources, measured_from

CASES = ("guests", "rated")


async def measure(games: int, repeats: int) -> dict[str, float]:
    """Microseconds of a game's end for each case, best of ``repeats`` passes."""
    from tapisvert.core.registry import game_names
    from tapisvert.server.ratings import Standing
    from tapisvert.server.storage import SqlStorage
    from tapisvert.server.storage.ratings import rating
    from tapisvert.server.storage.rows import TableRow

    with tempfile.TemporaryDirectory() as folder:
        storage = SqlStorage(f"sqlite:///{Path(folder) / 'game_ends.sqlite3'}")
        await storage.start()
        try:
            create = storage.accounts.create
            accounts = {
                "guests": [await create(f"g{seat}", f"g{seat}", None, True) for seat in range(4)],
                "rated": [await create(f"p{seat}", f"p{seat}", "-", False) for seat in range(4)],
            }
            game = game_names()[0]  # any game: its name labels the rows, no more
            playing = TableRow("main", game, 4, {}, 1, None, "playing", [{}] * 4)

            async def finished() -> TableRow:
                table_id = await storage.tables.create(playing)
                result = [1.0, 2.0, 3.0, 4.0]
                return replace(
                    playing, id=table_id, status="finished", result=result, finished_at=1.0
                )

            def standings(case: str) -> list[Standing]:
                return [
                    Standing(seat, accounts[case][seat], 10.0 * seat, seat == 3, False, True)
                    for seat in range(4)
                ]

            engine = storage.engine
            with engine.begin() as connection:  # the rated accounts' first ratings, kept
                rating(await finished(), standings("rated"))(connection)
            table = await finished()
            best: dict[str, float] = {}
            for case in CASES:
                seats = standings(case)
                for _ in range(repeats):
                    started = time.thread_time()
                    for _ in range(games):
                        with engine.connect() as connection:
                            transaction = connection.begin()
                            rating(table, seats)(connection)
                            transaction.rollback()
                    took = 1e6 * (time.thread_time() - started) / games
                    best[case] = min(best.get(case, took), took)
            return best
        finally:
            await storage.close()


def run_side(source: Path, arguments: argparse.Namespace) -> dict[str, float]:
    """``measure`` in a process of its own, importing tapisvert from ``source``."""
    printed = measured_from(
        source, __file__, "--measure",
        "--games", str(arguments.games), "--repeats", str(arguments.repeats),
    )  # fmt: skip
    return dict(json.loads(printed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="game ends a pass")
    parser.add_argument("--repeats", type=int, default=3, help="passes; the best is kept")
    parser.add_argument("--before", default="", help="git revision to compare with")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        print(json.dumps(asyncio.run(measure(arguments.games, arguments.repeats))))
        return
    print(
        f"µs a game's end (4 seats' results, their ratings; CPU time), best of"
        f" {arguments.repeats} passes of {arguments.games}"
    )
    if not arguments.before:
        now = run_side(SOURCES, arguments)
        for case in CASES:
            print(f"{case:<7} {now[case]:>8.0f}")
        return
    with earlier_sources(arguments.before) as earlier:
        before = run_side(earlier, arguments)
        now = run_side(SOURCES, arguments)
    print(f"{'case':<7} {'now':>8} {'before':>8} {'ratio':>6}")
    for case in CASES:
        print(f"{case:<7} {now[case]:>8.0f} {before[case]:>8.0f} {before[case] / now[case]:>6.2f}")


if __name__ == "__main__":
    main()
