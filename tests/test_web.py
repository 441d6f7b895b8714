"""The web app as people use it, in Debian's chromium: what they type survives the frames,
every game fits a phone and passes axe, both languages render, the chat stays text, refusals
say why, two browsers play each other and a reload restores the table. A person plays
Wizard to the end (the other boards have their own test modules)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tapisvert.core.registry import game_names
from tapisvert.i18n import catalogue
from web_support import (
    PHONE,
    board_seq,
    browser,
    create_table,
    finished,
    needs_chromium,
    no_horizontal_overflow,
    open_replay_and_step,
    page,
    phone,
    play_one_move,
    play_to_the_end,
    screenshot,
    serious_violations,
    server,
    sign_in,
    start_table,
    watched_page,
)

from server_support import Server

__all__ = ["browser", "page", "phone", "server"]  # fixtures
pytestmark = needs_chromium
GAMES = game_names()


def bots_only_table(server: Server, game: str, players: int, clock: float = 1) -> int:
    """A started table where bots play every seat: its host, who never moves, has a clock of
    ``clock`` seconds and is then replaced by a bot."""
    token = server.guest(f"host-{game}-{random.randrange(10**6)}")
    created = server.call(
        token, "POST", "/api/tables", room="main", game=game, players=players, clock=clock
    )
    table = int(created.json()["table"])
    for _ in range(players - 1):
        server.call(token, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()
    server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()
    return table


def count_views(page: Page) -> list[int]:
    """A list that grows by one for each view frame the page receives."""
    received: list[int] = []

    def on_socket(socket: Any) -> None:
        socket.on(
            "framereceived",
            lambda payload: received.append(1) if '"type":"view"' in str(payload) else None,
        )

    page.on("websocket", on_socket)
    return received


def test_typing_choosing_and_focus_survive_thirty_moves_of_bots(server: Server, page: Page) -> None:
    views = count_views(page)
    sign_in(page, server, "typist-ana")
    table = bots_only_table(server, "wizard", 4)
    page.evaluate(f"location.hash = 'table={table}'")
    page.wait_for_selector("#board")
    page.click("#table-chat")
    page.keyboard.type("good luck all", delay=40)
    before = len(views)
    page.wait_for_timeout(100)
    while len(views) < before + 30:
        page.wait_for_timeout(50)
    assert page.input_value("#table-chat") == "good luck all"
    assert page.evaluate("document.activeElement.id") == "table-chat"
    # back in the lobby the frames of the table still arrive: the new-table form keeps its state
    page.click("#back")
    page.select_option("#new-game", "fzzzt")
    page.select_option("#new-players", "3")
    page.locator("[data-option='versus_scoring']").check()
    page.click("#room-chat")
    page.keyboard.type("anyone for Fzzzt?", delay=30)
    before = len(views)
    while len(views) < before + 30:
        page.wait_for_timeout(50)
    assert page.input_value("#new-game") == "fzzzt"
    assert page.input_value("#new-players") == "3"
    assert page.locator("[data-option='versus_scoring']").is_checked()
    assert page.input_value("#room-chat") == "anyone for Fzzzt?"
    assert page.evaluate("document.activeElement.id") == "room-chat"
    # the options that shrink a game for analysis wait folded away from those people play
    page.select_option("#new-game", "wizard")
    assert not page.locator("[data-option='suit_values']").is_visible()
    assert page.locator("[data-option='first_dealer']").is_visible()
    page.click("#shrinking-options summary")
    assert page.locator("[data-option='suit_values']").is_visible()


def test_a_person_plays_wizard_and_sees_each_trick_and_its_winner(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "web-wizard")
    start_table(page, "wizard", 3, {"rounds": "first5"})
    rng = random.Random(7)
    seen_winner = False
    moves = 0
    while not finished(page):
        moves += play_one_move(page, rng)
        if not seen_winner and page.locator("#trick-winner").count():
            # the completed trick is still on the table: every seat's card, the winner marked
            assert page.locator("#trick .played").count() == 3
            assert page.locator("#trick .played.won").count() == 1
            winner = page.inner_text("#trick .played.won figcaption")
            assert winner in page.inner_text("#trick-winner")
            seen_winner = True
        if moves == 4:
            screenshot(page, "wizard")
    assert seen_winner and moves > 5
    log = page.inner_text(".chat .log")
    assert "wins the trick" in log and " bids " in log and " plays " in log
    assert "Round 5 of 5" in page.inner_text("#board")
    screenshot(page, "end-screen")
    open_replay_and_step(page)
    assert page.locator("#replay-panel .seat").count() == 3
    page.click("#replay-next-trick")
    screenshot(page, "replay")


def test_the_move_clock_counts_down(server: Server, page: Page) -> None:
    sign_in(page, server, "clock-ana")
    page.select_option("#new-clock", "30")
    start_table(page, "wizard", 3)
    page.wait_for_selector("#dock.my-turn")
    first = page.inner_text("#status + .clock")
    page.wait_for_function(
        "first => document.querySelector('#status + .clock').innerText !== first", arg=first
    )
    assert "30 s per move" in page.inner_text("#table-options")


@pytest.mark.parametrize("game", GAMES)
def test_every_game_fits_a_phone_with_the_moves_in_sight(
    server: Server, phone: Page, game: str
) -> None:
    sign_in(phone, server, f"phone-{game}")
    assert no_horizontal_overflow(phone) == 0, "the lobby is wider than a phone"
    start_table(phone, game, 3)
    rng = random.Random(5)
    for _ in range(300):
        if phone.locator("#dock.my-turn [data-action], #dock.my-turn [data-pick]").count():
            break
        play_one_move(phone, rng) if rng.random() < 0.3 else phone.wait_for_timeout(50)
    control = phone.locator("#dock.my-turn [data-action], #dock.my-turn [data-pick]").first
    # the page scrolls the dock into sight when the turn comes: wait for the scroll to end
    expect(control).to_be_in_viewport(ratio=1.0)
    box = control.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
    assert no_horizontal_overflow(phone) == 0, f"the {game} table is wider than a phone"
    screenshot(phone, f"{game}-phone")
    phone.click("#rules")
    assert no_horizontal_overflow(phone) == 0


FIXED_FINDINGS = ("page-has-heading-one", "empty-table-header", "aria-prohibited-attr")
"""Lesser findings of axe once made here, checked whatever their impact."""


@pytest.mark.parametrize("game", GAMES)
def test_axe_finds_nothing_serious_in_the_lobby_and_at_a_table(
    server: Server, page: Page, game: str
) -> None:
    sign_in(page, server, f"axe-{game}")
    assert serious_violations(page, FIXED_FINDINGS) == []
    start_table(page, game, 3)
    rng = random.Random(2)
    for _ in range(12):
        play_one_move(page, rng)
    page.wait_for_selector(".sheet-panel table")
    assert serious_violations(page, FIXED_FINDINGS) == []
    page.click("#rules")  # its Close button was near-white on white (1.06:1)
    page.wait_for_selector("dialog.rules article h1, dialog.rules article h2")
    assert serious_violations(page) == []
    page.click("dialog.rules button.primary")
    assert not page.is_visible("dialog.rules")


@pytest.mark.parametrize("game", GAMES)
def test_french_tables_have_every_text(server: Server, page: Page, game: str) -> None:
    page.goto(server.url)
    page.click("#language")
    page.wait_for_selector("text=Jouer en invité")
    assert page.evaluate("document.documentElement.lang") == "fr"
    page.fill("#name", f"fr-{game}")
    page.click("#guest")
    page.wait_for_selector("text=Nouvelle table")
    start_table(page, game, 3)
    rng = random.Random(4)
    for _ in range(20):
        play_one_move(page, rng)
    assert "Retour au salon" in page.inner_text("#back")
    told = page.locator(".log .move").all_inner_texts()
    page.click("#language")
    page.wait_for_selector("text=Back to the lobby")  # the page fixture fails on any missing key
    retold = page.locator(".log .move").all_inner_texts()
    french, english = log_fragments(game, "fr"), log_fragments(game, "en")
    assert len(retold) >= len(told) > 0  # the bots play on meanwhile
    assert any(fragment in line for line in told for fragment in french - english)
    assert any(fragment in line for line in retold for fragment in english - french)
    assert not [line for line in retold for fragment in french - english if fragment in line]


def log_fragments(game: str, language: str) -> set[str]:
    """The words of a board's log lines in one language, between their placeholders."""
    texts = catalogue(language)
    return {
        fragment.strip()
        for key, template in texts.items()
        if key.startswith(f"{game}.board.log_")
        for fragment in re.split(r"\{\w+\}", template)
        if len(fragment.strip()) >= 4
    }


def test_names_and_chat_are_text_and_refusals_show_their_reason(server: Server, page: Page) -> None:
    sign_in(page, server, "chat-ana")
    hostile = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
    page.fill("#room-chat", hostile)
    page.press("#room-chat", "Enter")
    page.wait_for_selector("text=window.__xss = 1")
    assert page.evaluate("window.__xss") is None
    assert page.locator(".log img, .log script").count() == 0
    page.fill("#room-chat", "/frobnicate")
    page.press("#room-chat", "Enter")
    page.wait_for_selector("#notice")
    assert "/frobnicate" in page.inner_text("#notice")


def test_an_account_signs_in_and_errors_speak_to_players(server: Server, browser: Browser) -> None:
    page, problems = watched_page(browser, viewport=PHONE, is_mobile=True)
    try:
        page.goto(server.url)
        page.click("#guest")
        page.wait_for_selector("#notice")
        assert "name" in page.inner_text("#notice").lower()
        assert "body." not in page.inner_text("#notice")
        page.fill("#name", "phone-zoe")
        page.fill("#password", "zoe-secret")
        page.click("#register")
        page.wait_for_selector("#create")
        token = page.evaluate("localStorage.getItem('token')")
        assert server.call(token, "POST", "/api/tables", game="luz", players=3).status_code == 200
        page.click("text=Sign out")
        page.wait_for_selector("#login")
        assert page.evaluate("localStorage.getItem('token')") is None
        # the server ended the session: the token is no good to anyone who copied it
        assert server.call(token, "POST", "/api/tables", game="luz", players=3).status_code == 401
        page.fill("#name", "phone-zoe")
        page.fill("#password", "wrong-one")
        page.click("#login")
        page.wait_for_selector("#notice")
        assert "wrong name or password" in page.inner_text("#notice")
        page.fill("#password", "zoe-secret")
        page.click("#login")
        page.wait_for_selector("#create")
        assert not page.locator("#notice").count() or "wrong" not in page.inner_text("#notice")
        assert "null" not in page.inner_text("#bar")
    finally:
        page.context.close()
    assert not problems, problems


def test_two_browsers_play_each_other_and_a_reload_restores_table_and_chat(
    server: Server, browser: Browser
) -> None:
    (first, first_problems), (second, second_problems) = (watched_page(browser) for _ in range(2))
    try:
        sign_in(first, server, "duo-ana")
        first.select_option("#new-game", "luz")
        first.select_option("#new-players", "3")
        first.click("#create")
        first.wait_for_selector("#add-bot")
        table = first.evaluate("location.hash")
        sign_in(second, server, "duo-bob")
        second.goto(f"{server.url}/{table}")
        second.click("text=Sit down")
        first.wait_for_selector("text=duo-bob")
        first.click("#add-bot")
        first.wait_for_function("document.querySelectorAll('.seat-list .chip').length == 1")
        first.click("#start")
        first.wait_for_selector("#board")
        second.wait_for_selector("#board")
        second.fill("#table-chat", "hello from bob")
        second.press("#table-chat", "Enter")
        first.wait_for_selector("text=hello from bob")
        rng = random.Random(3)
        moves = 0
        reloaded = False
        for _ in range(20_000):
            if finished(first) and finished(second):
                break
            for player in (first, second):
                if not finished(player):
                    moves += play_one_move(player, rng)
            # late enough that the chat line lies far back in the log, behind the moves
            told = second.locator(".chat .log .move").count() if not reloaded else 0
            if told >= 70 and not reloaded:
                before = second.get_attribute("#board", "data-seq")
                second.reload()
                second.wait_for_selector("#board")
                # the same game, at the same move or later (a bot may have moved meanwhile)
                assert int(str(second.get_attribute("#board", "data-seq"))) >= int(str(before))
                assert "duo-bob" in second.inner_text("#dock .seat-name")
                assert second.locator("#dock .seat-name .you").count() == 1
                second.wait_for_selector("text=hello from bob")
                assert second.locator(".chat .log .move").count() >= 5  # the moves told before
                assert second.locator(".chat .log >> text=hello from bob").count() == 1
                notices = second.locator(".chat .log .notice").all_inner_texts()
                assert len(notices) == len(set(notices)), notices  # none told again
                reloaded = True
        assert reloaded and finished(first) and finished(second)
        assert first.inner_text("#status") == second.inner_text("#status")
        # the same ranking, each person's own place marked "(you)"
        ranking = [each.inner_text(".ranking").replace("\n(you)", "") for each in (first, second)]
        assert json.dumps(ranking[0]) == json.dumps(ranking[1])
        assert [each.locator(".ranking .you").count() for each in (first, second)] == [1, 1]
    finally:
        first.context.close()
        second.context.close()
    assert not first_problems and not second_problems, first_problems + second_problems


def test_a_person_finds_their_table_from_the_lobby(server: Server, page: Page) -> None:
    sign_in(page, server, "back-ana")
    table = start_table(page, "wizard", 3)
    page.click("#back")
    page.wait_for_selector("#my-tables")
    page.wait_for_selector(f"#my-tables [data-table='{table}'].waiting")
    # the title follows the lobby's render (an effect, after the page is drawn)
    page.wait_for_function("document.title.includes('Your turn')", timeout=5000)
    assert page.title().startswith("● Your turn")
    page.click(f"#my-tables [data-table='{table}'] >> text=Open")
    page.wait_for_selector("#dock.my-turn")


def test_the_replay_shows_every_hand_and_a_rematch_seats_the_same_people(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "again-ana")
    table = start_table(page, "wizard", 3, {"rounds": "2"})
    play_to_the_end(page, random.Random(9))
    open_replay_and_step(page)
    # once the game is over every hand is shown: three seats, cards before each
    assert page.locator("#replay-panel .seat .hand.revealed").count() == 3
    assert page.locator("#replay-panel .seat .hand.revealed .card").count() >= 3
    page.click("#rematch")
    page.wait_for_function(f"location.hash !== '#table={table}'")
    page.wait_for_selector(".seat-list")
    seats = page.locator(".seat-list li").all_inner_texts()
    assert "again-ana" in seats[1], seats  # one seat along
    assert sum("bot easy" in seat for seat in seats) == 2


def test_options_are_chosen_with_controls_and_shown_at_the_table(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "options-ana")
    page.select_option("#new-game", "luz")
    assert page.locator("[data-option='first_player'] option").count() == 1 + 4  # random, P1..P4
    create_table(page, "luz", 3, {"first_player": "P2", "first_player_rotates": "false"})
    chips = page.inner_text("#table-options")
    assert "Seat 2" in chips and "3 players" in chips
    assert page.locator("#table-options .chip").count() == 3  # players, and the two options


@pytest.mark.parametrize("game", GAMES)
def test_nothing_animates_twice_while_bots_play(server: Server, page: Page, game: str) -> None:
    """A card played comes down once; nothing else moves when a frame redraws the table: at
    most one animation per move, however many cards are on the table."""
    sign_in(page, server, f"calm-{game}")
    # once the host's clock has run out, the bots can play a whole short game in a second or two:
    # a clock of five seconds leaves the page the time to draw the table and settle first
    table = bots_only_table(server, game, 3, clock=5)
    page.evaluate(f"location.hash = 'table={table}'")
    page.wait_for_selector("#board")
    # the table's first drawing animates its cards: the watch starts once that is over
    page.wait_for_function("document.getAnimations().length === 0")
    page.evaluate(
        "window.__animations = 0;"
        "window.__first = Number(document.querySelector('#board').dataset.seq);"
        "document.addEventListener('animationstart', () => window.__animations++)"
    )
    # forty moves, however long the bots take, or the end of a short game: the bound of one
    # animation a move holds over many moves, not over a handful (ten moves of Luz may start
    # more)
    page.wait_for_function(
        "document.querySelector('#end') !== null"
        " || Number(document.querySelector('#board').dataset.seq) - window.__first >= 40",
        timeout=240_000,
    )
    moves, animations = page.evaluate(  # at one instant: no move between the two counts
        "[Number(document.querySelector('#board').dataset.seq) - window.__first,"
        " window.__animations]"
    )
    cards = page.locator(".card").count()
    assert moves >= 10, f"only {moves} moves were watched"
    assert animations <= moves, (animations, moves, cards)


def test_sign_in_end_screen_and_replay_fit_a_phone(server: Server, phone: Page) -> None:
    phone.goto(server.url)
    phone.wait_for_selector("#guest")
    assert no_horizontal_overflow(phone) == 0, "the sign-in page is wider than a phone"
    phone.fill("#name", "phone-end")
    phone.click("#guest")
    phone.wait_for_selector("#create")
    start_table(phone, "wizard", 3, {"rounds": "2"})
    play_to_the_end(phone, random.Random(8))
    assert no_horizontal_overflow(phone) == 0, "the end screen is wider than a phone"
    open_replay_and_step(phone)
    assert no_horizontal_overflow(phone) == 0, "the replay is wider than a phone"


def test_a_person_who_left_a_game_takes_their_seat_back_from_the_lobby(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "leaver-ana")
    table = start_table(page, "wizard", 3, {"rounds": "first5"})
    page.once("dialog", lambda dialog: dialog.accept())  # leaving a running game asks first
    page.click("#leave")
    page.wait_for_selector(f"#my-tables [data-table='{table}']")
    page.click(f"#my-tables [data-table='{table}'] >> text=Open")
    page.click("#take-back")
    page.wait_for_selector("#dock .seat-name .you")
    assert "leaver-ana" in page.inner_text("#dock .seat-name")
    page.wait_for_selector("#take-back", state="detached")  # the seat is theirs again


def test_what_is_asked_while_the_page_reconnects_is_sent_once_it_is_back(
    server: Server, page: Page
) -> None:
    sign_in(page, server, "switch-ana")
    page.click("#language")  # the page reconnects to be answered in French
    page.click("#create")  # at once, before the server said welcome again
    page.wait_for_selector("#add-bot")
    assert "Places" in page.inner_text(".seating")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_misclick_is_taken_back_at_an_unrated_table(
    server: Server, browser: Browser, size: str
) -> None:
    """The button shows once the person has a move to take back; a click brings their hand and
    the board back to before it, and the log says so."""
    phone_size = size == "phone"
    page, problems = watched_page(
        browser, **({"viewport": PHONE, "is_mobile": True, "has_touch": True} if phone_size else {})
    )
    sign_in(page, server, f"undo-{size}")
    page.set_checked("#new-rated", False)
    start_table(page, "wizard", 3, {"rounds": "first5"})
    rng = random.Random(5)
    my_turn = "#dock.my-turn"
    for _ in range(30):  # until a move of this person's meets no new card before their turn
        page.wait_for_selector(my_turn)
        before_seq, before_hand = board_seq(page), page.inner_text("#dock")
        while not play_one_move(page, rng):
            pass
        page.wait_for_selector(f"{my_turn}, #end")
        if page.locator("#take-back-button").count():
            break
    page.wait_for_selector(my_turn)
    button = page.locator("#take-back-button")
    expect(button).to_be_visible()
    expect(button).to_be_in_viewport()
    screenshot(page, f"take-back{'-phone' if phone_size else ''}")
    button.click()
    page.wait_for_function(f"document.querySelector('#board')?.dataset.seq === '{before_seq}'")
    assert page.inner_text("#dock") == before_hand  # the button too, if an earlier move may go
    expect(page.locator(".chat .log")).to_contain_text(f"undo-{size} took back their last move")
    page.context.close()
    assert not problems, sorted(set(problems))[:20]


def test_at_a_rated_table_a_move_is_taken_back_once_the_other_player_agrees(
    server: Server, browser: Browser
) -> None:
    (first, first_problems), (second, second_problems) = (watched_page(browser) for _ in range(2))
    sign_in(first, server, "rated-ana")
    first.select_option("#new-game", "abluxxen")
    first.select_option("#new-players", "2")
    first.click("#create")
    first.wait_for_selector("#add-bot")
    sign_in(second, server, "rated-bob")
    second.goto(f"{server.url}/{first.evaluate('location.hash')}")
    second.click("text=Sit down")
    first.wait_for_selector("text=rated-bob")
    first.click("#start")
    rng = random.Random(4)
    found = None
    for _ in range(500):  # until someone's move is followed by the other's turn, no card drawn
        for mover, other in ((first, second), (second, first)):
            mover.wait_for_selector("#board")
            seq = board_seq(mover)
            if play_one_move(mover, rng) and mover.locator("#take-back-button").count():
                found = mover, other, seq
                break
        if found:
            break
    assert found is not None, "no move could be taken back"
    mover, other, seq = found
    mover.click("#take-back-button")
    expect(mover.locator("#take-back")).to_contain_text("waiting for the other players to agree")
    asking = other.locator("#take-back")
    expect(asking).to_contain_text("asks to take back their last move")
    screenshot(other, "take-back-asked")
    asking.get_by_role("button", name="Agree").click()
    for each in (mover, other):
        each.wait_for_function(f"document.querySelector('#board')?.dataset.seq === '{seq}'")
        expect(each.locator(".chat .log")).to_contain_text("took back their last move")
    for each, problems in ((first, first_problems), (second, second_problems)):
        each.context.close()
        assert not problems, sorted(set(problems))[:20]
