"""The engine runs compiled exactly where the compiled build is on the path.

``scripts/test`` runs the engine's tests on the pure-Python sources, then every test with
``build/compiled`` (``scripts/compile``, mypyc) first on the path; ``pytest`` alone runs them on
the sources. This test, either way, makes sure a run exercised the engine it meant to.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from tapisvert.compiled import ENGINE_VARIABLE, build_state, newer_source
from tapisvert.core.registry import plugins
from tapisvert.i18n import translate

from server_support import run_cli, serving

COMPILED_BUILD = Path(__file__).resolve().parent.parent / "build" / "compiled"
ENGINE_MODULES = (
    "tapisvert.core.game",
    "tapisvert.bots.search",
    *(module for plugin in plugins().values() for module in plugin.compiled),
    # scripts/compile adds the tensor encodings where numpy is installed, as it is for the tests
    "tapisvert.encoding",
    *(
        plugin.encoding.partition(":")[0]
        for plugin in plugins().values()
        if plugin.encoding is not None
    ),
)


def test_the_engine_is_compiled_where_the_build_is_on_the_path() -> None:
    build_on_path = any(Path(entry).resolve() == COMPILED_BUILD for entry in sys.path if entry)
    for name in ENGINE_MODULES:
        source = importlib.import_module(name).__file__
        assert source is not None
        assert source.endswith(".py") is not build_on_path, source


def expected_engine_words() -> str:
    """What a command that runs the engine for long should say of it, here and now."""
    build_on_path = any(Path(entry).resolve() == COMPILED_BUILD for entry in sys.path if entry)
    if build_on_path or build_state() is None:
        return translate("cli.engine_compiled", "en")
    if not (COMPILED_BUILD / ".built").exists():
        return translate("cli.engine_not_built", "en")
    return translate("cli.engine_stale", "en", source=str(newer_source()))


def test_serve_and_the_arena_run_the_compiled_engine_where_its_build_is_up_to_date(
    tmp_path: Path,
) -> None:
    """``scripts/test`` builds it first: there, the server's tests run on the compiled engine."""
    with serving(tmp_path, **{"log-format": "text"}):
        pass
    said = " ".join((tmp_path / "server.log").read_text().split())  # a console folds long lines
    assert expected_engine_words() in said
    arena = run_cli(
        *("arena", "wizard", "--bots", "random,random,random", "--games", "1"),
        *("--workers", "1", "--option", "rounds=1", "--json", "--plots", str(tmp_path)),
    )
    assert arena.returncode == 0, arena.stderr
    compiled = expected_engine_words() == translate("cli.engine_compiled", "en")
    assert json.loads(arena.stdout)["engine"] == ("compiled" if compiled else "pure")


def test_serve_and_the_arena_stay_pure_where_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``TAPISVERT_ENGINE=pure``: no start again on the compiled build, up to date or not."""
    monkeypatch.setenv(ENGINE_VARIABLE, "pure")
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the compiled run puts the build there
    with serving(tmp_path, **{"log-format": "text"}):
        pass
    said = " ".join((tmp_path / "server.log").read_text().split())
    assert translate("cli.engine_pure_asked", "en", variable=ENGINE_VARIABLE) in said
    arena = run_cli(
        *("arena", "wizard", "--bots", "random,random,random", "--games", "1"),
        *("--workers", "1", "--option", "rounds=1", "--json", "--plots", str(tmp_path)),
    )
    assert arena.returncode == 0, arena.stderr
    assert json.loads(arena.stdout)["engine"] == "pure"
