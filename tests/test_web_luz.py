"""Luz in the browser, as a person plays it against three bots: the other hands laid before
their seats with their values, the person's own cards by colour with the values they may still
be, yellow announced as the trump, the bet as one number and a safety-bead toggle, each taken
trick held with its winner, a summary per deal, the score sheet, the end and the replay."""

from __future__ import annotations

import random
import re

from playwright.sync_api import Page

from web_support import (
    DESKTOP,
    PHONE,
    browser,
    finished,
    needs_chromium,
    no_horizontal_overflow,
    open_replay_and_step,
    page,
    phone,
    play_one_move,
    screenshot,
    server,
    sign_in,
    start_table,
)

from server_support import Server

__all__ = ["browser", "page", "phone", "server"]  # fixtures
pytestmark = needs_chromium
PLAYERS = 4
OWN_CARD = re.compile(r"Position \d+: (a \w+ card; it may be [\d ]+|surely the \w+ \d+)$")


def resize(page: Page, size: dict[str, int]) -> None:
    page.set_viewport_size({"width": size["width"], "height": size["height"]})


def my_turn(page: Page) -> bool:
    return bool(page.locator("#dock.my-turn [data-action]:not([disabled])").count())


def check_the_bet_control(page: Page) -> None:
    """One select of the legal numbers, one bead toggle, one button that says the whole bet."""
    assert page.locator("#dock select").count() == 1
    assert page.locator("#dock input[type=checkbox]#bet-bead").count() == 1
    assert page.locator("#dock [data-action^='bet']").count() == 1
    numbers = page.locator("#bet-value option").all_inner_texts()
    assert numbers == [str(number) for number in range(11)]
    page.select_option("#bet-value", "2")
    page.check("#bet-bead")
    assert page.get_attribute("#bet-submit", "data-action") == "bet 2+"
    assert "2" in page.inner_text("#bet-submit")
    assert "3" in page.inner_text(".luz-bet-hint")  # 2 or 3 tricks make it with the bead


def check_my_cards(page: Page) -> None:
    """Own cards show a colour symbol and the values still possible, never a value seen."""
    cards = page.locator("#hand .card")
    assert cards.count() >= 1
    for index in range(cards.count()):
        label = cards.nth(index).get_attribute("aria-label") or ""
        assert OWN_CARD.match(label), label
        assert cards.nth(index).locator(".symbol").count() == 1


def check_a_taken_trick(page: Page) -> bool:
    """A completed trick stays with its last card and its winner marked before it is gathered."""
    if not page.locator("#trick-winner").count():
        return False
    figures = page.locator("#trick figure")
    winner = page.locator("#trick figure.won")
    if figures.count() != PLAYERS or winner.count() != 1:
        return False
    name = winner.locator("figcaption").inner_text()
    assert page.inner_text("#trick-winner").startswith(f"{name} wins the trick with the ")
    assert winner.locator(".card.winner").count() == 1
    screenshot(page, "luz")
    return True


def test_a_person_plays_luz_to_the_end_and_replays_it(server: Server, page: Page) -> None:
    rng = random.Random(7)
    sign_in(page, server, "Lucia")
    start_table(page, "luz", PLAYERS)
    page.wait_for_selector(".luz-seat-cards")

    trump = page.inner_text("#trump")
    assert "Yellow ☀ is always trump" in trump and "highest yellow wins" in trump
    assert page.locator(".others .luz-seat-cards").count() == PLAYERS - 1
    assert page.locator(".others .luz-seat-cards .card").count() == (PLAYERS - 1) * 10
    corner = page.locator(".others .luz-seat-cards .card .corner").first.inner_text()
    assert re.fullmatch(r"\d+\s*\S", corner)  # a value and its colour symbol
    assert page.locator(".marker", has_text="1st").count() == 1

    bet_checked = trick_seen = cards_checked = phone_checked = False
    for _ in range(3_000):
        if finished(page):
            break
        trick_seen = trick_seen or check_a_taken_trick(page)
        if not my_turn(page):
            page.wait_for_timeout(20)
            continue
        if page.locator("#bet-value").count():
            assert "how many of the 10 tricks" in page.inner_text("#prompt")
            if not phone_checked:
                resize(page, PHONE)
                assert no_horizontal_overflow(page) == 0
                resize(page, DESKTOP)
                phone_checked = True
            if not bet_checked:
                check_the_bet_control(page)
                seq = page.get_attribute("#board", "data-seq")
                page.click("#bet-submit")
                page.wait_for_function(f"document.querySelector('#board').dataset.seq !== '{seq}'")
                bet_checked = True
                continue
        elif not cards_checked:
            check_my_cards(page)
            assert page.locator("#hand button.card").count() >= 1
            cards_checked = True
        play_one_move(page, rng)
    assert finished(page), "the game did not end"
    assert bet_checked and cards_checked and trick_seen and phone_checked

    log = page.inner_text(".log")
    assert "Lucia bets 2 with the safety bead" in log
    assert re.search(r"plays the (red|yellow|green|blue|purple) \d+", log)
    assert "wins the trick" in log and "Deal 4 is over" in log
    summary = page.inner_text("#summary")
    assert "Deal 4 of 4 is over" in summary and "Bet made?" in summary
    assert page.locator(".sheet-panel .luz-sheet tbody tr").count() >= 5
    assert "Points for a bet" in page.inner_text("#successes")
    assert page.locator("#end .ranking li").count() == PLAYERS

    open_replay_and_step(page)
    assert page.locator("#replay-panel .seat").count() == PLAYERS
    page.click("#replay-next-trick")
    assert page.locator("#replay-panel #trick figure").count() == PLAYERS
    assert page.locator("#replay-panel #trick figure.won").count() == 1


def test_on_a_phone_a_deal_summary_comes_folded_and_stays_as_the_person_leaves_it(
    server: Server, phone: Page
) -> None:
    rng = random.Random(3)
    sign_in(phone, server, "Luzphone")
    start_table(phone, "luz", PLAYERS)
    phone.wait_for_selector(".luz-seat-cards")
    bets = 0
    for _ in range(600):
        if phone.locator("#summary").count():
            break
        if my_turn(phone):
            if phone.locator("#bet-value").count():
                if bets:  # the next deal's bet, come with the summary: not to be made here
                    break
                bets += 1
            play_one_move(phone, rng)
        else:
            phone.wait_for_timeout(20)
    summary = phone.locator("#summary")
    phone.wait_for_selector("#summary")  # no deal ended otherwise
    toggle = phone.locator("#summary-toggle")
    assert toggle.get_attribute("aria-expanded") == "false"  # folded: only its title shows
    assert "Deal 1 of 4 is over" in summary.inner_text()
    assert summary.bounding_box()["height"] < 60  # type: ignore[index]
    assert no_horizontal_overflow(phone) == 0
    phone.wait_for_selector("#bet-value")  # the next deal's bet is due
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert "Bet made?" in summary.inner_text()
    seq = phone.get_attribute("#board", "data-seq")
    phone.select_option("#bet-value", "1")
    phone.click("#bet-submit")  # play goes on: the bots bet and play after this
    phone.wait_for_function(f"document.querySelector('#board').dataset.seq !== '{seq}'")
    if phone.locator("#summary").count():  # still within its time: as the person left it
        assert toggle.get_attribute("aria-expanded") == "true"
        phone.locator("#summary .close").click()
        assert not phone.locator("#summary").count()


def test_a_shorter_luz_game_counts_its_own_deals(server: Server, page: Page) -> None:
    """Two deals, an option among those that shrink a game: the board says "of 2", and the
    table of successes has a column for each of its two deals."""
    sign_in(page, server, "Dora")
    page.select_option("#new-game", "luz")
    page.click("#shrinking-options summary")
    start_table(page, "luz", PLAYERS, {"deals": "2"})
    page.wait_for_selector(".luz-seat-cards")
    assert "Deal 1 of 2" in page.inner_text("#board")
    assert page.locator("#successes thead th").all_inner_texts()[1:] == ["Deal 1", "Deal 2"]
