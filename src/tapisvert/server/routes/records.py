"""A game's record, its replay and the reviews of its seats, over HTTP."""

from __future__ import annotations

import asyncio
import gzip
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import PlainTextResponse

from tapisvert.server.reviews import Asker
from tapisvert.server.routes.dependencies import Me, TableId, TheLobby, peer

DECOMPRESSED_AT_ONCE = 2
"""Replays decompressed at once for clients that take no gzip (each megabytes)."""

router = APIRouter()


async def decompressing(request: Request) -> asyncio.Semaphore:
    """The application's bound on replays decompressed at once (``DECOMPRESSED_AT_ONCE``)."""
    bound: asyncio.Semaphore = request.app.state.decompressing
    return bound


def takes_gzip(accepted: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``gzip;q=0`` refuses it)."""
    for part in accepted.lower().split(","):
        coding, _, quality = part.partition(";")
        if coding.strip() in ("gzip", "*"):
            weight = quality.strip().removeprefix("q=")
            try:
                return not quality or float(weight) > 0
            except ValueError:
                return False
    return False


@router.get("/api/tables/{table_id}/record")
async def record(
    table_id: TableId, lobby: TheLobby, format: Literal["json", "text"] = "json"
) -> Response:
    game_record = await lobby.records.record(table_id)
    if format == "text":
        return PlainTextResponse(game_record.to_text())
    return Response(game_record.to_json(), media_type="application/json")


@router.get("/api/tables/{table_id}/review")
async def review(
    table_id: TableId,
    seat: Annotated[int, Query(ge=0, le=15)],
    response: Response,
    request: Request,
    user: Me,
    lobby: TheLobby,
) -> dict[str, Any]:
    """The review of ``seat``'s decisions in a finished game: 202 while it is computed."""
    asker = Asker(user.id, user.guest, peer(request))
    found = await lobby.reviews.review(table_id, seat, asker)
    if found is None:
        response.status_code = 202
        return {"status": "computing"}
    return {"status": "ready", **found}


@router.get("/api/tables/{table_id}/replay")
async def replay(
    table_id: TableId,
    request: Request,
    lobby: TheLobby,
    bound: Annotated[asyncio.Semaphore, Depends(decompressing)],
) -> Response:
    """Large, and much alike from one step to the next: kept compressed, and sent so
    to a client that takes it so (a few at a time are decompressed for the others)."""
    lobby.quotas.take("replays", peer(request))
    compressed = await lobby.replays.replay(table_id)
    headers = {"Vary": "Accept-Encoding"}
    if not takes_gzip(request.headers.get("accept-encoding", "")):
        async with bound:
            steps = await asyncio.to_thread(gzip.decompress, compressed)
        return Response(steps, media_type="application/json", headers=headers)
    headers["Content-Encoding"] = "gzip"
    return Response(compressed, media_type="application/json", headers=headers)
