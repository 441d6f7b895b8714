"""Accounts over HTTP: a guest's name, registering, signing in and out, a new password."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from tapisvert.server.errors import ServerError
from tapisvert.server.routes.dependencies import Me, TheLobby, peer

router = APIRouter()


class Credentials(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=32)]
    password: Annotated[str, Field(max_length=200)] = ""


class NewPassword(BaseModel):
    old: Annotated[str, Field(max_length=200)]
    new: Annotated[str, Field(max_length=200)]


class Session(BaseModel):
    token: str
    user: str
    guest: bool


@router.post("/api/guest")
async def guest(body: Credentials, request: Request, lobby: TheLobby) -> Session:
    token, user = await lobby.accounts.guest(body.name, peer(request))
    return Session(token=token, user=user.name, guest=True)


@router.post("/api/register")
async def register(body: Credentials, request: Request, lobby: TheLobby) -> Session:
    token, user = await lobby.accounts.register(body.name, body.password, peer(request))
    return Session(token=token, user=user.name, guest=False)


@router.post("/api/login")
async def login(body: Credentials, request: Request, lobby: TheLobby) -> Session:
    token, user = await lobby.accounts.login(body.name, body.password, peer(request))
    return Session(token=token, user=user.name, guest=False)


@router.post("/api/logout", status_code=204)
async def logout(user: Me, lobby: TheLobby) -> None:
    await lobby.accounts.sign_out(user)


@router.post("/api/password", status_code=204)
async def change_password(body: NewPassword, user: Me, request: Request, lobby: TheLobby) -> None:
    if user.guest:
        raise ServerError("guest_password", status=403)
    await lobby.accounts.change_password(user, body.old, body.new, peer(request))
