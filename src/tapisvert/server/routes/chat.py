"""Chat over HTTP, and what a chat line does wherever it comes from (a command, or words
for a room or a table)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from tapisvert.i18n import accepted_language
from tapisvert.server.commands import Place, run_command
from tapisvert.server.lobby import Lobby, User
from tapisvert.server.protocol import Ack, ServerMessage
from tapisvert.server.routes.dependencies import Me, TheLobby

router = APIRouter()


class ChatText(BaseModel):
    text: Annotated[str, Field(min_length=1, max_length=500)]
    room: str | None = None
    table: int | None = None


@router.post("/api/chat")
async def chat(body: ChatText, user: Me, request: Request, lobby: TheLobby) -> dict[str, Any]:
    """The answer as the WebSocket sends it (an ``ack``, a ``notice``, ``people``…): all
    its fields, not the few its base class has."""
    language = accepted_language(request.headers.get("accept-language"))
    answer = await say(lobby, user, language, body.text, body.room, body.table)
    return answer.model_dump(mode="json")


async def say(
    lobby: Lobby, user: User, language: str, text: str, room: str | None, table: int | None
) -> ServerMessage:
    """A chat line: ``/command`` runs, anything else is said in the room or at the table."""
    lobby.quotas.take("chat", user.id)
    if text.startswith("/") and len(text) > 1:
        return await run_command(lobby, user, language, text, Place(room, table))
    lobby.moderation.may_chat(user, room, table)
    await lobby.rooms.chat(user, text, room, table)
    return Ack(table=table)
