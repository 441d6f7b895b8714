"""Fzzzt! in the browser, read as a person reads it: the belt with the card up for auction, a
bid made of the cards picked from the hand, the revealed bids of each auction, the cards' power
and points on their faces, the final scoring, the replay; and the table on a phone."""

from __future__ import annotations

import json
import random

from playwright.sync_api import Page

from web_support import (
    board_seq,
    browser,
    needs_chromium,
    no_horizontal_overflow,
    open_replay_and_step,
    page,
    phone,
    play_to_the_end,
    screenshot,
    server,
    sign_in,
    start_table,
)

from server_support import Server

__all__ = ["browser", "page", "phone", "server"]  # fixtures
pytestmark = needs_chromium


def bid_with_picked_cards(page: Page, sent: list[dict[str, object]]) -> list[str]:
    """Pick the first and the last card of the hand, chat, then Bid: the move sent is exactly
    those cards, and the picks outlive the redrawn board."""
    page.wait_for_selector("#bid")
    picks = page.locator("#dock [data-pick]")
    assert picks.count() >= 2
    assert page.is_disabled("#bid") and page.get_attribute("#bid", "data-action") is None
    assert not page.locator("[data-action^='bid ']").count()  # no button per subset of the hand
    chosen = [str(picks.nth(index).get_attribute("data-pick")) for index in (0, picks.count() - 1)]
    picks.nth(0).click()
    picks.nth(picks.count() - 1).click()
    page.fill("#table-chat", "thinking about my bid")
    page.press("#table-chat", "Enter")
    page.wait_for_selector("text=thinking about my bid")
    assert page.get_attribute(f"[data-pick='{chosen[0]}']", "aria-pressed") == "true"
    assert page.get_attribute("#bid", "data-action") is not None
    seq = board_seq(page)
    page.click("#bid")
    page.wait_for_function(f"document.querySelector('#board')?.dataset.seq !== '{seq}'")
    bids = [str(frame["action"]) for frame in sent if frame.get("type") == "act"]
    assert sorted(bids[-1].split()[1:]) == sorted(chosen)
    return chosen


def the_belt_is_in_sight_above_the_dock(page: Page) -> None:
    """When a bid is due, the whole belt shows between the top of the window and the dock
    pinned at its bottom; the prompt is a line or two, the detail behind "?"."""
    page.wait_for_function(
        """() => { const belt = document.querySelector('#belt').getBoundingClientRect();
          const dock = document.querySelector('#dock').getBoundingClientRect();
          return belt.top >= 0 && belt.bottom <= dock.top + 1; }""",
        timeout=5000,
    )
    belt, dock = page.locator("#belt").bounding_box(), page.locator("#dock").bounding_box()
    assert belt is not None and dock is not None and belt["y"] + belt["height"] <= dock["y"] + 1
    lines = page.evaluate(
        "(() => { const prompt = document.querySelector('#prompt');"
        " return prompt.clientHeight / parseFloat(getComputedStyle(prompt).fontSize); })()"
    )
    assert lines <= 3 * 1.3, f"the prompt runs to {lines / 1.3:.1f} lines"
    assert page.locator("#bid-help").count() == 0
    page.click("#bid-help-toggle")
    assert "the lowest bid" in page.inner_text("#bid-help")
    assert page.get_attribute("#bid-help-toggle", "aria-expanded") == "true"
    page.click("#bid-help-toggle")
    assert page.locator("#bid-help").count() == 0


def units_say_what_they_still_need(page: Page) -> None:
    """A unit not yet completed names the symbols its robots and chits do not supply: the
    fewest that are missing, each item supplying one symbol (P02 needs nut, bolt and gear;
    S1a has bolt and gear, S3a nut and gear)."""
    scores = page.evaluate(
        """async () => {
          const { unitScore } = await import('/games/fzzzt.js');
          return [[], ['S1a'], ['S3a', 'S2c'], ['S1a', 'S3a'], ['S1a', 'S1c', 'chit G']]
            .map((robots) => unitScore({ unit: 'P02', robots }));
        }"""
    )
    assert [(score["sets"], sorted(score["missing"])) for score in scores] == [
        (0, ["B", "G", "N"]),
        (0, ["G", "N"]),
        (0, ["B"]),
        (0, ["G"]),  # two robots for three symbols: gear goes unsupplied
        (1, []),
    ]
    assert [score["points"] for score in scores] == [-9, -9, -9, -9, 9]
    incomplete = page.locator(".fz-unit:not(.complete)")
    for index in range(incomplete.count()):
        unit = incomplete.nth(index)
        missing = str(unit.locator(".fz-unit-missing").get_attribute("data-missing")).split()
        assert missing, unit.inner_text()
        text = unit.locator(".fz-unit-missing").inner_text()
        assert text.startswith("still needs")
        assert len(unit.locator(".fz-need").all()) == len(missing)
    for index in range(page.locator(".fz-unit.complete").count()):
        assert not page.locator(".fz-unit.complete").nth(index).locator(".fz-unit-missing").count()


def test_a_person_plays_fzzzt_to_the_end_and_replays_it(server: Server, page: Page) -> None:
    sent: list[dict[str, object]] = []
    page.on(
        "websocket",
        lambda socket: socket.on("framesent", lambda payload: sent.append(json.loads(payload))),
    )
    sign_in(page, server, "fz-ana")
    table = start_table(page, "fzzzt", 4)  # the widest score sheet
    page.wait_for_selector("#bid")

    legend = page.inner_text(".fz-legend")
    assert "production unit" in legend and "never completed costs it" in legend
    up = page.locator("#belt [aria-current='true']")
    assert up.count() == 1 and "Up for auction" in up.inner_text()
    assert up.locator(".card").count() == 1
    assert "Up for auction" in page.inner_text("#dock")
    the_belt_is_in_sight_above_the_dock(page)

    bid_with_picked_cards(page, sent)
    page.wait_for_selector("#auction-result")
    result = page.inner_text("#auction-result")
    assert "Auction 1" in result and " wins " in result and "with power" in result
    assert sum(name in result for name in ("fz-ana", "bot easy", "bot easy 2")) >= 2
    page.wait_for_selector(".log >> text=/wins .* with power \\d+/")
    page.wait_for_selector("#bid")  # the next bid, the last auction's result shown above it
    the_belt_is_in_sight_above_the_dock(page)
    screenshot(page, "fzzzt")

    play_to_the_end(page, random.Random(11))
    # the end appears above the board: the page brings it into sight
    page.wait_for_function(
        "(() => { const top = document.querySelector('#end').getBoundingClientRect().top;"
        " return top > -2 && top < innerHeight / 2; })()",
        timeout=5000,
    )
    end = page.inner_text("#end")
    assert "fz-ana" in end and "bot easy 2" in end
    assert "Final scoring" in page.inner_text("#summary")
    assert "Total" in page.inner_text(".sheet-panel")
    # every column of the score sheet shows, none cut at the panel's edge
    widths = page.evaluate(
        "(() => { const panel = document.querySelector('.sheet-panel');"
        " return [panel.scrollWidth, panel.clientWidth]; })()"
    )
    assert widths[0] <= widths[1], f"the score sheet is {widths[0]} px wide in {widths[1]} px"

    # Every Fzzzt! card won stays with its owner: its face shows power 3 and −1 point. (One's
    # own deck is folded away until opened, as a person would open it.)
    page.locator("details.fz-deck").evaluate_all(
        "decks => decks.forEach((deck) => deck.open = true)"
    )
    fzzzt = page.locator(".fz-area [aria-label^='Fzzzt! card']").first
    assert fzzzt.inner_text()
    assert fzzzt.locator(".fz-zap").inner_text().strip() == "3"
    assert "".join(fzzzt.locator(".fz-vp").inner_text().split()) == "−1★"
    assert "power 3, −1 point" in str(fzzzt.get_attribute("aria-label"))

    units_say_what_they_still_need(page)

    open_replay_and_step(page)
    assert page.locator("#replay-panel #belt").count() == 1
    steps = page.evaluate(f"fetch('/api/tables/{table}/replay').then((answer) => answer.json())")
    if steps[2].get("seats"):  # a replay that carries every seat's view shows every hand
        hands = page.locator("#replay-panel .fz-area .fz-label", has_text="Hand")
        assert hands.count() == 4


def test_fzzzt_fits_a_phone_with_the_bid_in_the_dock(server: Server, phone: Page) -> None:
    sign_in(phone, server, "fz-phone")
    start_table(phone, "fzzzt", 4)
    phone.wait_for_selector("#dock #bid")
    assert no_horizontal_overflow(phone) == 0
    the_belt_is_in_sight_above_the_dock(phone)
    assert phone.locator("#dock #hand [data-pick]").count() == 4
    assert "power" in phone.inner_text("#dock #bid-power").lower()
    # the next bid: the last auction's result comes folded to its title, the belt still in sight
    phone.locator("#dock [data-pick]").first.click()
    phone.click("#bid")
    phone.wait_for_selector("#auction-result")
    phone.wait_for_selector("#bid")
    assert phone.get_attribute("#auction-result", "open") is None
    assert " wins " in phone.inner_text("#auction-result summary")
    the_belt_is_in_sight_above_the_dock(phone)
