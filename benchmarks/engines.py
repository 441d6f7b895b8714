"""Our two engines side by side: the pure-Python sources and the compiled build.

``scripts/compile`` builds the compiled engine into ``build/compiled`` (mypyc), which is in use
where it comes first on ``PYTHONPATH``. A benchmark measures each engine in a process of its
own: it runs itself again with ``--engine pure`` or ``--engine compiled`` (the path set so),
and that process, having checked which engine it imported, prints its figures as JSON.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "src"
COMPILED_BUILD = ROOT / "build" / "compiled"
KINDS = ("pure", "compiled")


def engine() -> str:
    """``compiled`` where the game contract was imported from mypyc's extension modules, else
    ``pure``."""
    source = importlib.import_module("tapisvert.core.game").__file__ or ""
    return "pure" if source.endswith(".py") else "compiled"


def check_engine(kind: str) -> None:
    """Stop unless this process runs the engine it was asked to measure."""
    if engine() != kind:
        raise SystemExit(f"this process imports the {engine()} engine, not the {kind} one")


def compiled_build_state() -> str | None:
    """Why the compiled engine cannot be measured, or ``None`` when its build is up to date
    (``scripts/compile`` leaves a ``.built`` stamp once it has built every module)."""
    stamp = COMPILED_BUILD / ".built"
    if not stamp.exists():
        return "not built (scripts/setup --compiled)"
    built = stamp.stat().st_mtime
    for module in (COMPILED_BUILD / "tapisvert").rglob("*.so"):
        folder = SOURCES / module.relative_to(COMPILED_BUILD).parent
        source = folder / f"{module.name.split('.')[0]}.py"
        if source.stat().st_mtime > built:
            return f"older than {source.name} (scripts/compile)"
    return None


def engines_to_measure() -> tuple[list[str], str | None]:
    """The engines there are to measure, and why the compiled one is not among them."""
    missing = compiled_build_state()
    return (["pure"] if missing is not None else list(KINDS)), missing


def run_engine(script: str, kind: str, *arguments: str) -> Any:
    """What ``script --engine kind`` prints as JSON, run with that engine on the path."""
    others = [
        entry
        for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
        if entry and Path(entry).resolve() != COMPILED_BUILD
    ]
    path = [str(COMPILED_BUILD), *others] if kind == "compiled" else others
    printed = subprocess.run(
        [sys.executable, script, *arguments, "--engine", kind],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(path)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(printed)
