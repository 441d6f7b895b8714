"""The ``tapisvert`` process's entry point: it decides the engine before importing the command
line, so that a command started again on the compiled engine has imported little the first time."""

from __future__ import annotations

import sys

ON_THE_COMPILED_ENGINE = ("serve", "bot-worker", "arena", "connect")
"""The commands that run the engine for long: as a process, they start again on the compiled
engine where its build is up to date (see ``tapisvert.compiled``)."""


def main() -> None:
    """The ``tapisvert`` command, as a process of its own."""
    if sys.argv[1:2] and sys.argv[1] in ON_THE_COMPILED_ENGINE:
        from tapisvert.compiled import run_on_compiled_engine

        run_on_compiled_engine()
    from tapisvert.cli.main import app

    app()
