"""The sources of an earlier git revision beside this one's, for a benchmark that measures
both side by side (each in processes of its own, importing ``tapisvert`` from its sources)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "src"
"""This checkout's sources."""


@contextmanager
def earlier_sources(revision: str) -> Iterator[Path]:
    """The ``src`` folder of ``revision``, checked out in a temporary worktree for as long
    as the context lasts."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "before"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), revision],
            check=True,
        )
        try:
            yield tree / "src"
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=True
            )


def measured_from(sources: Path, script: str, *arguments: str) -> str:
    """What ``script`` run with ``arguments`` prints, in a process of its own importing
    ``tapisvert`` from ``sources`` (this checkout's or an earlier revision's)."""
    environment = {**os.environ, "PYTHONPATH": str(sources)}
    command = [sys.executable, script, *arguments]
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} from {sources} failed:\n{done.stderr[-3000:]}")
    return done.stdout
