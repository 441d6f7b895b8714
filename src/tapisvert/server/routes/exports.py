"""The open database of games over HTTP: an export anyone may download, and what one's own
account lets it show."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from tapisvert.server.exports import Export
from tapisvert.server.routes.dependencies import Me, TheLobby, peer
from tapisvert.server.storage import ExportChoices

router = APIRouter()


class ExportSettings(BaseModel):
    name: bool
    """The export shows the account's name (else a pseudonym)."""
    unrated: bool
    """The account's unrated games may go in (if every person at them allowed it too)."""


@router.get("/api/export/{game}")
async def export(game: str, since: str, request: Request, lobby: TheLobby) -> StreamingResponse:
    """Every finished game of ``game`` since the day ``since`` (YYYY-MM-DD, UTC), as a
    gzip-compressed JSON lines file, streamed a page of games at a time."""
    asked = Export.asked(game, since)
    lobby.quotas.take("exports", peer(request))
    attachment = f'attachment; filename="{asked.file_name}"'
    return StreamingResponse(
        asked.gzipped(lobby.storage),
        media_type="application/gzip",
        headers={"Content-Disposition": attachment},
    )


@router.get("/api/account/export")
async def export_settings(user: Me, lobby: TheLobby) -> ExportSettings:
    choices = await lobby.storage.exports.choices(user.id)
    return ExportSettings(name=choices.name, unrated=choices.unrated)


@router.put("/api/account/export")
async def choose_export(body: ExportSettings, user: Me, lobby: TheLobby) -> ExportSettings:
    await lobby.storage.exports.choose(user.id, ExportChoices(body.name, body.unrated))
    return body
