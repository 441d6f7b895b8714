"""Reports: anyone signed in with an account reports a chat line, a person or a table;
the report keeps what was said around it; moderators act on it or dismiss it, and the
reporter is told, at once if connected, else when they next connect."""

from __future__ import annotations

from typing import Any, Literal

from tapisvert.i18n import translate
from tapisvert.server.cluster import Cluster
from tapisvert.server.connection import Connection
from tapisvert.server.errors import ServerError
from tapisvert.server.moderation import Moderation, reason_given
from tapisvert.server.protocol import ChatLine, Notice
from tapisvert.server.quotas import Quotas
from tapisvert.server.roles import account
from tapisvert.server.rooms import Rooms, no_such_room
from tapisvert.server.storage import Storage
from tapisvert.server.storage.moderation import audit_entry
from tapisvert.server.storage.reports import ReportRow
from tapisvert.server.users import User

ReportKind = Literal["line", "player", "table"]
CONTEXT_LINES = 5
"""Chat lines kept before and after a reported line (for a person or a table: the last
twice as many where the report was made)."""
OPEN_REPORTS = 10
"""Reports one person may have waiting for a moderator at once."""
QUEUE = 200
"""Reports a moderator's queue shows at once, the oldest first."""


class Reports:
    def __init__(
        self,
        storage: Storage,
        quotas: Quotas,
        rooms: Rooms,
        cluster: Cluster,
        moderation: Moderation,
    ) -> None:
        self.storage = storage
        self.quotas = quotas
        self.rooms = rooms
        self.cluster = cluster
        self.moderation = moderation

    async def report(
        self,
        user: User,
        kind: ReportKind,
        reason: str,
        name: str | None = None,
        room: str | None = None,
        table: int | None = None,
        line: str | None = None,
    ) -> int:
        """Store a report with its context; its number."""
        if user.guest:
            raise ServerError("guest_report", status=403)
        reason = reason_given(reason, needed=False)
        lines = await self._said(user, room, table)
        context: dict[str, Any] = {"room": room, "table": table}
        if kind == "line":
            index = next((i for i, said in enumerate(lines) if said.line == line), None)
            if index is None:
                raise ServerError("no_such_line", status=404)
            target = lines[index].sender
            lines = lines[max(0, index - CONTEXT_LINES) : index + CONTEXT_LINES + 1]
            context["line"] = lines[min(index, CONTEXT_LINES)].model_dump(mode="json")
        elif kind == "player":
            target = (await account(self.storage, name or "")).name
            lines = lines[-2 * CONTEXT_LINES :]
        else:
            if table is None:
                raise ServerError("not_at_table")
            target = f"#{table}"
            context["info"] = await self.cluster.on_table(table, "info", user)
            lines = lines[-2 * CONTEXT_LINES :]
        if target == user.name:
            raise ServerError("not_yourself", status=409)
        if await self.storage.reports.open_by(user.id) >= OPEN_REPORTS:
            raise ServerError("too_many_reports", status=429, limit=OPEN_REPORTS)
        self.quotas.take("reports", user.id)
        context["lines"] = [{"sender": said.sender, "text": said.text} for said in lines]
        return await self.storage.reports.add(user.id, kind, target, reason, context)

    async def _said(self, user: User, room: str | None, table: int | None) -> list[ChatLine]:
        """The chat lines where the report was made: a room's, or a table's."""
        if table is not None:
            said = await self.cluster.on_table(table, "said", user)
            return [ChatLine.model_validate(line) for line in said]
        if room is None:
            return []
        if not await self.rooms.known(room):
            raise no_such_room(room)
        return [said for said in self.rooms.history[room] if isinstance(said, ChatLine)]

    async def queue(self, user: User) -> list[ReportRow]:
        await self.moderation.require(user)
        return await self.storage.reports.listed("open", QUEUE)

    async def handle(self, user: User, report_id: int, outcome: str) -> None:
        """A moderator acted on the report, or dismissed it: the reporter is told."""
        await self.moderation.require(user)
        row = await self.storage.reports.handle(report_id, outcome, user.name)
        if row is None:
            raise ServerError("no_such_report", status=404, report=report_id)
        audit = audit_entry(user.name, f"report_{outcome}", row.target, row.reason, report=row.id)
        await self.storage.moderation.log(audit)
        if self.moderation.presence.is_online(row.reporter_id):
            self.moderation.notify(
                row.reporter_id, f"server.notice.report_{outcome}", target=row.target
            )
            await self.storage.reports.notified(row.id)

    async def tell_handled(self, connection: Connection) -> None:
        """The person's reports handled while they were away, told as they connect."""
        if connection.user.guest:
            return
        for row in await self.storage.reports.unnotified(connection.user.id):
            key = f"server.notice.report_{row.status}"
            text = translate(key, connection.language, target=row.target)
            connection.send(Notice(key=key, text=text))
