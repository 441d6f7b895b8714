"""Mended: the web app works under the server's Content-Security-Policy, which it did
not send before: a guest signs in, opens a table, puts bots in and starts, with no script
error and no violation of the policy."""

from __future__ import annotations

from playwright.sync_api import Browser

from web_support import DESKTOP, browser, needs_chromium, server, watched_page

from server_support import Server

__all__ = ["browser", "server"]  # fixtures
pytestmark = needs_chromium


def test_the_web_app_runs_under_the_content_security_policy(
    server: Server, browser: Browser
) -> None:
    page, problems = watched_page(browser, viewport=DESKTOP, bypass_csp=False)
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    try:
        response = page.goto(server.url)
        assert response is not None and "content-security-policy" in response.headers
        page.fill("#name", "strict")
        page.click("#guest")
        page.wait_for_selector("#create")
        page.select_option("#new-game", "luz")
        page.select_option("#new-players", "3")
        page.click("#create")
        page.wait_for_selector("#add-bot")
        for number in range(2):
            page.click("#add-bot")
            page.locator(".seat-list .chip").nth(number).wait_for()
        page.click("#start")
        page.wait_for_selector("#board")
    finally:
        page.context.close()
    assert not violations and not problems, (violations, problems)
