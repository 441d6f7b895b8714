"""In the browser: a table played over days made from the form, the lobby's list of the games
over days that wait for the person ("Your turn", with the time left) and of those that wait
for others, the word at the top of the page when a move makes it their turn, and the table's
clock in days."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from web_support import (
    browser,
    needs_chromium,
    no_horizontal_overflow,
    page,
    phone,
    register,
    screenshot,
    serious_violations,
)

from server_support import Server, serving

__all__ = ["browser", "page", "phone"]  # fixtures
pytestmark = needs_chromium

DAY = 86400


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {"bot-delay": 0.0, "rate": 1000.0, "asleep-after": 0.5}
    with serving(tmp_path_factory.mktemp("days_web"), **settings) as running:
        yield running


def sign_in_token(server: Server, name: str) -> str:
    response = server.http.post(
        f"{server.url}/api/login", json={"name": name, "password": "secret-enough"}
    )
    response.raise_for_status()
    return str(response.json()["token"])


def table_of(server: Server, host: str, guest: str, clock: float) -> int:
    """A one-round Wizard table over days: ``host`` in seat 1, ``guest`` in seat 2, a bot."""
    created = server.call(
        host, "POST", "/api/tables", game="wizard", players=3, options={"rounds": "1"}, clock=clock
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    server.call(guest, "POST", f"/api/tables/{table}/join", seat=1).raise_for_status()
    server.call(host, "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    server.call(host, "POST", f"/api/tables/{table}/start").raise_for_status()
    return table


def play_until_waiting_for(server: Server, table: int, tokens: dict[int, str], seat: int) -> None:
    """The people of ``tokens`` (by seat) play their first legal moves until ``seat`` is to act."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = server.call(tokens[0], "GET", f"/api/tables/{table}/view").json()
        if view["to_act"] == seat:
            return
        mover = tokens.get(view["to_act"])
        if mover is not None and view["to_act"] != seat:
            own = server.call(mover, "GET", f"/api/tables/{table}/view").json()
            if own["legal"]:
                server.call(
                    mover,
                    "POST",
                    f"/api/tables/{table}/actions",
                    seq=own["seq"],
                    action=own["legal"][0],
                )
        time.sleep(0.05)
    raise AssertionError(f"seat {seat} never came to act at table {table}")


def test_the_lobby_lists_the_games_over_days_and_says_when_it_is_ones_turn(
    server: Server, page: Page, phone: Page
) -> None:
    register(page, server, "hazel")
    hazel = sign_in_token(server, "hazel")
    ivo = server.register("ivo")
    waiting_for_hazel = table_of(server, ivo, hazel, DAY)
    play_until_waiting_for(server, waiting_for_hazel, {0: ivo, 1: hazel}, 1)
    waiting_for_ivo = table_of(server, ivo, hazel, 3 * DAY)
    play_until_waiting_for(server, waiting_for_ivo, {0: ivo, 1: hazel}, 0)
    page.reload()
    page.wait_for_selector("#games-over-days")
    listed = page.inner_text("#games-over-days")
    assert "Your turn in games over days" in listed
    assert f"Table {waiting_for_hazel}" in listed and "23 h 59 min left" in listed
    assert "1 game waiting for others" in listed
    page.click("#waiting-over-days summary")
    assert "Waiting for ivo" in page.inner_text("#waiting-over-days")
    assert serious_violations(page) == []
    screenshot(page, "your-turn")
    # ivo plays at the other table: hazel, in the lobby, is told at once and the list grows
    play_until_waiting_for(server, waiting_for_ivo, {0: ivo, 1: hazel}, 1)
    page.wait_for_selector(f"#notice >> text=Your turn at table {waiting_for_ivo}")
    page.wait_for_function(
        "document.querySelectorAll('#games-over-days li.waiting-for-me').length === 2"
    )
    screenshot(page, "your-turn-told")
    # the table says its clock in days and what happens when it runs out
    page.click(f"#games-over-days a[href='#table={waiting_for_ivo}']")
    page.wait_for_selector("#board")
    assert page.inner_text("#table-clock") == "3 days a move, over days"
    assert page.inner_text("#table-timeout") == "late: a bot plays the move"
    page.wait_for_selector(".clock >> text=2 days 23 h left")
    screenshot(page, "table-over-days")
    # on a phone
    phone.goto(server.url)
    phone.fill("#name", "hazel")
    phone.fill("#password", "secret-enough")
    phone.click("#login")
    phone.wait_for_selector("#games-over-days")
    assert no_horizontal_overflow(phone) == 0
    screenshot(phone, "your-turn-phone")


def test_the_form_offers_clocks_over_days_and_the_rule_for_a_late_player(
    server: Server, page: Page
) -> None:
    register(page, server, "jade")
    assert page.locator("#new-timeout").count() == 0
    page.select_option("#new-clock", str(DAY))
    page.wait_for_selector("#new-timeout")
    assert "Played over days" in page.inner_text("#over-days-hint")
    page.select_option("#new-timeout", "lose")
    page.select_option("#new-game", "wizard")
    page.select_option("#new-players", "3")
    screenshot(page, "new-table-over-days")
    page.click("#create")
    page.wait_for_selector("#add-bot")
    assert page.inner_text("#table-clock") == "1 day a move, over days"
    assert page.inner_text("#table-timeout") == "late: the game is lost"
