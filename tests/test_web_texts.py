"""Every text the web app names literally is in both catalogues (the browser tests catch the
keys it builds at run time, such as a bot level's)."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest

from tapisvert.core.registry import game_names, plugin
from tapisvert.i18n import LANGUAGES, catalogue

WEB = Path(__file__).resolve().parent.parent / "src" / "tapisvert" / "web"
LITERAL = re.compile(r"""\b(t|tn)\(\s*["']([a-z_][a-z0-9_.]*)["']""")


def scripts() -> list[str]:
    """The app's own scripts and every game's board."""
    texts = [script.read_text() for script in WEB.rglob("*.js") if "vendor" not in script.parts]
    for name in game_names():
        board = files(plugin(name).web_board).joinpath(f"{name}.js")
        texts.append(board.read_text("utf-8"))
    return texts


def literal_keys() -> set[tuple[str, str]]:
    found = set()
    for script in scripts():
        for function, key in LITERAL.findall(script):
            found.add((function, key))
    return found


def test_the_scan_finds_the_apps_texts() -> None:
    keys = {key for _, key in literal_keys()}
    assert {"web.your_turn", "web.replay", "wizard.board.log_play"} <= keys


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_literal_text_is_in_the_catalogue(language: str) -> None:
    texts = catalogue(language)
    missing = []
    for function, key in sorted(literal_keys()):
        if function == "t":
            present = key in texts
        else:
            present = f"{key}.one" in texts and f"{key}.other" in texts
        if not present:
            missing.append(key)
    assert not missing, missing


def decisions(name: str) -> set[str]:
    """The kinds of decision a game's board answers in its ``decision`` (what the hints explain)."""
    board = files(plugin(name).web_board).joinpath(f"{name}.js").read_text("utf-8")
    body = re.search(r"\nfunction decision\(.*?\n}\n", board, re.DOTALL)
    assert body, f"{name}'s board has no decision()"
    return set(re.findall(r"""return ["'](\w+)["']""", body[0]))


@pytest.mark.parametrize("name", game_names())
def test_every_game_has_its_card_and_a_hint_for_each_decision(name: str) -> None:
    kinds = decisions(name)
    assert len(kinds) >= 2, kinds
    needed = {f"{name}.guide.{part}" for part in ("goal", "turn_heading", "wins")}
    needed |= {f"{name}.guide.step{number}" for number in range(1, 5)}  # four points at least
    needed |= {f"{name}.guide.hint.{kind}.{part}" for kind in kinds for part in ("title", "text")}
    for language in LANGUAGES:
        assert needed <= catalogue(language).keys(), (language, needed - catalogue(language).keys())
