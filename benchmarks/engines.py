"""Our two engines side by side: the pure-Python sources and the compiled build.

``scripts/compile`` builds the compiled engine into ``build/compiled`` (mypyc), which is in use
where it comes first on ``PYTHONPATH``. A benchmark measures each engine in a process of its
own: it runs itself again with ``--engine pure`` or ``--engine compiled`` (the path set so),
and that process, having checked which engine it imported, prints its figures as JSON — once
(``run_engine``), or for each slice of time it is asked for while the other engine's process
waits its turn (``alternate``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tapisvert.compiled import BUILD as COMPILED_BUILD
from tapisvert.compiled import ENGINE_VARIABLE, build_state, engine_in_use

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("pure", "compiled")


def check_engine(kind: str) -> None:
    """Stop unless this process runs the engine it was asked to measure."""
    if engine_in_use() != kind:
        raise SystemExit(f"this process imports the {engine_in_use()} engine, not the {kind} one")


def engines_to_measure() -> tuple[list[str], str | None]:
    """The engines there are to measure, and why the compiled one is not among them."""
    missing = build_state()
    return (["pure"] if missing is not None else list(KINDS)), missing


def run_engine(script: str, kind: str, *arguments: str) -> Any:
    """What ``script --engine kind`` prints as JSON, run with that engine on the path."""
    printed = subprocess.run(
        [sys.executable, script, *arguments, "--engine", kind],
        env=engine_environment(kind),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(printed)


def serve_slices(measure: Callable[[float], Any]) -> None:
    """The engine's side of ``alternate``: for each line read (a number of seconds), measure
    that long and print what was measured as one line of JSON."""
    for line in sys.stdin:
        print(json.dumps(measure(float(line))), flush=True)


def alternate(script: str, kinds: list[str], rounds: int, seconds: float) -> dict[str, list[Any]]:
    """What ``script --engine KIND`` measures in ``rounds`` slices of ``seconds`` each, the
    engines' processes started together and taking turns (ABBA: the order is reversed every
    other round), so that a machine getting busier or quieter weighs on both alike."""
    processes = {kind: _engine_process(script, kind) for kind in kinds}
    slices: dict[str, list[Any]] = {kind: [] for kind in kinds}
    try:
        for round_number in range(rounds):
            for kind in kinds if round_number % 2 == 0 else kinds[::-1]:
                process = processes[kind]
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write(f"{seconds}\n")
                process.stdin.flush()
                answer = process.stdout.readline()
                if not answer:
                    raise RuntimeError(f"the {kind} engine's process stopped: {process.wait()}")
                slices[kind].append(json.loads(answer))
    finally:
        for process in processes.values():
            assert process.stdin is not None
            process.stdin.close()
            process.wait()
    return slices


def _engine_process(script: str, kind: str) -> subprocess.Popen[str]:
    """``script --engine kind``, run with that engine on the path, talking through pipes."""
    return subprocess.Popen(
        [sys.executable, script, "--engine", kind],
        env=engine_environment(kind),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def engine_environment(kind: str) -> dict[str, str]:
    """The environment of a process on ``kind``: the path set so, and for the pure engine
    ``TAPISVERT_ENGINE=pure``, which keeps a command (``tapisvert serve``) from starting again
    on the compiled one."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(_engine_path(kind))}
    environment.pop(ENGINE_VARIABLE, None)
    return {**environment, ENGINE_VARIABLE: "pure"} if kind == "pure" else environment


def _engine_path(kind: str) -> list[str]:
    """``PYTHONPATH`` for ``kind``: the compiled build first, or left out."""
    others = [
        entry
        for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if entry and Path(entry).resolve() != COMPILED_BUILD
    ]
    return [str(COMPILED_BUILD), *others] if kind == "compiled" else others
