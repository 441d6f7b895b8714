"""The benchmark scripts keep running: a short run of each, its figures printed (not judged)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def test_engine_speed_runs_and_prints_its_figures() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "engine_speed.py"), "--seconds", "0.3"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "12-trick hands/s" in result.stdout
    assert "clones/s" in result.stdout
    assert "Wizard games/s" in result.stdout
    assert "Luz games/s" in result.stdout
    assert "Fzzzt! games/s" in result.stdout
    assert "Abluxxen games/s" in result.stdout


def test_bot_strength_runs_and_prints_its_figures() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "bot_strength.py"),
            "--deals",
            "1",
            "--full-games",
            "0",
            "--games",
            "abluxxen",
            "--seconds",
            "0.5",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        env={**os.environ, "TAPISVERT_SEARCH_SCALE": "0.05"},
    )
    assert "it/s" in result.stdout
    assert "abluxxen: hard,easy,easy,easy" in result.stdout
    assert "margin/game" in result.stdout


def test_server_load_runs_and_checks_persistence() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "server_load.py"),
            "--tables",
            "3",
            "--seconds",
            "2",
            "--warmup",
            "1",
            "--think",
            "0.02",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    header, row = result.stdout.strip().splitlines()[-2:]
    assert "moves/s" in header and "p99 ms" in header
    assert row.split()[0] == "3" and row.split()[-1] == "all"
    assert float(row.split()[2]) > 0
