"""The rules for players: one document per game and language, rendered safely, served."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from importlib.resources import files

import httpx
import pytest
from fastapi import FastAPI

import tapisvert
from tapisvert.core.registry import plugin
from tapisvert.i18n import LANGUAGES, catalogue
from tapisvert.rules_pages import render_markdown, rules_html, rules_markdown
from tapisvert.server.app import create_app

from server_support import sqlite_url

GAMES = tapisvert.game_names()
PAGES = [(game, language) for game in GAMES for language in LANGUAGES]

# The headings every document has, in each language: what a newcomer needs to learn the game.
SECTIONS = {
    "en": ("Goal", "Set-up", "Scoring", "End of the game", "Table options"),
    "fr": ("But du jeu", "Mise en place", "Décompte", "Fin de la partie", "Options de table"),
}
# Sentences that must be in a page: the rules players most often ask about (a new game adds its).
MUST_SAY = {
    ("wizard", "en"): ("the first Wizard played", "20 points, plus 10 points for each trick"),
    ("wizard", "fr"): ("le premier Sorcier posé", "20 points, plus 10 points par pli"),
    ("luz", "en"): ("always trump", "the <strong>highest yellow</strong> card wins", "safety bead"),
    ("luz", "fr"): (
        "toujours atout",
        "le <strong>jaune le plus fort</strong>",
        "bille de sécurité",
    ),
    ("abluxxen", "en"): (
        "<strong>take</strong>",
        "<strong>decline</strong>",
        "<strong>keep</strong>",
    ),
    ("abluxxen", "fr"): (
        "<strong>prend</strong>",
        "<strong>refuse</strong>",
        "<strong>garde</strong>",
    ),
    ("fzzzt", "en"): ("Production units", "Completing a production unit", "nut", "Belt number"),
    ("fzzzt", "fr"): ("unités de production", "Compléter une unité de production", "écrou"),
}


def test_every_game_has_rules_in_every_language() -> None:
    for game, language in PAGES:
        assert files(plugin(game).rules).joinpath(f"rules.{language}.md").is_file(), game


@pytest.mark.parametrize(("game", "language"), PAGES)
def test_a_page_renders_with_the_sections_a_player_needs(game: str, language: str) -> None:
    page = rules_html(game, language)
    headings = re.findall(r"<h[23]>(.*?)</h[23]>", page)
    for section in SECTIONS[language]:
        assert section in headings, (game, language, section)
    assert "<table>" in page
    for text in MUST_SAY.get((game, language), ()):
        assert text in page, (game, language, text)


@pytest.mark.parametrize(("game", "language"), PAGES)
def test_a_page_names_every_table_option_of_its_game(game: str, language: str) -> None:
    page = rules_markdown(game, language)
    options = [spec.name for spec in tapisvert.load_game(game).option_specs]
    assert options
    for option in options:
        assert f"`{option}`" in page, (game, language, option)


def test_the_luz_page_explains_trump_the_table_and_the_safety_bead_with_examples() -> None:
    page = rules_markdown("luz", "en")
    assert "Yellow is the permanent trump" in page
    assert "`R7` led, then `R10`, `Y2`, `B9`: the yellow 2 wins" in page
    assert "| bet made, no safety bead | 10 | 20 | 30 | 40 |" in page
    assert "| bet made with the safety bead | 5 | 10 | 15 | 20 |" in page
    assert "3 tricks: +10 as well, thanks to the bead" in page


def test_the_fzzzt_page_explains_cards_and_production_units() -> None:
    page = rules_markdown("fzzzt", "en")
    for code in ("`M1`", "`S1a`", "`R07`", "`U1`", "`F1`", "`P03`"):
        assert code in page, code
    assert "completed twice, **+10**" in page
    assert "a unit\n  never completed **costs its value**" in page
    assert "**Total: 13.**" in page


@pytest.mark.parametrize(("game", "language"), PAGES)
def test_a_page_links_nowhere_and_carries_no_raw_html(game: str, language: str) -> None:
    text = rules_markdown(game, language)
    page = rules_html(game, language)
    assert "<a " not in page and "<img" not in page
    assert not re.search(r"https?://|www\.|\.\./|\]\(", text)
    # Every tag in the page comes from Markdown, none from the document itself.
    allowed = {"h1", "h2", "h3", "p", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th"}
    allowed |= {"td", "strong", "em", "code"}
    tags = set(re.findall(r"</?([a-z0-9]+)[^>]*>", page))
    assert tags <= allowed, tags - allowed


def test_raw_html_is_escaped_not_passed_through() -> None:
    page = render_markdown(
        '# Rules\n\n<script>alert("x")</script>\n\nText with <b onclick="x()">a tag</b>.\n\n'
        "[a link](javascript:alert(1))\n"
    )
    assert "<script>" not in page and "<b " not in page
    assert "&lt;script&gt;" in page and "&lt;b onclick" in page
    assert "<a " not in page and "href" not in page


def test_an_unknown_game_or_language_is_refused() -> None:
    with pytest.raises(LookupError):
        rules_html("chess", "en")
    with pytest.raises(LookupError):
        rules_html("../wizard", "en")
    with pytest.raises(LookupError):
        rules_html("wizard", "de")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    yield create_app(sqlite_url(tmp_path_factory.mktemp("rules")))


def get(app: FastAPI, path: str, **headers: str) -> httpx.Response:
    async def ask() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://tapisvert") as client:
            return await client.get(path, headers=headers)

    return asyncio.run(ask())


@pytest.mark.parametrize(("game", "language"), PAGES)
def test_the_route_serves_each_page(app: FastAPI, game: str, language: str) -> None:
    answer = get(app, f"/api/rules/{game}?language={language}")
    assert answer.status_code == 200
    body = answer.json()
    assert body == {"game": game, "language": language, "html": rules_html(game, language)}
    assert body["html"].startswith("<h1>")


def test_the_route_follows_accept_language_when_no_language_is_given(app: FastAPI) -> None:
    answer = get(app, "/api/rules/luz", **{"accept-language": "fr-FR,fr;q=0.9"})
    assert answer.status_code == 200 and answer.json()["language"] == "fr"
    assert "toujours atout" in answer.json()["html"]


def test_the_route_refuses_an_unknown_game_or_language(app: FastAPI) -> None:
    game = get(app, "/api/rules/chess?language=en")
    assert game.status_code == 404
    assert game.json() == {
        "code": "no_such_game",
        "message": "there is no game 'chess'; the games are: abluxxen, fzzzt, luz, wizard",
    }
    french = get(app, "/api/rules/chess?language=fr", **{"accept-language": "fr"})
    assert french.status_code == 404 and french.json()["message"].startswith("il n'y a pas de jeu")
    language = get(app, "/api/rules/wizard?language=de")
    assert language.status_code == 404
    assert language.json() == {
        "code": "no_such_language",
        "message": "there are texts in en, fr only",
    }
    assert catalogue("fr")["server.error.no_such_game"]
