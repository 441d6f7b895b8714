"""In the browser: the messages panel, friend requests, a message's notice and a profile's
ignore button, at desktop and phone sizes, checked with axe."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from web_support import (
    browser,
    create_table,
    needs_chromium,
    no_horizontal_overflow,
    page,
    phone,
    screenshot,
)

from server_support import Server, serving

__all__ = ["browser", "page", "phone"]  # fixtures
pytestmark = needs_chromium
PASSWORD = "secret-enough"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("messages")) as running:
        yield running


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{violation['id']}: {[node['html'][:150] for node in violation['nodes'][:3]]}"
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


def enter(page: Page, server: Server, name: str, button: str) -> None:
    page.goto(server.url)
    page.fill("#name", name)
    page.fill("#password", PASSWORD)
    page.click(button)
    page.wait_for_selector("#create")


def test_the_messages_panel_at_both_sizes(server: Server, page: Page, phone: Page) -> None:
    enter(page, server, "pm-ana", "#register")
    answer = server.http.post(
        f"{server.url}/api/register", json={"name": "pm-bob", "password": PASSWORD}
    )
    bob = answer.json()["token"]
    server.guest("pm-gus")
    server.call(bob, "POST", "/api/friends", name="pm-ana").raise_for_status()
    page.wait_for_selector("#notice >> text=pm-bob asks to be your friend")

    page.click("#messages-link")
    page.click("#asked-by >> text=Accept")
    page.wait_for_selector("#friend-list >> text=pm-bob")
    server.call(
        bob, "POST", "/api/messages", to="pm-ana", text="a game tonight?"
    ).raise_for_status()
    page.wait_for_selector("#notice >> text=Message from pm-bob: a game tonight?")
    assert page.inner_text("#messages-link .badge").startswith("1")
    page.click("#friend-list >> text=Write")
    page.wait_for_selector("#conversation >> text=a game tonight?")
    page.fill("#message-text", "yes, at nine")
    page.click("#send-message")
    page.wait_for_selector("#conversation .mine >> text=yes, at nine")
    page.wait_for_function("!document.querySelector('#messages-link .badge')")  # read now
    seen = server.call(bob, "GET", "/api/messages/pm-ana").json()
    assert [one["text"] for one in seen] == ["a game tonight?", "yes, at nine"]
    screenshot(page, "messages-conversation")
    assert serious_violations(page) == []
    page.click("#back")
    page.click("#back")  # to the lobby, where friends are listed
    page.wait_for_selector("#friends >> text=pm-bob")
    screenshot(page, "friends-lobby")

    # an open table invites a friend (he reads it when he comes back)
    table = create_table(page, "wizard", 3)
    page.click("#invite-friends >> text=Invite pm-bob")
    page.wait_for_selector(f"#notice >> text=pm-bob is invited to table {table}")
    invited = server.call(bob, "GET", "/api/messages/pm-ana").json()[-1]
    assert (invited["sender"], invited["table"]) == ("pm-ana", table)

    # a profile's button ignores a guest; the panel lists them, in French too
    page.goto(f"{server.url}/#player=pm-gus")
    page.click("#ignore")
    page.wait_for_selector("#notice >> text=You ignore pm-gus now")
    page.goto(f"{server.url}/#messages")
    page.wait_for_selector("#ignored >> text=pm-gus")
    page.wait_for_selector("#conversations >> text=pm-bob")
    page.wait_for_selector("#friend-list >> text=pm-bob")
    screenshot(page, "messages")
    assert serious_violations(page) == []
    page.click("#language")
    page.wait_for_selector("#messages-heading >> text=Messages")
    page.wait_for_selector("#messages >> text=Ignorés")
    assert serious_violations(page) == []  # the page fixture fails on any missing text

    enter(phone, server, "pm-ana", "#login")
    phone.goto(f"{server.url}/#messages=pm-bob")
    phone.wait_for_selector("#conversation >> text=yes, at nine")
    assert no_horizontal_overflow(phone) == 0
    screenshot(phone, "messages-phone")
    assert serious_violations(phone) == []
    phone.goto(f"{server.url}/#messages")
    phone.wait_for_selector("#friend-list >> text=pm-bob")
    assert no_horizontal_overflow(phone) == 0
    screenshot(phone, "messages-panel-phone")
