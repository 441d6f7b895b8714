"""``/healthz`` and ``/readyz``: what a load balancer or a supervisor polls, every second if
it likes. Neither needs a session nor counts against any quota: the first does no work, the
second answers from checks made at most twice a second (see ``health``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

router = APIRouter()


@router.get("/healthz")
async def alive() -> dict[str, Any]:
    """The process answers: it needs no restart (a node that is stopping still does)."""
    return {"alive": True}


@router.get("/readyz")
async def ready(request: Request) -> JSONResponse:
    """200 if the node may be sent clients, else 503; the body says which check failed, or
    that the node is stopping."""
    readiness = await request.app.state.health.readiness()
    return JSONResponse(readiness, status_code=200 if readiness["ready"] else 503)
