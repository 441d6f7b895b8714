"""Abluxxen in the browser, as a person plays it against two bots: a set is laid by picking its
cards in the hand and confirming, the move sent is exactly the picked cards; a set stolen shows its
cards beside Take and Decline (or Keep and Discard for its owner); the active player wears a paw
and whoever must act now a star; the log tells every steal in words; the game ends with its
summary, the score sheet, the end screen and the replay."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from playwright.sync_api import Page

from tapisvert.games.abluxxen.cards import CardSet, can_steal, set_to_string, string_to_set
from web_support import (
    DESKTOP,
    PHONE,
    board_seq,
    browser,
    finished,
    needs_chromium,
    no_horizontal_overflow,
    open_replay_and_step,
    page,
    play_one_move,
    screenshot,
    server,
    sign_in,
    start_table,
)

from server_support import Server, merged_view

__all__ = ["browser", "page", "server"]  # fixtures
pytestmark = needs_chromium
PLAYERS = 3
ME = 0


class Socket:
    """What the page sends and the latest view it received, read off its WebSocket."""

    def __init__(self, page: Page) -> None:
        self.sent: list[dict[str, Any]] = []
        self.view: dict[str, Any] = {}
        page.on("websocket", self._follow)

    def _follow(self, socket: Any) -> None:
        socket.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        socket.on("framereceived", self._received)

    def _received(self, payload: str | bytes) -> None:
        frame = json.loads(payload)
        if frame.get("type") == "view" and frame.get("seat") == ME:
            self.view = merged_view(self.view, frame)

    def last_move(self) -> str:
        return str(
            next(message["action"] for message in reversed(self.sent) if message["type"] == "act")
        )


def picked_set(cards: list[str]) -> str:
    """The engine's notation of the picked cards: what the move must say."""
    jokers = cards.count("X")
    numbers = [card for card in cards if card != "X"]
    played = CardSet(int(numbers[0]), len(numbers), jokers) if numbers else CardSet(14, 0, jokers)
    return set_to_string(played)


def choose_cards(view: dict[str, Any], rng: random.Random) -> list[str]:
    """A set from the hand, one that steals a top set when there is one (most of the time)."""
    hand: list[str] = view["hand"]
    jokers = hand.count("X")
    options = [
        [value] * count + ["X"] * added
        for value in sorted(set(hand) - {"X"}, key=int)
        for count in range(1, hand.count(value) + 1)
        for added in range(jokers + 1)
    ] + [["X"] * added for added in range(1, jokers + 1)]
    tops = [
        string_to_set(stack[-1])
        for seat, stack in enumerate(view["stacks"])
        if stack and seat != ME
    ]
    stealing = [
        cards
        for cards in options
        if any(can_steal(string_to_set(picked_set(cards)), top) for top in tops)
    ]
    return rng.choice(stealing if stealing and rng.random() < 0.85 else options)


def lay_by_picking(page: Page, socket: Socket, rng: random.Random, first: bool) -> None:
    """Pick the cards of a set in the hand, then Lay; the first time, see that two numbers make
    no set and that the picks outlast a chat line drawn meanwhile."""
    picks = page.locator("#dock [data-pick]")
    codes = [picks.nth(index).get_attribute("data-pick") or "" for index in range(picks.count())]
    assert codes == socket.view["hand"]
    assert page.get_attribute("#lay", "data-action") is None
    numbers = sorted({code for code in codes if code != "X"}, key=int)
    if first and len(numbers) >= 2:
        low, high = codes.index(numbers[0]), codes.index(numbers[-1])
        picks.nth(low).click()
        picks.nth(high).click()
        assert page.is_disabled("#lay") and page.get_attribute("#lay", "data-action") is None
        assert "Not a set" in page.inner_text("#lay-hint")
        picks.nth(low).click()
        picks.nth(high).click()
    cards = choose_cards(socket.view, rng)
    free = list(range(len(codes)))
    for card in cards:
        index = next(index for index in free if codes[index] == card)
        free.remove(index)
        picks.nth(index).click()
        assert picks.nth(index).get_attribute("aria-pressed") == "true"
    expected = f"set {picked_set(cards)}"
    assert page.get_attribute("#lay", "data-action") == expected
    if first:
        page.fill("#table-chat", "thinking")
        page.press("#table-chat", "Enter")
        page.wait_for_selector(".log .chat >> text=thinking")
        assert page.locator("#dock [data-pick][aria-pressed='true']").count() == len(cards)
        assert page.get_attribute("#lay", "data-action") == expected
    seq = board_seq(page)
    page.click("#lay")
    page.wait_for_function(f"document.querySelector('#board').dataset.seq !== '{seq}'")
    assert socket.last_move() == expected


def seat_wears(page: Page, seat: int, mark: str) -> bool:
    return bool(page.locator(f".seat[data-seat='{seat}'] .marker .{mark}").count())


def check_the_steal_choice(page: Page, socket: Socket, names: list[str]) -> None:
    """The thief sees the cards stolen beside Take and Decline; the paw and the star are theirs."""
    view = socket.view
    shown = page.locator("#steal-choice .abx-number").all_inner_texts()
    assert sorted(shown) == sorted(view["in_play"])
    assert page.locator("#steal-choice [data-action='take']").count() == 1
    assert page.locator("#steal-choice [data-action='decline']").count() == 1
    prompt = page.inner_text("#prompt")
    assert f"beats {names[view['victim']]}'s top set" in prompt and "or decline" in prompt
    assert seat_wears(page, ME, "abx-paw") and seat_wears(page, ME, "abx-star")
    assert page.locator("#steals li.pending .abx-number").count() == len(view["in_play"])
    screenshot(page, "abluxxen")


def check_the_victim_choice(page: Page, socket: Socket, names: list[str]) -> None:
    """The victim of a declined steal sees their set beside Keep and Discard, and wears the star;
    the thief keeps the paw."""
    view = socket.view
    shown = page.locator("#victim-choice .abx-number").all_inner_texts()
    assert sorted(shown) == sorted(view["in_play"])
    assert page.locator("#victim-choice [data-action='keep']").count() == 1
    assert page.locator("#victim-choice [data-action='discard']").count() == 1
    assert f"{names[view['active']]} declined your set" in page.inner_text("#prompt")
    assert seat_wears(page, ME, "abx-star") and not seat_wears(page, ME, "abx-paw")
    assert seat_wears(page, view["active"], "abx-paw")


def test_a_person_plays_abluxxen_to_the_end_and_replays_it(server: Server, page: Page) -> None:
    rng = random.Random(3)
    socket = Socket(page)
    sign_in(page, server, "Marie")
    table = start_table(page, "abluxxen", PLAYERS)
    page.wait_for_selector("#supply")
    names = ["Marie", *(page.inner_text(f".seat[data-seat='{seat}'] strong") for seat in (1, 2))]
    assert re.search(r"Pile: \d+ cards", page.inner_text("#supply"))
    assert 1 <= page.locator("#supply .abx-display .card").count() <= 6
    assert page.locator(".others .seat").count() == PLAYERS - 1

    laid = stole = drew = phone_checked = False
    for _ in range(4_000):
        if finished(page):
            break
        if not page.locator("#dock.my-turn [data-pick], #dock.my-turn [data-action]").count():
            page.wait_for_timeout(20)
            continue
        if page.locator("#dock [data-pick]").count():
            assert "lay a set" in page.inner_text("#prompt")
            assert seat_wears(page, ME, "abx-paw") and seat_wears(page, ME, "abx-star")
            if not phone_checked:
                page.set_viewport_size(PHONE)
                assert no_horizontal_overflow(page) == 0
                assert page.locator("#dock #hand [data-pick]").count() == len(socket.view["hand"])
                page.set_viewport_size(DESKTOP)
                phone_checked = True
            lay_by_picking(page, socket, rng, first=not laid)
            laid = True
            continue
        if page.locator("#steal-choice").count():
            check_the_steal_choice(page, socket, names)
            stole = True
        elif page.locator("#victim-choice").count():
            check_the_victim_choice(page, socket, names)
        elif page.locator("#draw-choice").count():
            assert re.match(r"Draw \d+ (more )?cards?", page.inner_text("#prompt"))
            assert "draws" in page.inner_text("#draw-note")
            assert seat_wears(page, ME, "abx-star")
            drew = True
        play_one_move(page, rng)
    assert finished(page), "the game did not end"
    assert laid and stole and phone_checked, (laid, stole, phone_checked)

    log = page.inner_text(".log")
    assert re.search(r"Marie lays \d+×\d+", log)
    assert re.search(r"Marie's .+? beats bot .+'s top set", log)
    assert re.search(r"Marie (takes .+? from|declines) bot", log)
    if drew:  # a robbed player who keeps their set draws nothing
        assert re.search(r"Marie (takes|draws) the \S+ from the (display|pile)", log)
    assert "Game 1 is over" in page.inner_text("#summary")
    assert page.locator(".sheet-panel .abx-sheet tbody tr").count() == 1
    assert page.locator("#end .ranking li").count() == PLAYERS

    steps = page.request.get(f"{server.url}/api/tables/{table}/replay").json()
    open_replay_and_step(page)
    assert page.locator("#replay-panel .seat").count() == PLAYERS
    assert page.locator("#replay-panel .abx-area").count() == PLAYERS
    page.click("#replay-previous")  # the first move of the game
    assert re.match(r".+ lays \S+", page.inner_text("#replay-words"))
    if "seats" in steps[0]:  # the replay shows every hand
        assert page.locator("#replay-panel .abx-revealed").count() == PLAYERS
