"""An account's end and its data over HTTP: deleting it, downloading it, and the one-time
links that set a new password (an administrator makes one, its holder spends it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from tapisvert.server.routes.dependencies import Me, TheLobby, peer

router = APIRouter()


class Confirmation(BaseModel):
    password: Annotated[str, Field(max_length=200)] = ""
    """The account's password (a guest has none)."""


class Reset(BaseModel):
    key: Annotated[str, Field(min_length=1, max_length=200)]
    password: Annotated[str, Field(max_length=200)]


class ResetFor(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=32)]


class ResetLink(BaseModel):
    link: str
    """The page's address with the one-time key (``/#reset=KEY``), to give the person."""


class ResetDone(BaseModel):
    user: str
    """The name to sign in with."""


@router.post("/api/account/delete", status_code=204)
async def delete_account(body: Confirmation, user: Me, request: Request, lobby: TheLobby) -> None:
    await lobby.account_life.delete(user, body.password, peer(request))


@router.get("/api/account/data")
async def download_data(user: Me, lobby: TheLobby) -> JSONResponse:
    data = await lobby.account_life.data(user)
    attachment = f'attachment; filename="tapisvert-{user.id}.json"'
    return JSONResponse(data, headers={"Content-Disposition": attachment})


@router.post("/api/password-reset")
async def reset_password(body: Reset, request: Request, lobby: TheLobby) -> ResetDone:
    name = await lobby.account_life.reset_password(body.key, body.password, peer(request))
    return ResetDone(user=name)


@router.post("/api/moderation/reset-links")
async def reset_link(body: ResetFor, user: Me, lobby: TheLobby) -> ResetLink:
    key = await lobby.account_life.reset_link(user, body.name)
    return ResetLink(link=f"/#reset={key}")
