"""A fifth game, installed beside tapisvert, is found through its entry point alone and played
through the library, the command line, the server and the browser, with nothing in tapisvert
changed for it.

``tests/plugins`` holds the game's package and its metadata as pip installs them
(``duel_game`` and ``duel_game-1.0.dist-info``); putting that folder on ``PYTHONPATH``
installs the game for the processes started here. This test process itself never sees it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tapisvert.core.registry import game_names
from web_support import browser, needs_chromium, page, play_to_the_end, sign_in, start_table

from server_support import Server, serving

__all__ = ["browser", "page"]

PLUGINS = Path(__file__).resolve().parent / "plugins"


@pytest.fixture(scope="module")
def installed() -> Iterator[dict[str, str]]:
    """The environment of a process that has the duel installed; this one's too while the
    module's server starts."""
    path = os.pathsep.join(filter(None, [str(PLUGINS), os.environ.get("PYTHONPATH")]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", path)
        yield dict(os.environ)


@pytest.fixture(scope="module")
def server(installed: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("plugin"), **{"bot-delay": 0.05}) as running:
        yield running


def run(environment: dict[str, str], *arguments: str, given: str = "") -> str:
    done = subprocess.run(
        [sys.executable, *arguments],
        input=given,
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_this_process_does_not_have_the_duel() -> None:
    import tapisvert

    assert "duel" not in tapisvert.game_names()


def test_the_library_finds_checks_and_plays_it(installed: dict[str, str]) -> None:
    script = """
import json, tapisvert
from tapisvert.bots import make_bot
from tapisvert.bots.match import play_match
from tapisvert.testing import check_game, check_plugin
game = tapisvert.load_game("duel")
check_game(game, games=6)
check_plugin("duel", games=2)
final = play_match(game, [make_bot("hard", game), make_bot("easy", game)], 7)
print(json.dumps({"games": tapisvert.game_names(), "points": final.returns()}))
"""
    printed = json.loads(run(installed, "-c", script))
    assert printed["games"] == sorted([*game_names(), "duel"])
    assert sum(printed["points"]) == 4  # four tricks, a point each


def test_the_command_line_lists_simulates_and_plays_it(installed: dict[str, str]) -> None:
    assert "duel" in run(installed, "-m", "tapisvert", "games").split()
    checked = run(installed, "-m", "tapisvert", "check", "duel", "--games", "2", "--lang", "en")
    assert "Every check passed." in checked and "web_board" in checked
    report = json.loads(
        run(installed, "-m", "tapisvert", "simulate", "duel", "--games", "6", "--bots",
            "easy,random", "--json")
    )  # fmt: skip
    assert report
    shown = run(
        installed, "-m", "tapisvert", "play", "duel", "--players", "2", "--bots", "easy",
        "--seed", "3", "--lang", "fr", given="1\n" * 8,
    )  # fmt: skip
    assert "votre main" in shown  # the game's own terminal view, in its own French


def test_the_server_offers_it(server: Server) -> None:
    games = [spec["name"] for spec in httpx.get(f"{server.url}/api/games").json()]
    assert "duel" in games
    assert "duel" in [room["room"] for room in httpx.get(f"{server.url}/api/rooms").json()]
    rules = httpx.get(f"{server.url}/api/rules/duel", params={"language": "fr"}).json()
    assert "Deux joueurs" in rules["html"]
    board = httpx.get(f"{server.url}/games/duel.js")
    assert board.status_code == 200 and board.headers["content-type"].startswith("text/javascript")
    assert "export default" in board.text
    assert httpx.get(f"{server.url}/games/nothing.js").status_code == 404
    assert (
        httpx.get(f"{server.url}/api/catalogue/fr").json()["duel.board.prompt"] == "Jouez une carte"
    )


@needs_chromium
def test_a_person_plays_it_in_the_browser(server: Server, page: object) -> None:
    from playwright.sync_api import Page

    assert isinstance(page, Page)
    sign_in(page, server, "duellist")
    start_table(page, "duel", 2)
    page.wait_for_selector("#hand")
    assert play_to_the_end(page, random.Random(5)) == 4
    assert page.locator("#end").is_visible()
