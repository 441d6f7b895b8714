"""In the browser: the list of tournaments and the form that makes one; a tournament's page
with its registration, its rounds' tables to watch, the standings and the winner."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page

from tapisvert.client import Client
from web_support import (
    browser,
    needs_chromium,
    no_horizontal_overflow,
    page,
    phone,
    register,
    screenshot,
    serious_violations,
    sign_in,
)

from server_support import Server, admin_command, link, serving

__all__ = ["browser", "page", "phone"]  # fixtures
pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {"bot-delay": 0.0, "rate": 1000.0}
    with serving(tmp_path_factory.mktemp("tournaments_web"), **settings) as running:
        yield running


def test_a_person_makes_a_tournament_registers_and_follows_it(server: Server, page: Page) -> None:
    register(page, server, "organiser")
    page.click("#tournaments-link")
    page.wait_for_selector("#new-tournament")
    page.fill("#tournament-name", "Winter Swiss")
    page.select_option("#tournament-game", "wizard")
    page.fill("#tournament-size", "3")
    page.fill("#tournament-rounds", "2")
    start = time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() + 3600))
    page.fill("#tournament-start", start)
    assert serious_violations(page) == []
    page.click("#make-tournament")
    page.wait_for_selector("#tournament-heading")
    assert page.inner_text("#tournament-heading") == "Winter Swiss"
    assert "registration open" in page.inner_text("#tournament-state")
    page.click("#register-tournament")
    page.wait_for_selector("#withdraw")
    assert "organiser" in page.inner_text("#tournament-players")
    screenshot(page, "tournament-registering")
    page.click("#withdraw")
    page.wait_for_selector("#register-tournament")
    page.click("#back")
    page.wait_for_selector("#tournament-list")
    assert "Winter Swiss" in page.inner_text("#tournament-list")
    screenshot(page, "tournaments")
    page.click("#back")  # the lobby lists it too
    page.wait_for_selector("#upcoming-tournaments >> text=Winter Swiss")


def test_a_finished_tournament_shows_its_tables_standings_and_winner(
    server: Server, page: Page, phone: Page
) -> None:
    names = [f"cup{number}" for number in range(6)]
    tokens = [server.register(name) for name in names]
    body = {
        "name": "Sunday cup",
        "game": "wizard",
        "table_size": 3,
        "rounds": 2,
        "options": {"rounds": "1"},
        "starts_at": time.time() + 4,
    }
    made = server.call(tokens[0], "POST", "/api/tournaments", **body)
    made.raise_for_status()
    number = made.json()["tournament"]
    for token in tokens:
        server.call(token, "POST", f"/api/tournaments/{number}/register").raise_for_status()

    def play_all() -> None:
        async def run() -> None:
            clients = [
                Client(server.url, token, "easy", games=2, seed=index)
                for index, token in enumerate(tokens)
            ]
            await asyncio.wait_for(asyncio.gather(*(client.run() for client in clients)), 240)

        asyncio.run(run())

    players = threading.Thread(target=play_all, daemon=True)
    players.start()
    players.join(260)
    register(page, server, "spectator")
    page.goto(f"{server.url}/#tournament={number}")
    page.wait_for_selector("#tournament-winner", timeout=30_000)
    assert page.locator("#standings tbody tr").count() == 6
    assert page.locator(".tournament-round").count() == 2
    assert page.locator(".round-tables li a.button").count() == 4
    winner = page.inner_text("#tournament-winner")
    first = page.inner_text("#standings tbody tr >> nth=0")
    assert winner.split()[-1] in first
    page.click("#tournament-winner a.player")  # the winner's profile says so
    page.wait_for_selector("#tournaments-won")
    assert "Sunday cup (Wizard)" in page.inner_text("#tournaments-won")
    page.go_back()
    page.wait_for_selector("#standings")
    assert serious_violations(page) == []
    screenshot(page, "tournament", full_page=True)
    phone.goto(server.url)
    register(phone, server, "pocket")
    phone.goto(f"{server.url}/#tournament={number}")
    phone.wait_for_selector("#standings")
    assert no_horizontal_overflow(phone) == 0
    screenshot(phone, "tournament-phone")


def test_the_tournament_chat_and_a_moderator_cancelling_the_tournament(
    server: Server, page: Page, phone: Page
) -> None:
    """The chat on the tournament's page: a line said elsewhere comes in live, one typed
    here too; a guest on a phone reads it and is told they may not write; a moderator
    cancels the tournament with a reason, which the page and its chat then show."""
    planner = server.register("planner")
    fan = server.register("fan")
    body = {"name": "Spring open", "game": "luz", "table_size": 4, "starts_at": time.time() + 3600}
    made = server.call(planner, "POST", "/api/tournaments", **body)
    made.raise_for_status()
    number = made.json()["tournament"]
    register(page, server, "chairman")
    granted = admin_command(server, "grant", "chairman", "moderator", "tournaments")
    assert granted.returncode == 0, granted.stderr
    page.goto(f"{server.url}/#tournament={number}")
    page.reload()  # the roles are read as the page connects
    page.wait_for_selector("#tournament-chat")
    said = server.call(
        fan, "POST", "/api/chat", room=f"tournament-{number}", text="Who plays on Sunday?"
    )
    assert said.status_code == 200, said.text
    log = page.locator(".chat .log")
    log.locator("text=Who plays on Sunday?").wait_for()
    page.fill("#tournament-chat", "I do, good luck!")
    page.press("#tournament-chat", "Enter")
    log.locator("text=I do, good luck!").wait_for()
    assert "fan:" in log.inner_text() and "chairman:" in log.inner_text()
    assert serious_violations(page) == []
    screenshot(page, "tournament-chat", full_page=True)

    sign_in(phone, server, "reader")
    phone.goto(f"{server.url}/#tournament={number}")
    phone.locator(".chat .log >> text=I do, good luck!").wait_for()
    assert phone.locator("#tournament-chat").count() == 0  # a guest reads, and may not write
    assert "Register an account to write here" in phone.inner_text(".chat")
    assert phone.locator("#cancel-tournament").count() == 0  # nor cancel
    assert no_horizontal_overflow(phone) == 0
    screenshot(phone, "tournament-chat-phone", full_page=True)

    page.click("#cancel-tournament")
    assert page.is_disabled("#cancel-confirm")  # not without a reason
    page.click("#cancel-keep")  # thought better of it
    page.click("#cancel-tournament")
    page.fill("#cancel-reason", "the club is closed on Sunday")
    screenshot(page, "tournament-cancelling")
    page.fill("#cancel-reason", "the club is closed on Sunday")
    page.click("#cancel-confirm")
    page.wait_for_selector("#tournament-cancelled")
    assert page.inner_text("#tournament-cancelled") == (
        "Cancelled by a moderator (chairman): the club is closed on Sunday"
    )
    assert "cancelled" in page.inner_text("#tournament-state")
    assert page.locator("#cancel-tournament, #register-tournament").count() == 0
    log.locator("text=a moderator cancelled tournament").wait_for()
    phone.locator(".chat .log >> text=a moderator cancelled tournament").wait_for()
    assert serious_violations(page) == []
    screenshot(page, "tournament-cancelled", full_page=True)
    page.click("#language")  # in French, the notice too comes again from the server
    page.wait_for_selector("#tournament-cancelled >> text=Annulé par un modérateur (chairman)")
    assert "Salon du tournoi" in page.inner_text(".chat")
    log.locator("text=un modérateur a annulé le tournoi").wait_for()


def test_a_table_closed_by_a_moderator_is_marked_on_the_tournament_page(
    server: Server, page: Page
) -> None:
    """The players are connected and make no move; a moderator closes their table: the page
    says so in place of the link to watch it, and the next round begins."""
    names = [f"held{number}" for number in range(3)]
    tokens = [server.register(name) for name in names]
    referee = server.register("warden")
    granted = admin_command(server, "grant", "warden", "moderator", "tournaments")
    assert granted.returncode == 0, granted.stderr
    body = {
        "name": "Closed cup",
        "game": "wizard",
        "table_size": 3,
        "rounds": 2,
        "options": {"rounds": "1"},
        "starts_at": time.time() + 4,
    }
    made = server.call(tokens[0], "POST", "/api/tournaments", **body)
    made.raise_for_status()
    number = made.json()["tournament"]
    for token in tokens:
        server.call(token, "POST", f"/api/tournaments/{number}/register").raise_for_status()
    release = threading.Event()

    def connected() -> None:
        async def hold() -> None:
            async with contextlib.AsyncExitStack() as stack:
                for token in tokens:
                    await stack.enter_async_context(link(server, token))
                await asyncio.to_thread(release.wait, 120)

        asyncio.run(hold())

    holding = threading.Thread(target=connected, daemon=True)
    holding.start()
    try:
        deadline = time.monotonic() + 60
        while (
            not (
                tables := server.http.get(f"{server.url}/api/tournaments/{number}").json()["tables"]
            )
            or tables[0]["table"] < 0
        ):
            assert time.monotonic() < deadline, "the first round did not open"
            time.sleep(0.2)
        closed = server.call(
            referee, "POST", "/api/moderation", action="close", table=tables[0]["table"]
        )
        assert closed.status_code == 204, closed.text
        register(page, server, "onlooker")
        page.goto(f"{server.url}/#tournament={number}")
        page.wait_for_selector(".tournament-round[data-round='2']", timeout=30_000)
        first = page.locator(".tournament-round[data-round='1'] li")
        assert "closed by a moderator: no points for this table" in first.inner_text()
        assert first.locator("a.button").count() == 0
        assert page.locator(".tournament-round[data-round='2'] li a.button").count() == 1
        assert serious_violations(page) == []
        screenshot(page, "tournament-closed-table")
    finally:
        release.set()
        holding.join(30)
