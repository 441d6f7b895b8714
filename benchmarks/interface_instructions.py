"""Instructions per decision of the engine alone and of the engine with the seat's tensor and
mask, the first pair of ``interface_cost.py``, counted by valgrind's callgrind.

The same games as there (``interface_games``): the engine, then the engine writing at each
decision the seat's tensor (``write_state``) and mask (``write_legal``), the same generator
giving both the same positions. Each side runs in a process of its own under callgrind, which
counts the instructions of the games played inside one call (``functools.reduce``), after a
first game played outside it (imports and caches warmed), and nothing else. A count does not
move with the machine's load, where the decisions/s of a shared machine do (by a third from
one run to the next under heavy load): it is the steadier measure of the ratio, though not the
time itself (an instruction of numpy's copies costs less than one of the interpreter's).

Run: ``.venv/bin/python benchmarks/interface_instructions.py [--games 2] [--game wizard]``
(needs ``valgrind``; a few minutes per row, the interpreter running some fifty times slower.)
With ``--keep DIR``, callgrind's own file of each count stays in ``DIR``
(``ROW.SIDE.callgrind``), for ``callgrind_annotate --inclusive=yes`` to say which functions
the instructions went to.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import tapisvert
from interface_games import OPTIONS, engine_games, tensor_games

SIDES = {"engine": engine_games, "tensor+mask": tensor_games}


def played(row: str, side: str, games: int) -> None:
    """The side's games, inside the one call callgrind counts; prints how many decisions."""
    play = SIDES[side](row)
    play()  # outside the count
    decisions = functools.reduce(lambda total, _: total + play(), range(games), 0)
    print(f"decisions {decisions}")


def counted(row: str, side: str, games: int, keep: Path | None) -> float:
    """Instructions per decision of ``side`` playing ``games`` games of ``row``; callgrind's
    file kept in ``keep`` if given."""
    kept = os.devnull if keep is None else str(keep / f"{row}.{side}.callgrind")
    printed = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=functools_reduce",
            f"--callgrind-out-file={kept}",
            sys.executable,
            __file__,
            "--count",
            row,
            side,
            str(games),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # the same dictionaries' layouts each run
    )
    decisions = re.search(r"^decisions (\d+)$", printed.stdout, re.MULTILINE)
    instructions = re.search(r"Collected : (\d+)", printed.stderr)
    if decisions is None or instructions is None:
        raise SystemExit(f"callgrind did not count {row} {side}: {printed.stderr[-500:]}")
    return int(instructions[1]) / int(decisions[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games counted per side and row")
    parser.add_argument(
        "--game", action="append", default=[], help="a row to count (every game by default)"
    )
    parser.add_argument("--keep", type=Path, help="a folder to keep callgrind's files in")
    parser.add_argument("--count", nargs=3, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.count:
        row, side, games = arguments.count
        played(row, side, int(games))
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind counts the instructions: install it (apt-get install valgrind)")
    if arguments.keep is not None:
        arguments.keep.mkdir(parents=True, exist_ok=True)
    every = [
        *tapisvert.game_names(),
        *(row for row in OPTIONS if row not in tapisvert.game_names()),
    ]
    print(f"{'game':10} {'engine':>14} {'tensor+mask':>14} {'ratio':>5}   (instructions/decision)")
    for row in arguments.game or tapisvert.game_names():
        if row not in every:
            raise SystemExit(f"no row {row}: the rows are {', '.join(every)}")
        engine = counted(row, "engine", arguments.games, arguments.keep)
        tensor = counted(row, "tensor+mask", arguments.games, arguments.keep)
        print(f"{row:10} {engine:14,.0f} {tensor:14,.0f} {engine / tensor:5.3f}")


if __name__ == "__main__":
    main()
