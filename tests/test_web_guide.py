"""In the browser, a first game that teaches: the "How to play" card opens by itself at a
person's first table of a game (and not at the next), closes with Escape or its Close button and
gives the focus back; a hint names each of the first decisions until the person turns hints off,
which the card turns on again; on a phone the hint never covers the hand."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, FloatRect, Page

from tapisvert.i18n import catalogue
from web_support import (
    DESKTOP,
    PHONE,
    browser,
    needs_chromium,
    play_one_move,
    screenshot,
    serious_violations,
    server,
    sign_in,
    watched_page,
)

from server_support import Server

__all__ = ["browser", "server"]  # fixtures
pytestmark = needs_chromium

CARD_OPEN = "document.querySelector('#how-to-play-card')?.open === true"
MY_TURN = "#dock.my-turn"
FOCUS_IN_DOCK = "document.activeElement?.closest('#dock') !== null"


def newcomer_page(browser: Browser, **context: object) -> Iterator[Page]:
    """A browser that has never seen a game's card nor turned its hints off."""
    opened, problems = watched_page(browser, newcomer=True, **context)
    yield opened
    opened.context.close()
    assert not problems, sorted(set(problems))[:20]


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    yield from newcomer_page(browser, viewport=DESKTOP)


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    yield from newcomer_page(browser, viewport=PHONE, is_mobile=True, has_touch=True)


def play_now(page: Page, game: str) -> None:
    page.click(f"[data-play='{game}']")
    page.wait_for_selector("#board")


def hint_names_its_decision(page: Page, game: str) -> str:
    """The hint shown now names the kind of decision the board says it is; answer the kind."""
    page.wait_for_selector("#hint")
    kind = page.get_attribute("#hint", "data-kind") or ""
    title = catalogue("en")[f"{game}.guide.hint.{kind}.title"]
    assert title in page.inner_text("#hint-title")
    # inside a live region that was there before it: a screen reader announces it
    assert page.locator(".felt [role=status] #hint").count() == 1
    return kind


def box(page: Page, selector: str) -> FloatRect:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


def apart(first: FloatRect, second: FloatRect) -> bool:
    return (
        first["y"] + first["height"] <= second["y"]
        or second["y"] + second["height"] <= first["y"]
        or first["x"] + first["width"] <= second["x"]
        or second["x"] + second["width"] <= first["x"]
    )


def test_a_first_wizard_table_opens_the_card_and_hints_until_turned_off(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "new-wiz")
    play_now(page, "wizard")
    page.wait_for_function(CARD_OPEN)
    assert "How to play Wizard" in page.inner_text("#how-to-play-heading")
    assert page.locator("#how-to-play-card li").count() >= 4
    assert page.is_visible("#how-to-play-close")
    assert not serious_violations(page)  # the Close button's contrast among the rest
    screenshot(page, "how-to-play")
    page.keyboard.press("Escape")
    page.wait_for_function(f"!({CARD_OPEN})")
    page.wait_for_selector(MY_TURN)
    page.wait_for_function(FOCUS_IN_DOCK)  # the focus is back, on the hand

    first = hint_names_its_decision(page, "wizard")
    assert first in {"bid", "trump", "lead", "follow", "free"}
    assert page.evaluate("document.activeElement.closest('#hint')") is None  # never takes it
    assert apart(box(page, "#hint"), box(page, "#dock"))
    screenshot(page, "hint")
    page.click("#hint-ok")
    assert page.locator("#hint").count() == 0

    rng = random.Random(3)
    while not play_one_move(page, rng):
        pass
    page.wait_for_selector(f"{MY_TURN} [data-action]:not([disabled])")
    hint_names_its_decision(page, "wizard")
    page.click("#hint-off")
    assert page.locator("#hint").count() == 0
    while not play_one_move(page, rng):
        pass
    page.wait_for_selector(f"{MY_TURN} [data-action]:not([disabled])")
    assert page.locator("#hint").count() == 0  # off for this game

    page.reload()  # the card opened once for this game: not by itself again
    page.wait_for_selector(MY_TURN)
    assert not page.evaluate(CARD_OPEN)
    page.click("#how-to-play")
    page.wait_for_function(CARD_OPEN)
    page.click("#hints-again")
    page.click("#how-to-play-close")
    page.wait_for_function(f"!({CARD_OPEN})")
    assert page.evaluate("document.activeElement.id") == "how-to-play"
    hint_names_its_decision(page, "wizard")


def test_on_a_phone_the_card_fits_and_the_hint_leaves_the_hand_in_sight(
    server: Server, phone: Page
) -> None:
    sign_in(phone, server, "new-luz")
    play_now(phone, "luz")
    phone.wait_for_function(CARD_OPEN)
    close = box(phone, "#how-to-play-close")
    assert close["y"] >= 0 and close["y"] + close["height"] <= PHONE["height"]
    screenshot(phone, "how-to-play-phone")
    phone.tap("#how-to-play-close")
    phone.wait_for_function(f"!({CARD_OPEN})")
    phone.wait_for_selector(MY_TURN)
    assert hint_names_its_decision(phone, "luz") == "bet"  # every deal begins with the bets
    hint, dock = box(phone, "#hint"), box(phone, "#dock")
    assert apart(hint, dock)
    assert apart(hint, box(phone, "#dock #hand"))
    assert hint["y"] + hint["height"] > 0 and hint["y"] < PHONE["height"]  # in sight too
    screenshot(phone, "hint-phone")
