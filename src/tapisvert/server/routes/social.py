"""Ignores, friends and private messages over HTTP, as the messages panel uses them.

Every route is the asker's own: who they ignore, their friends and requests, their
conversations. The same lobby methods answer the chat commands (``/ignore``, ``/friend``,
``/tell``…), so both ways of asking behave the same.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tapisvert.server.messages import MAX_TEXT
from tapisvert.server.protocol import Name, PrivateMessage, SocialInfo, TableId
from tapisvert.server.routes.dependencies import Me, TheLobby

router = APIRouter()


class Named(BaseModel):
    name: Name


class Told(BaseModel):
    to: Name
    text: Annotated[str, Field(max_length=MAX_TEXT)] = ""
    table: TableId | None = None
    """An invitation to this table (the text may then be empty)."""


class Correspondent(BaseModel):
    name: str
    unread: int
    last: float
    """When the last message either way was sent (seconds since 1970)."""


class Done(BaseModel):
    name: str
    """The person's name as it is written."""
    friends: bool = False
    """For a friend request: whether they are friends now (it accepted theirs)."""


@router.get("/api/social")
async def social(user: Me, lobby: TheLobby) -> SocialInfo:
    return await lobby.social.info(user.id)


@router.post("/api/ignores")
async def ignore(body: Named, user: Me, lobby: TheLobby) -> Named:
    """The answer names the person as their name is written."""
    return Named(name=await lobby.social.ignore(user, body.name))


@router.delete("/api/ignores/{name}")
async def unignore(name: str, user: Me, lobby: TheLobby) -> Named:
    return Named(name=await lobby.social.unignore(user, name))


@router.post("/api/friends")
async def befriend(body: Named, user: Me, lobby: TheLobby) -> Done:
    name, friends = await lobby.social.befriend(user, body.name)
    return Done(name=name, friends=friends)


@router.delete("/api/friends/{name}")
async def unfriend(name: str, user: Me, lobby: TheLobby) -> Done:
    return Done(name=await lobby.social.unfriend(user, name))


@router.get("/api/messages")
async def correspondents(user: Me, lobby: TheLobby) -> list[Correspondent]:
    found = await lobby.messages.correspondents(user)
    return [Correspondent(name=name, unread=unread, last=last) for name, unread, last in found]


@router.get("/api/messages/{name}")
async def conversation(name: str, user: Me, lobby: TheLobby) -> list[PrivateMessage]:
    """The latest messages with that person; reading them marks theirs read."""
    return await lobby.messages.conversation(user, name)


@router.post("/api/messages")
async def tell(body: Told, user: Me, lobby: TheLobby) -> PrivateMessage:
    if body.table is not None:
        return await lobby.messages.invite(user, body.to, body.table)
    return await lobby.messages.tell(user, body.to, body.text)
