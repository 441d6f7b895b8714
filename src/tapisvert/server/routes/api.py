"""What the server knows that is the same for everyone: its games, the protocol's schemas,
the pages' texts, the games' rules."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from tapisvert.i18n import LANGUAGES, accepted_language, catalogue
from tapisvert.rules_pages import rules_html
from tapisvert.server import protocol
from tapisvert.server.errors import ServerError
from tapisvert.server.records import games, known_game

router = APIRouter()


@router.get("/api/games")
async def list_games() -> list[dict[str, Any]]:
    return games()


@router.get("/api/protocol")
async def schemas() -> dict[str, Any]:
    return protocol.schemas()


@router.get("/api/catalogue/{language}")
async def texts(language: str) -> dict[str, str]:
    """Every text of the web pages, in one language."""
    if language not in LANGUAGES:
        raise ServerError("no_such_language", status=404, languages=", ".join(LANGUAGES))
    return dict(catalogue(language))


@router.get("/api/rules/{game}")
async def rules(game: str, request: Request, language: str | None = None) -> dict[str, str]:
    """A game's rules for players, as HTML, in ``language`` (else the Accept-Language)."""
    chosen = language or accepted_language(request.headers.get("accept-language"))
    if chosen not in LANGUAGES:
        raise ServerError("no_such_language", status=404, languages=", ".join(LANGUAGES))
    known_game(game)
    return {"game": game, "language": chosen, "html": rules_html(game, chosen)}
