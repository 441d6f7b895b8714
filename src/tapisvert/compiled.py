"""The compiled engine: mypyc's build of the engine's hot modules, used where it is up to date.

``scripts/compile`` (or ``scripts/setup --compiled``) leaves in a clone's ``build/compiled`` a
tree of links to the sources with the compiled modules beside them, and a ``.built`` stamp
once every module is built; ``PYTHONPATH=build/compiled`` runs it. The commands that run the
engine for long (``serve``, ``bot-worker``, ``arena``), run as a process, start again on it by
themselves (:func:`run_on_compiled_engine`, from ``cli.entry``), but only on a build newer
than every source it compiled: a stale build would run yesterday's rules. ``TAPISVERT_ENGINE=pure``
keeps them on the pure-Python sources (to measure one engine beside the other).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

SOURCES = Path(__file__).resolve().parent
"""The package's own folder (``src/tapisvert`` in a clone)."""
BUILD = SOURCES.parent.parent / "build" / "compiled"
"""Where ``scripts/compile`` builds, in a clone."""
ENGINE_VARIABLE = "TAPISVERT_ENGINE"
"""Set to ``pure``, the commands do not start again on the compiled engine."""


def pure_asked() -> bool:
    """Whether the environment asks this command to stay on the pure-Python engine."""
    return os.environ.get(ENGINE_VARIABLE) == "pure"


def engine_in_use() -> str:
    """``compiled`` where the game contract comes from mypyc's extension modules (a build on
    the path, or compiled modules installed), else ``pure``."""
    source = importlib.import_module("tapisvert.core.game").__file__ or ""
    return "pure" if source.endswith(".py") else "compiled"


def build_state() -> str | None:
    """Why the clone's compiled build cannot be used, or ``None`` when it is up to date."""
    if not (BUILD / ".built").exists():
        return "not built (scripts/setup --compiled)"
    newer = newer_source()
    return None if newer is None else f"older than {newer} (scripts/compile)"


def newer_source() -> str | None:
    """A source changed since the build compiled it (``tapisvert/games/…/rules.py``), or added
    since the build linked the sources (it would be missing there), if any."""
    built = (BUILD / ".built").stat().st_mtime
    for source in SOURCES.rglob("*.py"):
        if not (BUILD / "tapisvert" / source.relative_to(SOURCES)).exists():
            return str(source.relative_to(SOURCES.parent))
    for module in (BUILD / "tapisvert").rglob("*.so"):
        folder = SOURCES / module.relative_to(BUILD / "tapisvert").parent
        source = folder / f"{module.name.split('.')[0]}.py"
        if not source.exists() or source.stat().st_mtime > built:
            return str(source.relative_to(SOURCES.parent))
    return None


def run_on_compiled_engine() -> None:
    """Start this command again on the compiled engine, with the same arguments, where this
    process runs the pure one and an up-to-date build is there; else go on as it is. A process
    that has the build on its path already goes on whatever it imported (no second start), and
    one told ``TAPISVERT_ENGINE=pure`` stays pure."""
    path = os.environ.get("PYTHONPATH", "")
    if engine_in_use() == "compiled" or str(BUILD) in path.split(os.pathsep) or pure_asked():
        return
    if build_state() is not None:
        return
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(BUILD), path]))}
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "tapisvert", *sys.argv[1:]], environment)


def engine_words() -> tuple[str, dict[str, str]]:
    """The catalogue key and arguments that say which engine this process runs, and why."""
    if engine_in_use() == "compiled":
        return "cli.engine_compiled", {}
    if pure_asked():
        return "cli.engine_pure_asked", {"variable": ENGINE_VARIABLE}
    if not (BUILD / ".built").exists():
        return "cli.engine_not_built", {}
    newer = newer_source()
    if newer is not None:
        return "cli.engine_stale", {"source": newer}
    if str(BUILD) in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        return "cli.engine_not_loaded", {}
    return "cli.engine_not_started", {}
