"""In the browser: a person makes a bot account and its token on their profile, invites the
bot (its program connected with that token) to their table, plays against it, and finds it
marked with its owner at the table, on its profile and on the bots' leaderboard."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from tapisvert.client import Played, play
from web_support import (
    browser,
    create_table,
    needs_chromium,
    no_horizontal_overflow,
    page,
    phone,
    play_to_the_end,
    register,
    screenshot,
    serious_violations,
)

from server_support import Server, serving

__all__ = ["browser", "page", "phone"]  # fixtures
pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {"bot-delay": 0.05, "leaderboard-min-games": 1}
    with serving(tmp_path_factory.mktemp("own_bots_web"), **settings) as running:
        yield running


def make_bot_and_token(page: Page, server: Server, owner: str, bot: str) -> str:
    """On one's own profile: a new bot account, then its token, read from the page."""
    page.goto(f"{server.url}/#player={owner}")
    page.wait_for_selector("#own-bots")
    page.fill("#new-bot-name", bot)
    page.click("#make-bot")
    page.wait_for_selector(f"[data-bot='{bot}']")
    page.click(f"[data-bot='{bot}'] .new-token")
    page.wait_for_selector("#bot-token input")
    token = page.input_value("#bot-token input")
    assert token and bot in page.inner_text("#bot-token")
    return token


def test_a_person_makes_a_bot_invites_it_and_plays_against_it(server: Server, page: Page) -> None:
    register(page, server, "web-owner")
    token = make_bot_and_token(page, server, "web-owner", "webbot")
    assert serious_violations(page) == []
    screenshot(page, "own-bots")
    played: list[Played] = []
    program = threading.Thread(
        target=lambda: played.append(play(server.url, token, "random", games=1)), daemon=True
    )
    program.start()
    page.goto(server.url)
    page.wait_for_selector("#create")
    create_table(page, "wizard", 3, {"rounds": "1"})
    page.wait_for_function(  # its program has connected: the profile says so
        "fetch('/api/players/webbot').then(r => r.json()).then(p => p.online)", polling=200
    )
    page.fill("#invite-bot-name", "webbot")
    page.click("#invite-bot-button")
    page.wait_for_selector(".seat-list >> text=bot of web-owner")
    # invited: the field is free again once the answer comes, which may follow the table's news
    page.wait_for_function("document.querySelector('#invite-bot-name').value === ''")
    page.click("#add-bot")
    page.wait_for_function("document.querySelectorAll('.seat-list .chip').length >= 2")
    page.click("#start")
    page.wait_for_selector("#board")
    plate = page.locator(".seat[data-seat='1']")
    assert "webbot" in plate.inner_text() and "bot of web-owner" in plate.inner_text()
    screenshot(page, "table-bot-account")
    play_to_the_end(page, random.Random(4))
    program.join(60)
    assert played and played[0].moves > 0

    page.goto(f"{server.url}/#leaderboard=wizard")
    page.wait_for_selector("#leaderboard tbody")
    assert "web-owner" in page.inner_text("#leaderboard tbody")  # everyone, to begin with
    page.click("#who-bots")
    page.wait_for_function(  # the bots' own leaderboard, once it has come
        "!document.querySelector('#leaderboard tbody').innerText.includes('web-owner')"
    )
    names = page.locator("#leaderboard tbody th").all_inner_texts()
    assert any("webbot" in name for name in names)
    screenshot(page, "leaderboard-bots")
    page.goto(f"{server.url}/#player=webbot")
    page.wait_for_selector("#bot-owner")
    assert page.inner_text("#bot-owner") == "bot of web-owner"
    assert page.locator("#own-bots").count() == 0  # only on one's own profile


def test_the_bots_of_ones_profile_fit_a_phone(server: Server, phone: Page) -> None:
    register(phone, server, "phone-owner")
    make_bot_and_token(phone, server, "phone-owner", "pocketbot")
    assert no_horizontal_overflow(phone) == 0
    phone.select_option("[data-bot='pocketbot'] .bot-invites", "friends")
    phone.wait_for_function(
        "fetch('/api/bots', {headers: {Authorization: 'Bearer ' + localStorage.getItem('token')}})"
        ".then(r => r.json()).then(bots => bots[0].invites === 'friends')",
        polling=200,
    )
    phone.click("[data-bot='pocketbot'] .revoke-token")
    phone.wait_for_selector("text=The tokens of pocketbot are revoked")
    screenshot(phone, "own-bots-phone")
