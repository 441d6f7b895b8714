"""The arena on Ray: the same games, the same report as the process pool for the same seed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tapisvert.bots.search import BUDGET_SCALE_VARIABLE
from tapisvert.cli.main import app

pytestmark = pytest.mark.slow

if importlib.util.find_spec("ray") is None:  # found, not imported: Ray takes seconds
    pytest.skip("Ray (the ray extra) is not installed", allow_module_level=True)

runner = CliRunner()
TIMES = ("mean_decision_seconds", "max_decision_seconds")


def arena_report(tmp_path: Path, *where: str) -> dict[str, Any]:
    arguments = [
        "arena",
        "wizard",
        "--bots",
        "easy,random,medium",
        "--games",
        "2",
        "--seed",
        "11",
        "--option",
        "rounds=1,3",
        "--plots",
        str(tmp_path),
        "--json",
        *where,
    ]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)  # Ray may warn on stderr
    for entry in report["entries"]:
        for key in TIMES:
            entry.pop(key)
    return report


def test_ray_tasks_give_the_report_of_the_process_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The medium bot's searches are cut small: at full size, on a busy machine, its cap of
    a second per decision, not its budget, would end some searches, and the runs differ."""
    monkeypatch.setenv(BUDGET_SCALE_VARIABLE, "0.1")
    pooled = arena_report(tmp_path, "--workers", "2")
    on_ray = arena_report(tmp_path, "--ray", "local")
    assert on_ray == pooled
    assert [entry["games"] for entry in on_ray["entries"]] == [6, 6, 6]
