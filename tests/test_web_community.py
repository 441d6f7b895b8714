"""In the browser: rating changes at the end of a game, profiles whose games open their
replay, leaderboards, invitation links, presence and unrated tables."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from web_support import (
    DESKTOP,
    PHONE,
    browser,
    create_table,
    needs_chromium,
    no_horizontal_overflow,
    page,
    phone,
    play_to_the_end,
    register,
    screenshot,
    serious_violations,
    sign_in,
    start_table,
    watched_page,
)

from server_support import Server, serving

__all__ = ["browser", "page", "phone"]  # fixtures
pytestmark = needs_chromium
SHORT = {"rounds": "1"}


def avatar_contrast(page: Page) -> float:
    """The contrast ratio of the profile avatar's white initials on its background (WCAG)."""
    colours = page.eval_on_selector(
        "#profile .avatar",
        "node => [getComputedStyle(node).color, getComputedStyle(node).backgroundColor]",
    )

    def luminance(css: str) -> float:
        channels = [int(part) / 255 for part in css[css.index("(") + 1 : -1].split(",")[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    lighter, darker = sorted(map(luminance, colours), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Listed on a leaderboard after one rated game, so that one game shows it."""
    settings = {"bot-delay": 0.05, "leaderboard-min-games": 1}
    with serving(tmp_path_factory.mktemp("community"), **settings) as running:
        yield running


def test_the_end_shows_each_rating_change_and_a_profile_opens_the_replay(
    server: Server, page: Page
) -> None:
    register(page, server, "web-rated")
    table = start_table(page, "wizard", 3, SHORT)  # two easy bots: their account counts once
    play_to_the_end(page, random.Random(3))
    page.wait_for_selector("#end .rating-change")
    changes = page.locator("#end .rating-change").all_inner_texts()
    assert len(changes) == 2 and all(text.startswith("rating 0.0 → ") for text in changes)
    assert page.locator("#end .chip", has_text="not rated").count() == 1  # the second easy bot
    mine = page.inner_text("#end [data-seat='0']")
    assert "web-rated" in mine and "(you)" in mine and "rating 0.0 → " in mine
    assert "Ratings changed" in page.inner_text("#end")
    places = page.locator("#end .ranking li").evaluate_all(
        "items => items.map(i => i.dataset.seat)"
    )
    screenshot(page, "rating-changes")

    page.click("#end [data-seat='0'] a.player")
    page.wait_for_selector("#profile-ratings")
    assert "Wizard" in page.inner_text("#profile-ratings")
    assert "1 played" in page.inner_text("#profile")
    entry = page.locator(f"#history [data-table='{table}']")
    assert "place " in entry.inner_text() and "with bot easy, bot easy 2" in entry.inner_text()
    # who one is: initials in a circle, the week's games, the rating over time
    avatar = page.locator("#profile .avatar")
    assert avatar.inner_text() == "WR" and avatar.get_attribute("aria-hidden") == "true"
    assert avatar_contrast(page) >= 4.5
    assert page.inner_text("#profile-week") == "1 game played in the last seven days"
    rating = page.locator("#profile-ratings tbody td").first.inner_text()
    graph = page.locator("#rating-graphs .rating-graph[data-game='wizard'] svg")
    assert graph.is_visible() and graph.locator("circle").count() == 1
    label = graph.get_attribute("aria-label")
    assert label == f"Wizard rating over the latest rated game: from 0.0 to {rating}"
    assert page.locator("#bot-strength").count() == 0  # a person's profile
    screenshot(page, "profile")
    page.goto(f"{server.url}/#player=bot%20easy")  # a bot's profile says how strong it is
    page.wait_for_selector("#bot-strength")
    assert page.inner_text("#bot-strength").startswith("Level easy: plays by each game's rules")
    assert page.locator("#profile .avatar").inner_text() == "BE"
    assert avatar_contrast(page) >= 4.5
    bot_graph = page.locator("#rating-graphs .rating-graph[data-game='wizard'] svg")
    assert bot_graph.is_visible() and bot_graph.locator("polyline").count() == 1
    screenshot(page, "profile-bot")
    page.go_back()
    page.wait_for_selector(f"#history [data-table='{table}']")
    entry.locator("a.button").click()
    page.wait_for_selector("#replay-panel")
    assert page.locator("#final .rating-change").count() == 2  # the result, as at the end
    assert page.locator("#final .chip", has_text="not rated").count() == 1
    assert page.locator("#final li").evaluate_all("items => items.map(i => i.dataset.seat)") == (
        places  # by place, as at the end
    )
    assert page.inner_text("#final li >> nth=0").startswith("Place 1")
    page.wait_for_selector(".sheet-panel table")  # the game's score sheet, as at the table
    assert page.locator("#replay-panel .seat .hand.revealed").count() == 3
    page.click("#replay-next")
    page.click("#replay-next")
    screenshot(page, "profile-replay")


def test_a_person_is_online_as_soon_as_their_page_is_connected(server: Server, page: Page) -> None:
    """Sooner than the lobby's 10 s refresh: the page asks again once its socket is connected."""
    sign_in(page, server, "web-early")
    page.wait_for_selector("#presence >> text=web-early", timeout=3_000)
    page.goto(f"{server.url}/#player=web-early")
    page.reload()  # the profile is the first page: asked for before the socket connects
    page.wait_for_selector("#profile .chip.online", timeout=3_000)


def test_a_leaderboard_per_game_in_the_web_app(server: Server, page: Page) -> None:
    register(page, server, "web-board")
    start_table(page, "wizard", 3, SHORT)
    play_to_the_end(page, random.Random(4))
    page.click("#leaderboards")
    page.click("#leaderboard .games-nav >> text=Wizard")
    page.wait_for_selector("#leaderboard table")
    rows = page.locator("#leaderboard tbody tr").all_inner_texts()
    assert any("web-board" in row for row in rows) and any("bot easy" in row for row in rows)
    assert page.locator("#leaderboard tr.mine").count() == 1
    screenshot(page, "leaderboard")
    page.click("#leaderboard .games-nav >> text=Luz")
    page.wait_for_function("location.hash === '#leaderboard=luz'")
    page.wait_for_selector("#leaderboard >> text=Nobody has played enough")


def test_an_invitation_link_seats_a_guest_after_signing_in(
    server: Server, page: Page, browser: Browser
) -> None:
    sign_in(page, server, "web-host")
    table = create_table(page, "luz", 3)
    link = page.input_value("#invite-link")
    assert link == f"{server.url}/#join={table}"
    screenshot(page, "invitation")
    friend, problems = watched_page(browser, viewport=DESKTOP)
    try:
        friend.goto(link)
        friend.wait_for_selector("#invited")
        assert f"table {table}" in friend.inner_text("#invited")
        friend.fill("#name", "web-friend")
        friend.click("#guest")
        friend.wait_for_function(f"location.hash === '#table={table}'")
        friend.wait_for_selector(".seat-list >> text=web-friend")
        page.wait_for_selector(".seat-list >> text=web-friend")  # the host sees them sit
        assert friend.is_visible("#leave")  # a seat taken before the start may be left
        # the presence panel of a third person links to the table
        page.click("#back")
        page.wait_for_selector("#presence >> text=web-friend")
        present = page.locator("#presence li", has_text="web-friend")
        assert f"playing at #{table}" in present.inner_text()
        screenshot(page, "presence")
        present.locator("a.chip").click()
        page.wait_for_function(f"location.hash === '#table={table}'")
    finally:
        friend.context.close()
    assert not problems, problems


def test_a_table_may_be_unrated_and_says_so(server: Server, page: Page) -> None:
    register(page, server, "web-unrated")
    page.uncheck("#new-rated")
    table = create_table(page, "wizard", 3, SHORT)
    assert page.inner_text("#unrated") == "unrated"
    page.click("#add-bot")
    page.click("#add-bot")
    page.click("#start")
    play_to_the_end(page, random.Random(5))
    assert "nobody's rating changes" in page.inner_text("#end")
    assert page.locator("#end .rating-change").count() == 0
    page.click("#end a.button")  # back to the lobby, where the table says so too
    page.click("#finished-tables summary")  # among the finished ones, folded
    assert "unrated" in page.locator(f".tables [data-table='{table}']").inner_text()


def test_profile_and_leaderboard_fit_a_phone(server: Server, phone: Page) -> None:
    register(phone, server, "phone-rated")
    start_table(phone, "wizard", 3, SHORT)
    play_to_the_end(phone, random.Random(6))
    phone.wait_for_selector("#end .rating-change")
    assert no_horizontal_overflow(phone) == 0, "the end screen is wider than a phone"
    phone.goto(f"{server.url}/#player=phone-rated")
    phone.wait_for_selector("#history li")
    assert no_horizontal_overflow(phone) == 0, "the profile is wider than a phone"
    graph = phone.locator("#rating-graphs svg").bounding_box()
    assert graph is not None and graph["x"] >= 0 and graph["x"] + graph["width"] <= PHONE["width"]
    screenshot(phone, "profile-phone")
    phone.goto(f"{server.url}/#leaderboard=wizard")
    phone.wait_for_selector("#leaderboard table")
    assert no_horizontal_overflow(phone) == 0, "the leaderboard is wider than a phone"
    assert phone.viewport_size == PHONE


def test_an_invitation_to_a_table_already_playing_opens_it_to_watch(
    server: Server, page: Page, browser: Browser
) -> None:
    sign_in(page, server, "web-busy")
    table = start_table(page, "wizard", 3)
    friend, problems = watched_page(browser, viewport=DESKTOP)
    try:
        friend.goto(f"{server.url}/#join={table}")
        friend.fill("#name", "web-late")
        friend.click("#guest")
        friend.wait_for_selector("#board")
        assert friend.evaluate("location.hash") == f"#table={table}"
        assert f"Table {table} has no free seat" in friend.inner_text("#notice")
        assert friend.locator("#dock").count() == 0  # watching, not seated
        # a link opened in a page already signed in: the invitation is accepted there and then
        friend.click("#back")
        friend.wait_for_selector("#create")
        friend.goto(f"{server.url}/#join={table}")
        friend.wait_for_selector("#board")
        assert friend.evaluate("location.hash") == f"#table={table}"
    finally:
        friend.context.close()
    assert not problems, problems


def test_the_new_pages_have_their_french_texts_and_nothing_serious_for_axe(
    server: Server, page: Page
) -> None:
    register(page, server, "web-axe")
    start_table(page, "wizard", 3, SHORT)
    play_to_the_end(page, random.Random(7))
    page.wait_for_selector("#end .rating-change")
    assert serious_violations(page) == []
    page.click("#language")
    page.wait_for_selector("#end >> text=cote 0,0 → ")  # a decimal comma in French
    page.click("#end [data-seat='0'] a.player")
    page.wait_for_selector("#profile-ratings")
    assert "Parties terminées" in page.inner_text("#profile")
    assert page.inner_text("#profile-week") == "1 partie jouée ces sept derniers jours"
    label = page.get_attribute("#rating-graphs svg", "aria-label")
    assert label is not None and label.startswith(
        "Cote à Wizard sur la dernière partie classée : de 0,0 à "
    )
    assert serious_violations(page) == []
    page.click("#leaderboards")
    page.click("#leaderboard .games-nav >> text=Wizard")
    page.wait_for_selector("#leaderboard table")
    assert "Classement" in page.inner_text("#leaderboard")
    assert serious_violations(page) == []
    page.click("#back")
    page.wait_for_selector("#presence >> text=web-axe")
    assert "En ligne" in page.inner_text("#presence")
    assert serious_violations(page) == []  # the page fixture fails on any missing text


def test_a_person_changes_their_password_on_their_profile(server: Server, page: Page) -> None:
    register(page, server, "web-keys")
    other = server.http.post(
        f"{server.url}/api/login", json={"name": "web-keys", "password": "secret-enough"}
    ).json()["token"]
    page.click("a.me")
    page.wait_for_selector("#password-form")
    page.fill("#old-password", "not the one")
    page.fill("#new-password", "brand-new-one")
    page.click("#change-password")
    page.wait_for_selector("#notice")
    assert "wrong name or password" in page.inner_text("#notice")
    page.fill("#old-password", "secret-enough")
    page.click("#change-password")
    page.wait_for_selector("#notice:has-text('Password changed')")
    assert page.input_value("#old-password") == "" and page.input_value("#new-password") == ""
    mine = page.evaluate("localStorage.getItem('token')")
    assert server.call(mine, "POST", "/api/tables", game="luz", players=3).status_code == 200
    assert server.call(other, "POST", "/api/tables", game="luz", players=3).status_code == 401
    screenshot(page, "password")


def test_the_replay_reviews_a_seats_decisions_and_leads_to_the_costliest(
    server: Server, page: Page
) -> None:
    register(page, server, "web-reviewed")
    start_table(page, "wizard", 3, SHORT)
    play_to_the_end(page, random.Random(11))
    page.click("#end #replay")
    page.wait_for_selector("#review")
    assert page.input_value("#review-seat") == "0"  # one's own seat first
    page.click("#review-ask")
    page.wait_for_selector("#review-summary", timeout=120_000)
    summary = page.inner_text("#review-summary")
    # a bid and a card, and the trump where a Wizard turned up at the person's own deal
    assert summary.startswith(("web-reviewed: 2 decisions reviewed", "web-reviewed: 3 decisions"))
    if page.locator("#review-costly").count():
        costliest = page.locator("#review-costly button").first
        step = costliest.inner_text().removeprefix("Step ").rstrip(":")
        costliest.click()
        page.wait_for_selector("#review-here")
        assert f"Step {step} of " in page.inner_text("#replay-panel .replay-controls")
        here = page.inner_text("#review-here")
        assert here.startswith("Here, ") and " cost about " in here
        # moves in words, not notation: a bid, a card, or the trump chosen after a Wizard
        assert "bidding " in here or "playing " in here or " as trump" in here
    else:
        assert "No decision lost points" in page.inner_text("#review")
    page.select_option("#review-seat", "1")
    page.click("#review-ask")
    page.wait_for_selector("#review-summary:has-text('bot')", timeout=120_000)
    page.select_option("#review-seat", "0")  # a review once made stays at hand
    assert page.inner_text("#review-summary").startswith("web-reviewed:")
    screenshot(page, "review")


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_board_says_its_moves_in_words(server: Server, page: Page, language: str) -> None:
    """What a review shows: moves in words, from each board's catalogue, in both languages."""
    warnings: list[str] = []
    page.on("console", lambda message: warnings.append(message.text))
    page.add_init_script(f"localStorage.setItem('lang', '{language}')")
    page.goto(server.url)
    page.wait_for_selector("#guest")
    moves = {
        "wizard": ["bid 2", "play W", "play B7", "trump R"],
        "luz": ["bet 3", "bet 2+", "play Y7"],
        "abluxxen": [
            "set 7x2+J",
            "take",
            "decline",
            "keep",
            "discard",
            "draw pile",
            "draw display 2",
        ],
        "fzzzt": ["bid M1 R17", "place R17 on P01", "place chit N on P01", "done"],
    }
    said = page.evaluate(
        """async (moves) => Object.fromEntries(await Promise.all(Object.entries(moves).map(
            async ([game, list]) => [game,
              list.map((await import(`/games/${game}.js`)).default.moveWords)])))""",
        moves,
    )
    for game, words in said.items():
        for move, text in zip(moves[game], words, strict=True):
            assert text and text != move and "undefined" not in text, (game, move, text)
    assert not [warning for warning in warnings if "missing catalogue key" in warning]
