"""Moderation and reports over HTTP: what the moderators' page shows and does, one's own
roles, and reporting a chat line, a person or a table."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tapisvert.i18n import Message, message
from tapisvert.server.errors import ServerError
from tapisvert.server.moderation import MAX_REASON
from tapisvert.server.protocol import Name, TableId
from tapisvert.server.routes.dependencies import Me, TheLobby

AUDIT_SHOWN = 100
"""The latest acts the moderators' page shows."""

router = APIRouter()

Reason = Annotated[str, Field(max_length=MAX_REASON)]


class Roles(BaseModel):
    roles: list[str]


class Act(BaseModel):
    """One act of moderation: what it needs of the fields depends on ``action``."""

    action: Literal["mute", "unmute", "kick", "ban", "unban", "close", "remove", "grant", "revoke"]
    name: Name | None = None
    reason: Reason = ""
    minutes: Annotated[int, Field(ge=1)] | None = None
    """A mute's length; a ban's (none: for good)."""
    scope: Literal["all", "room", "table"] = "all"
    room: Name | None = None
    table: TableId | None = None
    line: Annotated[str, Field(max_length=32)] | None = None
    role: Annotated[str, Field(max_length=32)] | None = None


class NewReport(BaseModel):
    kind: Literal["line", "player", "table"]
    reason: Reason = ""
    name: Name | None = None
    room: Name | None = None
    table: TableId | None = None
    line: Annotated[str, Field(max_length=32)] | None = None


class Handled(BaseModel):
    outcome: Literal["acted", "dismissed"]


class Reported(BaseModel):
    report: int


@router.get("/api/moderation/me")
async def my_roles(user: Me, lobby: TheLobby) -> Roles:
    return Roles(roles=sorted(await lobby.moderation.roles_of(user)))


@router.get("/api/moderation")
async def overview(user: Me, lobby: TheLobby) -> dict[str, Any]:
    """The moderators' page: the reports waiting, the mutes and bans in force, the
    people with a role, the latest acts."""
    await lobby.moderation.require(user)
    storage = lobby.storage
    names = lobby.presence.names
    sanctions = [
        {**asdict(row), "name": names.get(row.user_id or 0, "") if row.user_id else ""}
        for row in await storage.moderation.active()
    ]
    for row in sanctions:
        if row["user_id"] and not row["name"]:
            found = await storage.accounts.load(row["user_id"])
            row["name"] = found.name if found is not None else "?"
        row.pop("address")  # a guest's address is not the moderators' business
    return {
        "reports": [asdict(row) for row in await lobby.reports.queue(user)],
        "sanctions": sanctions,
        "staff": [asdict(row) for row in await storage.moderation.staff()],
        "audit": [asdict(row) for row in await storage.moderation.audit(AUDIT_SHOWN)],
    }


@router.post("/api/moderation", status_code=204)
async def act(body: Act, user: Me, lobby: TheLobby) -> None:
    moderation = lobby.moderation
    name = body.name or ""
    if body.action in ("mute", "unmute", "kick", "ban", "unban", "grant", "revoke") and not name:
        raise ServerError("malformed", key="server.problem.missing", field=_field("name"))
    match body.action:
        case "mute":
            scope = _scope(body.scope, body.room, body.table)
            await moderation.mute(user, name, body.minutes or 0, scope, body.reason)
        case "unmute":
            await moderation.unmute(user, name, body.reason)
        case "kick":
            await moderation.kick(user, name, _table(body.table), body.reason)
        case "ban":
            await moderation.ban(user, name, body.minutes, body.reason)
        case "unban":
            await moderation.unban(user, name, body.reason)
        case "close":
            await moderation.close(user, _table(body.table), body.reason)
        case "remove":
            await moderation.remove_line(
                user, body.room, body.table, body.line, body.name, body.reason
            )
        case "grant" | "revoke":
            change = moderation.grant if body.action == "grant" else moderation.revoke
            await change(user, name, body.role or "", body.reason)


@router.post("/api/reports")
async def report(body: NewReport, user: Me, lobby: TheLobby) -> Reported:
    number = await lobby.reports.report(
        user, body.kind, body.reason, body.name, body.room, body.table, body.line
    )
    return Reported(report=number)


@router.post("/api/moderation/reports/{report_id}", status_code=204)
async def handle(report_id: int, body: Handled, user: Me, lobby: TheLobby) -> None:
    await lobby.reports.handle(user, report_id, body.outcome)


def _table(table: int | None) -> int:
    if table is None:
        raise ServerError("malformed", key="server.problem.missing", field=_field("table"))
    return table


def _scope(scope: str, room: str | None, table: int | None) -> str:
    if scope == "room":
        if room is None:
            raise ServerError("malformed", key="server.problem.missing", field=_field("room"))
        return f"room:{room}"
    if scope == "table":
        return f"table:{_table(table)}"
    return "all"


def _field(name: str) -> Message:
    return message(f"server.field.{name}")
