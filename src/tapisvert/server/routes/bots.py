"""Bot accounts of one's own over HTTP: making them, their tokens, inviting one to a table."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tapisvert.server.protocol import Ack
from tapisvert.server.routes.dependencies import Me, TableId, TheLobby

router = APIRouter()


class NewBot(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=32)]


class BotAccount(BaseModel):
    name: str
    owner: str
    invites: str = "anyone"
    """Who may invite it: ``anyone``, the owner's ``friends``, or ``nobody``."""


class Invites(BaseModel):
    invites: Annotated[str, Field(max_length=16)]


class BotToken(BaseModel):
    name: str
    token: str
    """Shown once: the server keeps only a hash of the session it opens."""


class Invitation(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=32)]
    seat: Annotated[int, Field(ge=0, le=15)] | None = None


@router.post("/api/bots")
async def create_bot(body: NewBot, user: Me, lobby: TheLobby) -> BotAccount:
    bot = await lobby.own_bots.create(user, body.name)
    return BotAccount(name=bot.name, owner=user.name)


@router.get("/api/bots")
async def my_bots(user: Me, lobby: TheLobby) -> list[BotAccount]:
    return [
        BotAccount(name=bot.name, owner=user.name, invites=bot.invites)
        for bot in await lobby.own_bots.mine(user)
    ]


@router.put("/api/bots/{name}/invites", status_code=204)
async def set_invites(name: str, body: Invites, user: Me, lobby: TheLobby) -> None:
    """Who may invite the bot account to a table."""
    await lobby.own_bots.allow(user, name, body.invites)


@router.post("/api/bots/{name}/token")
async def new_token(name: str, user: Me, lobby: TheLobby) -> BotToken:
    """A new token for the bot account; its earlier tokens stop working."""
    return BotToken(name=name, token=await lobby.own_bots.new_token(user, name))


@router.delete("/api/bots/{name}/token", status_code=204)
async def revoke_token(name: str, user: Me, lobby: TheLobby) -> None:
    await lobby.own_bots.revoke(user, name)


@router.post("/api/tables/{table_id}/invite")
async def invite(table_id: TableId, body: Invitation, user: Me, lobby: TheLobby) -> Ack:
    """Seat a connected bot account, as one adds a built-in bot."""
    await lobby.own_bots.invite(user, table_id, body.name, body.seat)
    return Ack(table=table_id)
