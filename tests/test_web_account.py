"""In the browser: one's own profile downloads one's data and deletes the account, which
asks to be sure (and for the password) first."""

from __future__ import annotations

import json
from pathlib import Path

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
    server,
)

from server_support import Server, admin_command

__all__ = ["browser", "page", "phone", "server"]  # fixtures
pytestmark = needs_chromium


def test_a_person_downloads_their_data_then_deletes_their_account(
    server: Server, page: Page, phone: Page, tmp_path: Path
) -> None:
    register(page, server, "web-leaving", password="leaving-now")
    page.click("a.me")
    page.wait_for_selector("#delete-account")
    assert page.is_disabled("#delete-account-button")  # not before one says one is sure
    assert serious_violations(page) == []
    screenshot(page, "account")

    with page.expect_download() as download:
        page.click("#download-data")
    saved = tmp_path / "data.json"
    download.value.save_as(saved)
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["name"] == "web-leaving" and data["games"] == []

    page.check("#delete-sure")
    page.fill("#delete-password", "not-the-password")
    page.click("#delete-account-button")
    page.wait_for_selector("#notice >> text=wrong name or password")
    assert page.is_visible("#delete-account")  # nothing happened
    page.fill("#delete-password", "leaving-now")
    page.click("#delete-account-button")
    page.wait_for_selector("#notice >> text=Your account is deleted.")
    page.wait_for_selector("#guest")  # signed out, on the sign-in page
    gone = page.request.get(f"{server.url}/api/players/web-leaving")
    assert gone.status == 404

    register(phone, server, "web-phone")
    phone.click("a.me")
    phone.wait_for_selector("#delete-account")
    phone.locator("#account-heading").scroll_into_view_if_needed()
    assert no_horizontal_overflow(phone) == 0
    screenshot(phone, "account-phone")


def test_the_profile_sets_what_the_open_database_of_games_shows(server: Server, page: Page) -> None:
    register(page, server, "web-open", password="open-enough")
    page.click("a.me")
    page.wait_for_selector("#export-choices")
    assert not page.is_checked("#export-name") and not page.is_checked("#export-unrated")
    assert serious_violations(page) == []
    page.check("#export-name")
    page.wait_for_selector("#notice >> text=Saved: the next exports follow your choice")
    token = page.evaluate("() => localStorage.getItem('token')")
    asked = page.request.get(
        f"{server.url}/api/account/export", headers={"Authorization": f"Bearer {token}"}
    )
    assert asked.json() == {"name": True, "unrated": False}
    page.reload()
    page.click("a.me")
    page.wait_for_selector("#export-choices")
    assert page.is_checked("#export-name") and not page.is_checked("#export-unrated")


def test_a_link_from_an_administrator_sets_a_new_password(server: Server, page: Page) -> None:
    register(page, server, "web-forgetful", password="forgotten")
    page.click("#bar button:has-text('Sign out')")
    made = admin_command(server, "reset-link", "web-forgetful")
    assert made.returncode == 0, made.stderr
    key = made.stdout.split("#reset=")[1].split()[0]
    page.goto(f"{server.url}/#reset={key}")
    page.wait_for_selector("#reset-form")
    screenshot(page, "password-reset")
    page.fill("#reset-password", "remembered")
    page.click("#reset-button")
    page.wait_for_selector("#notice >> text=Password set: sign in as web-forgetful with it.")
    page.fill("#name", "web-forgetful")
    page.fill("#password", "remembered")
    page.click("#login")
    page.wait_for_selector("#create")
