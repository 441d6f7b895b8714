"""In the browser: a chat line reported from its button, the moderators' page with the
report and its context, a mute from the page, a line removed for everyone; axe and a phone."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page

from test_server_moderation import admin_command, register
from web_support import (
    PHONE,
    browser,
    needs_chromium,
    no_horizontal_overflow,
    page,
    phone,
    screenshot,
    watched_page,
)

from server_support import Server, serving

__all__ = ["browser", "page", "phone"]  # fixtures
pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("web-moderation")) as running:
        register(running, "web-admin")
        assert admin_command(running, "grant", "web-admin", "administrator").returncode == 0
        yield running


def serious_violations(page: Page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{violation['id']}: {[node['html'][:150] for node in violation['nodes'][:3]]}"
        for violation in results.response["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


def sign_in(page: Page, server: Server, name: str, new: bool = False) -> None:
    page.goto(server.url)
    page.fill("#name", name)
    page.fill("#password", "secret-6")
    page.click("#register" if new else "#login")
    page.wait_for_selector("#create")


def test_a_reported_line_reaches_the_moderators_page_and_is_acted_on(
    server: Server, page: Page, phone: Page, browser: Browser
) -> None:
    rude = register(server, "web-rude")
    sign_in(phone, server, "web-witness", new=True)
    said = server.call(rude, "POST", "/api/chat", room="main", text="you all play like bots")
    assert said.status_code == 200
    line = (
        phone.locator("#room-chat")
        .locator("xpath=ancestor::section")
        .locator(".chat", has_text="you all play like bots")
    )
    line.locator(".report-line").click()
    phone.fill(".reason-form .reason", "rude to everyone")
    assert serious_violations(phone) == []
    phone.locator(".reason-form").scroll_into_view_if_needed()
    screenshot(phone, "report-line")
    phone.click(".reason-form button.primary")
    phone.wait_for_selector("#notice >> text=Your report is with the moderators")

    sign_in(page, server, "web-admin")
    page.click("#moderation-link")
    page.wait_for_selector("#reports .report")
    report = page.inner_text("#reports")
    assert "web-rude" in report and "web-witness" in report and "rude to everyone" in report
    page.click("#reports details summary")
    assert "you all play like bots" in page.inner_text("#reports .context .reported")
    assert serious_violations(page) == []
    screenshot(page, "moderation", full_page=True)

    page.select_option("#act-action", "mute")
    page.fill("#act-name", "web-rude")
    page.fill("#act-minutes", "30")
    page.fill("#act-reason", "insults")
    page.click("#act-submit")
    page.wait_for_selector("#sanctions >> text=web-rude")
    assert "insults" in page.inner_text("#audit")
    refused = server.call(rude, "POST", "/api/chat", room="main", text="again")
    assert refused.status_code == 403 and "insults" in refused.json()["message"]
    page.click("#reports .report button.acted")
    page.wait_for_selector("#reports >> text=No report is waiting.")
    phone.wait_for_selector("#notice >> text=a moderator acted on your report on web-rude")

    # a line removed from the lobby's chat goes from the other person's log too
    page.click("#back")
    room_log = page.locator("section.chat .log")
    room_log.locator(".chat", has_text="you all play like bots").locator(".remove-line").click()
    page.fill(".reason-form .reason", "insult")
    page.click(".reason-form button.primary")
    phone.wait_for_function(
        "() => !document.querySelector('.log').innerText.includes('you all play like bots')"
    )
    assert "you all play like bots" not in page.inner_text("section.chat .log")

    small, problems = watched_page(browser, viewport=PHONE, is_mobile=True, has_touch=True)
    sign_in(small, server, "web-admin")
    small.goto(f"{server.url}/#moderation")
    small.wait_for_selector("#audit")
    assert no_horizontal_overflow(small) == 0
    assert serious_violations(small) == []
    screenshot(small, "moderation-phone", full_page=True)
    small.click("#language")
    small.wait_for_selector("#moderation >> text=Journal de modération")
    assert serious_violations(small) == []
    small.context.close()
    assert not problems, problems
    assert httpx.get(f"{server.url}/api/moderation").status_code == 401
