"""What a room or a table says: chat lines, and notices rendered in each reader's language."""

from __future__ import annotations

import secrets
from typing import Any

import orjson

from tapisvert.i18n import translate
from tapisvert.server.protocol import ChatLine

CHAT_HISTORY = 50
"""Chat lines and notices a room or a table keeps for those who come later or reconnect."""

Said = ChatLine | dict[str, Any]
"""A chat line, or a notice (rendered in each reader's language when it is sent)."""


def new_line(text: str, sender: str, room: str | None = None, table: int | None = None) -> ChatLine:
    """A chat line, with an id of its own (see ``ChatLine.line``)."""
    return ChatLine(room=room, table=table, sender=sender, text=text, line=secrets.token_hex(6))


def removed_from(said: list[Said], line: str | None, sender: str | None) -> ChatLine | None:
    """Take out of ``said`` the chat line ``line`` (else ``sender``'s latest), if there."""
    for index in range(len(said) - 1, -1, -1):
        candidate = said[index]
        if isinstance(candidate, ChatLine) and (
            candidate.line == line if line is not None else candidate.sender == sender
        ):
            del said[index]
            return candidate
    return None


def table_notice(
    table_id: int, key: str, arguments: dict[str, Any], rematch: int | None = None
) -> dict[str, Any]:
    """A notice to a table; ``rematch``: the table of the rematch it announces, for a link."""
    return {
        "type": "notice",
        "table": table_id,
        "key": key,
        "arguments": arguments,
        "history": False,
        "rematch": rematch,
    }


def render_notice(notice: dict[str, Any], language: str) -> str:
    text = translate(notice["key"], language, **notice["arguments"])
    return orjson.dumps({**notice, "text": text}).decode()


def said_to(said: Said) -> dict[str, Any]:
    """A chat line or a notice as JSON, to cross to another node."""
    if isinstance(said, ChatLine):
        return {"chat": said.model_dump(mode="json")}
    return {"notice": said}


def said_from(said: dict[str, Any]) -> Said:
    return ChatLine.model_validate(said["chat"]) if "chat" in said else said["notice"]
