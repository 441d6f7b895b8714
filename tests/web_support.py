"""The web app in Debian's chromium, driven by Playwright against the real server.

Fixtures and helpers shared by the browser tests: a test module imports the fixtures it uses
(``from web_support import browser, page, server``). A page fails its test on any script error
and on any text missing from the catalogues.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, sync_playwright

from tapisvert.core.registry import game_names

from server_support import Server, serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is missing: run scripts/setup --test"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Bots think 0.05 s: fast enough for whole games, slow enough to see each move."""
    with serving(tmp_path_factory.mktemp("web"), **{"bot-delay": 0.05}) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


def watched_page(
    browser: Browser, newcomer: bool = False, **context: object
) -> tuple[Page, list[str]]:
    """A new page whose script errors and missing catalogue texts are collected (a refused
    request, such as a wrong password, is the browser's own log line, not an error).

    Unless ``newcomer``, the browser has seen every game's "How to play" card and switched its
    hints off, so that a table opens as it does for someone who knows the games.

    The server's Content-Security-Policy is bypassed unless ``bypass_csp=False``: the tests'
    own predicates are evaluated from strings, which the policy forbids. The app itself is
    checked under the policy in ``tests/security/test_browser_policy.py``.
    """
    context.setdefault("bypass_csp", True)
    opened = browser.new_context(**context).new_page()  # type: ignore[arg-type]
    if not newcomer:
        known = json.dumps({"seen": True, "hints": False})
        opened.add_init_script(
            "".join(f"localStorage.setItem('guide.{name}', '{known}');" for name in game_names())
        )
    problems: list[str] = []
    opened.on("pageerror", lambda error: problems.append(f"{error}\n{error.stack}"))
    opened.on(
        "console",
        lambda message: (
            problems.append(message.text)
            if (message.type == "error" and not message.text.startswith("Failed to load resource"))
            or "missing catalogue key" in message.text
            else None
        ),
    )
    return opened, problems


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    opened, problems = watched_page(browser, viewport=DESKTOP)
    yield opened
    opened.context.close()
    assert not problems, sorted(set(problems))[:20]


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    opened, problems = watched_page(browser, viewport=PHONE, is_mobile=True, has_touch=True)
    yield opened
    opened.context.close()
    assert not problems, sorted(set(problems))[:20]


def sign_in(page: Page, server: Server, name: str) -> None:
    page.goto(server.url)
    page.fill("#name", name)
    page.click("#guest")
    page.wait_for_selector("#create")


def create_table(page: Page, game: str, players: int, options: dict[str, str] | None = None) -> int:
    """Fill the new-table form as a person does; answer the new table's number."""
    page.select_option("#new-game", game)
    page.select_option("#new-players", str(players))
    for name, value in (options or {}).items():
        control = page.locator(f"[data-option='{name}']")
        if control.get_attribute("type") == "checkbox":
            control.set_checked(value == "true")
        elif control.evaluate("element => element.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)
    page.click("#create")
    page.wait_for_selector("#add-bot")
    return int(page.evaluate("location.hash").split("=")[1])


def add_bots(page: Page, count: int) -> None:
    for number in range(count):
        page.click("#add-bot")
        page.wait_for_function(
            f"document.querySelectorAll('.seat-list .chip').length >= {number + 1}"
        )


def start_table(page: Page, game: str, players: int, options: dict[str, str] | None = None) -> int:
    """A new table with this person in seat 1 and bots in the others, started."""
    table = create_table(page, game, players, options)
    add_bots(page, players - 1)
    page.click("#start")
    page.wait_for_selector("#board")
    return table


def board_seq(page: Page) -> str | None:
    return page.get_attribute("#board", "data-seq")


def play_one_move(page: Page, rng: random.Random) -> bool:
    """Make one of this seat's moves through the page's own controls, as a person would:
    pick cards where a move is made of picked cards, choose a number, click a card or a
    button; wait until the table shows the next position. False when there was none to make."""
    picks = page.locator("#dock [data-pick]")
    if picks.count() and rng.random() < 0.6:
        picks.nth(rng.randrange(picks.count())).click()
        return False
    choices = page.locator("#dock .number-choice select")
    if choices.count():
        options = choices.first.locator("option").all_inner_texts()
        choices.first.select_option(label=rng.choice(options))
    moves = page.locator("#dock [data-action]:not([disabled])")
    count = moves.count()
    if not count:
        page.wait_for_timeout(30)
        return False
    seq = board_seq(page)
    moves.nth(rng.randrange(count)).click()
    page.wait_for_function(
        f"document.querySelector('#board')?.dataset.seq !== '{seq}'",
        timeout=15_000,
    )
    return True


def finished(page: Page) -> bool:
    return bool(page.locator("#end").count())


def play_to_the_end(page: Page, rng: random.Random, limit: int = 5_000) -> int:
    """Play this seat's moves until the end screen shows; answer how many were made."""
    moves = 0
    for _ in range(limit):
        if finished(page):
            return moves
        moves += play_one_move(page, rng)
    raise AssertionError(f"the game did not end after {moves} moves")


def open_replay_and_step(page: Page) -> None:
    """The replay opens from the end screen and steps forward, telling each move in words."""
    page.click("#replay")
    page.wait_for_selector("#replay-panel")
    first = page.inner_text("#replay-words")
    page.click("#replay-next")
    page.click("#replay-next")
    assert page.inner_text("#replay-words") != first


def no_horizontal_overflow(page: Page) -> int:
    """How many pixels the document is wider than the viewport (0 when it fits)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def register(page: Page, server: Server, name: str, password: str = "secret-enough") -> None:
    page.goto(server.url)
    page.fill("#name", name)
    page.fill("#password", password)
    page.click("#register")
    page.wait_for_selector("#create")


def screenshot(page: Page, name: str, full_page: bool = False) -> None:
    """A picture for the README, once the cards just dealt have faded in.

    Tests run in parallel: each picture has a name of its own, and is written under a name
    of this process's own, then renamed, so that a picture is never seen half written."""
    page.wait_for_timeout(400)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    picture = SCREENSHOTS / f"{name}.png"
    partial = picture.with_name(f".{name}.{os.getpid()}.png")
    page.screenshot(path=str(partial), full_page=full_page)
    partial.replace(picture)


def serious_violations(page: Page, also: tuple[str, ...] = ()) -> list[str]:
    """What axe finds serious or critical on the page at rest (cards fade in as they are
    dealt: the check waits for the fade, which a reader who asks for less motion never sees),
    and what breaks the rules named in ``also`` at any impact."""
    page.wait_for_timeout(400)
    results = Axe().run(page)
    return [
        f"{violation['id']}: {violation['help']}: "
        + "; ".join(node["html"][:120] for node in violation["nodes"][:4])
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical") or violation["id"] in also
    ]
