"""The web app in Debian's chromium, driven by Playwright against the real server.

A person plays whole games of the four games against bots through the page, two browsers
play each other, a reload restores the table, both languages render, chat stays text, and a
refusal shows its reason. Each game's table is saved as a screenshot for the README.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from server_support import Server, serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is missing: run scripts/setup --test"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("web")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    problems: list[str] = []
    opened.on("pageerror", lambda error: problems.append(str(error)))
    yield opened
    context.close()
    assert not problems, problems


def sign_in(page: Page, server: Server, name: str) -> None:
    page.goto(server.url)
    page.fill("#name", name)
    page.click("#guest")
    page.wait_for_selector("#create")


def create_table(page: Page, game: str, players: int, options: str = "") -> None:
    page.select_option("#new-game", game)
    page.fill("#new-players", str(players))
    page.fill("#new-options", options)
    page.click("#create")
    page.wait_for_selector("#add-bot")


def add_bots(page: Page, count: int) -> None:
    for number in range(count):
        page.click("#add-bot")
        page.wait_for_function(f"document.querySelectorAll('.seat .label').length >= {number + 1}")


def play_one_move(page: Page, rng: random.Random) -> bool:
    """Click one offered move and wait until the table shows the next position; where
    cards are picked before the move (a Fzzzt! bid), sometimes pick one instead."""
    picks = page.locator("[data-pick]")
    if picks.count() and rng.random() < 0.6:
        picks.nth(rng.randrange(picks.count())).click()
        return False
    moves = page.locator("[data-action]")
    count = moves.count()
    if not count:
        page.wait_for_timeout(30)
        return False
    seq = page.get_attribute("#board", "data-seq")
    moves.nth(rng.randrange(count)).click()
    page.wait_for_function(
        f"document.querySelector('#board')?.dataset.seq !== '{seq}'", timeout=15_000
    )
    return True


def finished(page: Page) -> bool:
    return bool(page.locator("#replay").count())


@pytest.mark.parametrize("game", ["wizard", "luz", "abluxxen", "fzzzt"])
def test_a_person_plays_a_whole_game_against_bots(server: Server, page: Page, game: str) -> None:
    players = 3
    sign_in(page, server, f"web-{game}")
    create_table(page, game, players)
    add_bots(page, players - 1)
    page.click("#start")
    page.wait_for_selector("#board")
    rng = random.Random(7)
    moves = 0
    for _ in range(20_000):
        if finished(page):
            break
        moves += play_one_move(page, rng)
        if moves == 6:
            page.wait_for_timeout(400)
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"{game}.png"), full_page=True)
    assert finished(page) and moves > 5
    assert "Winner" in page.inner_text("#status")
    page.click("#replay")
    page.wait_for_selector("#replay-panel")
    first = page.inner_text("#replay-panel")
    page.click("#replay-next")
    assert page.inner_text("#replay-panel") != first


def test_an_abluxxen_series_shows_which_game_is_on(server: Server, page: Page) -> None:
    sign_in(page, server, "web-series")
    create_table(page, "abluxxen", 3, "series=true")
    add_bots(page, 2)
    page.click("#start")
    page.wait_for_selector("#series")
    assert page.inner_text("#series") == "Game 1 of 3"


def test_a_fzzzt_bid_is_the_cards_picked_from_the_hand(server: Server, page: Page) -> None:
    sent: list[dict[str, object]] = []
    page.on(
        "websocket",
        lambda socket: socket.on("framesent", lambda payload: sent.append(json.loads(payload))),
    )
    sign_in(page, server, "web-picks")
    create_table(page, "fzzzt", 3)
    add_bots(page, 2)
    page.click("#start")
    page.wait_for_selector("#board")
    rng = random.Random(11)
    for _ in range(2_000):  # bots and this seat play until a bid is this seat's to make
        if page.locator("[data-pick]").count():
            break
        play_one_move(page, rng)
    picks = page.locator("[data-pick]")
    assert picks.count() >= 2
    assert page.is_disabled("#bid") and page.get_attribute("#bid", "data-action") is None
    assert not page.locator("[data-action^='bid ']").count()  # no list of every subset
    chosen = [picks.nth(index).get_attribute("data-pick") for index in (0, picks.count() - 1)]
    picks.nth(0).click()
    picks.nth(picks.count() - 1).click()
    page.fill("#table-chat", "thinking about my bid")  # a chat line redraws the table
    page.press("#table-chat", "Enter")
    page.wait_for_selector("text=thinking about my bid")
    assert page.get_attribute(f"[data-pick='{chosen[0]}']", "aria-pressed") == "true"
    assert page.get_attribute("#bid", "data-action") is not None
    seq = page.get_attribute("#board", "data-seq")
    page.click("#bid")
    page.wait_for_function(f"document.querySelector('#board')?.dataset.seq !== '{seq}'")
    bids = [str(frame["action"]) for frame in sent if frame.get("type") == "act"]
    assert sorted(bids[-1].split()[1:]) == sorted(chosen)


def test_two_browsers_play_each_other_and_a_reload_restores_the_table(
    server: Server, browser: Browser
) -> None:
    contexts = [browser.new_context() for _ in range(2)]
    first, second = (context.new_page() for context in contexts)
    try:
        sign_in(first, server, "duo-ana")
        create_table(first, "luz", 3)
        sign_in(second, server, "duo-bob")
        table = first.evaluate("location.hash")
        second.goto(f"{server.url}/{table}")
        second.click("text=Sit down")
        add_bots(first, 1)
        first.wait_for_function("document.querySelectorAll('.seat strong').length == 3")
        first.click("#start")
        first.wait_for_selector("#board")
        second.wait_for_selector("#board")
        rng = random.Random(3)
        moves = 0
        reloaded = False
        for _ in range(20_000):
            if finished(first) and finished(second):
                break
            for page in (first, second):
                if not finished(page):
                    moves += play_one_move(page, rng)
            if moves >= 10 and not reloaded:
                before = second.get_attribute("#board", "data-seq")
                second.reload()
                second.wait_for_selector("#board")
                assert second.get_attribute("#board", "data-seq") == before
                assert "duo-bob (you)" in second.inner_text(".seats")
                reloaded = True
        assert reloaded and finished(first) and finished(second)
        assert first.inner_text("#status") == second.inner_text("#status")
    finally:
        for context in contexts:
            context.close()


def test_french_and_english_pages_render(server: Server, page: Page) -> None:
    page.goto(server.url)
    page.wait_for_selector("#guest")
    assert page.inner_text("#guest") == "Play as a guest"
    page.click("#language")
    page.wait_for_selector("text=Jouer en invité")
    assert page.evaluate("document.documentElement.lang") == "fr"
    page.fill("#name", "lang-eve")
    page.click("#guest")
    page.wait_for_selector("text=Nouvelle table")
    page.click("#language")
    page.wait_for_selector("text=New table")


def test_names_and_chat_are_text_and_refusals_show_their_reason(server: Server, page: Page) -> None:
    sign_in(page, server, "chat-ana")
    hostile = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
    page.fill("#room-chat", hostile)
    page.press("#room-chat", "Enter")
    page.wait_for_selector("text=window.__xss = 1")
    assert page.evaluate("window.__xss") is None
    assert page.locator(".log img, .log script").count() == 0
    create_table(page, "wizard", 3)
    page.click("#start")
    page.wait_for_selector("#notice:not([hidden])")
    assert "every seat must be taken" in page.inner_text("#notice")


def test_an_account_signs_in_and_a_phone_sized_table_fits(server: Server, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(server.url)
        page.fill("#name", "phone-zoe")
        page.fill("#password", "zoe-secret")
        page.click("#register")
        page.wait_for_selector("#create")
        page.click("text=Sign out")
        page.fill("#name", "phone-zoe")
        page.fill("#password", "wrong-one")
        page.click("#login")
        page.wait_for_selector("#notice:not([hidden])")
        assert "wrong name or password" in page.inner_text("#notice")
        page.fill("#password", "zoe-secret")
        page.click("#login")
        page.wait_for_selector("#create")
        create_table(page, "wizard", 3)
        add_bots(page, 2)
        page.click("#start")
        page.wait_for_selector("[data-action]")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"the table is {overflow}px wider than a phone screen"
    finally:
        context.close()
