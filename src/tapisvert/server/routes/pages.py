"""The browser app: its files as they are, and each game's board from its plugin."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, Response
from fastapi.staticfiles import StaticFiles

from tapisvert.core.registry import game_names, plugin
from tapisvert.server.errors import ServerError

WEB = Path(__file__).resolve().parent.parent.parent / "web"
"""The browser app: plain ES modules and CSS, no build step."""
BOARD_TYPES = {"js": "text/javascript", "css": "text/css"}
"""What a game's board is made of: a module, and its style sheet."""

router = APIRouter()


@router.get("/games/{game}.{kind}")
async def board(game: str, kind: str) -> Response:
    """A game's board for the browser (a module and its style), from its plugin."""
    if kind not in BOARD_TYPES or game not in game_names():
        raise ServerError("no_such_game", status=404, game=game, games=", ".join(game_names()))
    source = files(plugin(game).web_board).joinpath(f"{game}.{kind}")
    return Response(source.read_bytes(), media_type=BOARD_TYPES[kind])


def web_files() -> StaticFiles:
    """The app's own files, ``index.html`` for a folder; mounted under every route."""
    return StaticFiles(directory=WEB, html=True)
