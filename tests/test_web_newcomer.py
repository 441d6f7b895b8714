"""In the browser, what a newcomer meets first: a game against bots in one click, and play with
the keyboard alone (when the person's turn comes their first playable card, or the move's
control, has the focus, unless they are typing elsewhere; a skip link, the first stop of the
Tab key at a table, leads to the hand)."""

from __future__ import annotations

import random

from playwright.sync_api import Page

from web_support import (
    browser,
    create_table,
    needs_chromium,
    page,
    play_to_the_end,
    screenshot,
    server,
    sign_in,
    start_table,
)

from server_support import Server

__all__ = ["browser", "page", "server"]  # fixtures
pytestmark = needs_chromium

FOCUS_IN_DOCK = "document.activeElement?.closest('#dock') !== null"
PLAYABLE = "[data-action]:not([disabled]), #dock.my-turn [data-pick]"
MY_TURN = f"document.querySelector('#dock.my-turn {PLAYABLE}')"
FOCUSABLE = 'a[href], button, input, select, [tabindex]:not([tabindex="-1"])'
FIRST_STOP = f"document.querySelector('{FOCUSABLE}')"


def test_the_turn_brings_the_focus_to_the_hand_but_never_takes_it_from_typing(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "keys-ana")
    table = start_table(page, "wizard", 3, {"rounds": "2"})
    page.wait_for_function(MY_TURN)
    page.wait_for_function(FOCUS_IN_DOCK)
    focused = page.evaluate(
        "document.activeElement.matches('[data-action], [data-pick], input, select')"
    )
    assert focused, page.evaluate("document.activeElement.outerHTML")

    assert page.evaluate(f"{FIRST_STOP}.className") == "skip-link"  # the first Tab stop
    assert page.evaluate("document.querySelector('.skip-link').getBoundingClientRect().bottom") <= 0
    page.focus(".skip-link")
    assert page.evaluate("document.querySelector('.skip-link').getBoundingClientRect().top") >= 0
    screenshot(page, "skip-link")
    page.keyboard.press("Enter")
    assert page.evaluate(FOCUS_IN_DOCK)

    rng = random.Random(4)
    page.click("#table-chat")
    page.keyboard.type("thinking")
    for _ in range(3):  # moves made with the mouse while the chat keeps the focus
        page.wait_for_function(MY_TURN)
        moves = page.locator("#dock [data-action]:not([disabled])")
        if not moves.count():
            break
        seq = page.get_attribute("#board", "data-seq")
        page.click("#table-chat")
        moves.nth(rng.randrange(moves.count())).dispatch_event("click")
        page.wait_for_function(f"document.querySelector('#board').dataset.seq !== '{seq}'")
        assert page.evaluate("document.activeElement.id") == "table-chat"
    assert page.input_value("#table-chat") == "thinking"

    play_to_the_end(page, rng)  # then a finished table waits under its own heading
    page.click("#end >> text=Back to the lobby")
    page.wait_for_selector("#finished-tables")
    assert page.locator(f"#finished-tables [data-table='{table}']").count() == 1
    assert (
        page.locator(f".tables:not(#finished-tables .tables) [data-table='{table}']").count() == 0
    )
    waiting = create_table(page, "luz", 3)  # one's own open table offers no seat to take
    page.click("#back")
    page.wait_for_selector(f"#my-tables [data-table='{waiting}']")
    assert page.locator(f"[data-table='{waiting}'] button", has_text="Join").count() == 0


def test_play_now_starts_a_game_against_bots_of_the_chosen_level(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "quick-web")
    page.select_option("#play-level", "medium")
    screenshot(page, "play-now")
    page.click("[data-play='wizard']")
    page.wait_for_selector("#board")
    assert page.locator(".seat .chip", has_text="medium").count() == 3  # three bots, one level
    assert "quick-web" in page.inner_text("#dock")
    page.wait_for_selector("#dock.my-turn")  # left on one's turn: the bot plays it

    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#leave")
    assert "A bot plays your seat until you come back" in asked[0]
    assert page.is_visible("#board")  # dismissed: still at the table
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#leave")
    page.wait_for_selector("#play-level")
    assert page.input_value("#play-level") == "medium"  # remembered
    page.wait_for_selector("#my-tables")
    assert page.locator(".your-turn, .badge").count() == 0
    assert "Your turn" not in page.title()

    page.click("[data-friends='luz']")  # with friends: a table that waits, its link to copy
    page.wait_for_function("document.activeElement?.id === 'invite-link'")
    link = page.input_value("#invite-link")
    table = page.evaluate("location.hash").removeprefix("#table=")
    assert link.endswith(f"/#join={table}")
    assert page.evaluate("getSelection().toString() || document.activeElement.selectionEnd") in (
        link,
        len(link),
    )
    assert page.locator("em", has_text="empty seat").count() == 3
    screenshot(page, "play-with-friends")
    page.click("#copy-invite")
    page.wait_for_selector("#notice")
    assert page.inner_text("#notice span") in (
        "Link copied: send it to whom you want to play with.",
        "The link is selected: copy it with Ctrl+C (⌘C on a Mac).",
    )

    page.click("#start")  # refused while seats are empty; the refusal goes once the game starts
    page.wait_for_selector("#notice >> text=every seat must be taken")
    for _ in range(3):
        page.click("#add-bot")
    page.wait_for_selector("#add-bot:disabled")
    assert "every seat must be taken" in page.inner_text("#notice")  # the same state: it stays
    page.click("#start")
    page.wait_for_selector("#board")
    assert page.locator("#notice").count() == 0
