"""Moderation: mutes, removals from a table, bans, closed tables, removed chat lines,
and roles, each kept in the audit log; the chat commands, the moderators' page and the
administrators' command all end here.

Mutes and bans are in the database and in each node's memory (``sanctions``); what the
other nodes must do (read someone's sanctions again, close a banned person's connections,
tell someone something) goes to them on the ``moderation`` channel.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict
from typing import Any

import orjson

from tapisvert.i18n import translate
from tapisvert.server.background import Background
from tapisvert.server.cluster import Cluster
from tapisvert.server.errors import ServerError
from tapisvert.server.presence import Presence
from tapisvert.server.protocol import ChatLine, Error, Notice
from tapisvert.server.pubsub import Frame
from tapisvert.server.records import MAX_TABLE_ID
from tapisvert.server.roles import account, grant_role, revoke_role
from tapisvert.server.rooms import Rooms, no_such_room, tournament_room
from tapisvert.server.sanctions import Sanctions, banned, scope_words, until_words
from tapisvert.server.storage import Storage, UserRow
from tapisvert.server.storage.moderation import SanctionRow, audit_entry
from tapisvert.server.table_service import TableService
from tapisvert.server.users import User

MODERATION_CHANNEL = "moderation"
LONGEST_MINUTES = 60 * 24 * 366
"""A mute or a ban for a time lasts a year at most (a ban may be for good)."""
MAX_REASON = 300

_log = logging.getLogger(__name__)


class Moderation:
    """The acts of moderators and administrators, checked against their roles."""

    def __init__(
        self,
        storage: Storage,
        sanctions: Sanctions,
        presence: Presence,
        cluster: Cluster,
        rooms: Rooms,
        tables: TableService,
        background: Background,
    ) -> None:
        self.storage = storage
        self.sanctions = sanctions
        self.presence = presence
        self.cluster = cluster
        self.rooms = rooms
        self.tables = tables
        self.background = background

    def listen(self) -> None:
        """Hear what the other nodes' moderators did."""
        self.cluster.pubsub.subscribe(MODERATION_CHANNEL, self._heard)

    # -- roles ------------------------------------------------------------------------

    async def roles_of(self, user: User) -> set[str]:
        """The person's roles, from the database (an administrator's command counts at once)."""
        return set() if user.guest else await self.storage.moderation.roles(user.id)

    async def require(self, user: User, role: str = "moderator") -> None:
        """Refuse whoever does not have the role (an administrator moderates too)."""
        roles = await self.roles_of(user)
        if role in roles or "administrator" in roles:
            return
        raise ServerError(f"not_{role}", status=403)

    async def grant(self, user: User, name: str, role: str, reason: str) -> None:
        await self.require(user, "administrator")
        if not await grant_role(self.storage, user.name, name, role, reason_given(reason, False)):
            raise ServerError("role_unchanged", status=409, name=name[:32], role=role)

    async def revoke(self, user: User, name: str, role: str, reason: str) -> None:
        await self.require(user, "administrator")
        if not await revoke_role(self.storage, user.name, name, role, reason_given(reason, False)):
            raise ServerError("role_unchanged", status=409, name=name[:32], role=role)

    async def _target(self, user: User, name: str) -> UserRow:
        """Whom a moderator acts on: not themselves, and not another moderator or an
        administrator unless they are an administrator."""
        target = await account(self.storage, name)
        if target.id == user.id:
            raise ServerError("not_yourself", status=409)
        if not target.guest and await self.storage.moderation.roles(target.id):
            await self.require(user, "administrator")
        return target

    # -- mutes ------------------------------------------------------------------------

    async def mute(self, user: User, name: str, minutes: int, scope: str, reason: str) -> None:
        """Nobody hears the person where ``scope`` says (``all``, ``room:NAME``,
        ``table:N``) for ``minutes``; they are told why and until when."""
        await self.require(user)
        reason = reason_given(reason)
        kind, _, where = scope.partition(":")
        if kind == "room" and not await self.rooms.known(where):
            raise no_such_room(where)
        target = await self._target(user, name)
        until = time.time() + _minutes(minutes) * 60
        values = _sanction("mute", target.id, None, scope, reason, user.name, until)
        audit = audit_entry(user.name, "mute", target.name, reason, until, scope=scope)
        row = await self.storage.moderation.sanction(values, audit)
        self.sanctions.keep(row)
        self._publish(reload=target.id)
        self.notify(target.id, "server.notice.muted", where=scope, until=until, reason=reason)

    async def unmute(self, user: User, name: str, reason: str) -> None:
        await self.require(user)
        target = await self._target(user, name)
        await self._lift("mute", user, target, reason)
        self.notify(target.id, "server.notice.unmuted")

    # -- bans -------------------------------------------------------------------------

    async def ban(self, user: User, name: str, minutes: int | None, reason: str) -> None:
        """The account (a guest: their address too) may not sign in or connect, for
        ``minutes`` or (None) for good; its sessions end and its connections close."""
        await self.require(user)
        reason = reason_given(reason)
        target = await self._target(user, name)
        until = None if minutes is None else time.time() + _minutes(minutes) * 60
        values = _sanction("ban", target.id, None, "all", reason, user.name, until)
        audit = audit_entry(user.name, "ban", target.name, reason, until, guest=target.guest)
        row = await self.storage.moderation.sanction(values, audit, end_sessions=True)
        self.sanctions.keep(row)
        addresses = self._banned_here(row, target.guest)
        self._publish(banned=asdict(row), guest=target.guest)
        for address in addresses:
            await self._ban_address(row, address)

    async def unban(self, user: User, name: str, reason: str) -> None:
        await self.require(user)
        target = await self._target(user, name)
        await self._lift("ban", user, target, reason)

    def _banned_here(self, row: SanctionRow, guest: bool) -> set[str]:
        """Close the banned person's connections here; a guest's addresses, to be banned
        too."""
        assert row.user_id is not None
        connections = list(self.presence.connections.get(row.user_id, ()))
        for connection in connections:
            refusal = banned(row)
            connection.send(Error(code=refusal.code, message=refusal.render(connection.language)))
            connection.close(code=1008)
        return {connection.link.address for connection in connections} if guest else set()

    async def _ban_address(self, row: SanctionRow, address: str) -> None:
        values = _sanction("ban", row.user_id, address, "all", row.reason, row.given_by, row.until)
        audit = audit_entry(row.given_by, "ban", address, row.reason, row.until, address=True)
        kept = await self.storage.moderation.sanction(values, audit)
        self.sanctions.keep(kept)
        self._publish(reload=row.user_id, addresses=[address])

    async def _lift(self, kind: str, user: User, target: UserRow, reason: str) -> None:
        audit = audit_entry(user.name, f"un{kind}", target.name, reason_given(reason, False))
        if not await self.storage.moderation.lift(kind, target.id, [], audit):
            raise ServerError(f"not_{kind}d", status=409, name=target.name)
        addresses = [
            row.address for row in self.sanctions.by_user.get(target.id, []) if row.address
        ]
        await self.sanctions.reload(target.id, addresses)
        self._publish(reload=target.id, addresses=addresses)

    # -- tables and chat --------------------------------------------------------------

    async def kick(self, user: User, name: str, table_id: int, reason: str) -> None:
        """Take the person from the table: a bot plays their seat from now on (an open
        table's seat is freed), and they stop following it."""
        await self.require(user)
        reason = reason_given(reason)
        target = await self._target(user, name)
        if not await self.cluster.on_table(table_id, "kick", user, target=target.id):
            raise ServerError("not_at_that_table", status=409, name=target.name, table=table_id)
        self.tables.connections.unfollow_all(target.id, table_id)
        audit = audit_entry(user.name, "kick", target.name, reason, table=table_id)
        await self.storage.moderation.log(audit)
        self.notify(target.id, "server.notice.kicked", table=table_id, reason=reason)

    async def close(self, user: User, table_id: int, reason: str) -> None:
        """Close a table for good, whether or not its game is under way."""
        await self.require(user)
        reason = reason_given(reason, False)
        await self.cluster.on_table(table_id, "close", user)
        await self.storage.moderation.log(
            audit_entry(user.name, "close", f"#{table_id}", reason, table=table_id)
        )

    async def cancel_tournament(self, user: User, tournament_id: int, reason: str) -> None:
        """Cancel a tournament to come or under way: no round starts any more, the games of
        the round under way end as ordinary games, nobody wins it; its players are told why,
        and its chat says so."""
        await self.require(user)
        reason = reason_given(reason)
        tournaments = self.storage.tournaments
        row = await tournaments.load(tournament_id) if tournament_id <= MAX_TABLE_ID else None
        if row is None:
            raise ServerError("no_such_tournament", status=404, tournament=tournament_id)
        if not await tournaments.cancel(row.id, user.name, reason):
            raise ServerError("tournament_over", status=409, tournament=row.id)
        await self.storage.moderation.log(
            audit_entry(user.name, "cancel", row.name, reason, tournament=row.id)
        )
        told = {"number": row.id, "name": row.name, "reason": reason}
        key = f"server.notice.tournament_cancelled{'_running' if row.status == 'running' else ''}"
        for entrant in await tournaments.entrants(row.id):
            if entrant.withdrawn_at is None:
                self.notify(entrant.user_id, key, **told)
        room = tournament_room(row.id)
        if await self.rooms.known(room):
            self.rooms.tell(room, key, **told)

    async def remove_line(
        self,
        user: User,
        room: str | None,
        table_id: int | None,
        line: str | None,
        sender: str | None,
        reason: str,
    ) -> None:
        """Remove a chat line (``line``: its id; else ``sender``'s latest) for everyone:
        each client is told to drop it; the audit log keeps its words."""
        await self.require(user)
        if table_id is not None:
            said = await self.cluster.on_table(table_id, "unsay", user, line=line, sender=sender)
            removed = None if said is None else ChatLine.model_validate(said)
        elif room is not None:
            removed = self.rooms.unsay(room, line, sender)
        else:
            raise no_such_room(room)
        if removed is None:
            raise ServerError("no_such_line", status=404)
        where = {"room": room} if table_id is None else {"table": table_id}
        audit = audit_entry(
            user.name,
            "remove",
            removed.sender,
            reason_given(reason, False),
            text=removed.text,
            **where,
        )
        await self.storage.moderation.log(audit)

    def may_chat(self, user: User, room: str | None, table: int | None) -> None:
        self.sanctions.refuse_muted(user.id, room, table)

    # -- telling people ---------------------------------------------------------------

    def notify(self, user_id: int, key: str, **arguments: Any) -> None:
        """A notice for the person, on every node where they are connected: ``until`` (a
        time) and ``where`` (a scope) are put in words in each reader's language."""
        self._notify_here(user_id, key, arguments)
        self._publish(notify=user_id, key=key, arguments=arguments)

    def _notify_here(self, user_id: int, key: str, arguments: dict[str, Any]) -> None:
        words: dict[str, Any] = dict(arguments)
        if "until" in words:
            words["until"] = until_words(words["until"])
        if "where" in words:
            words["where"] = scope_words(words["where"])
        for connection in list(self.presence.connections.get(user_id, ())):
            text = translate(key, connection.language, **words)
            connection.send(Notice(key=key, text=text))

    def _publish(self, **said: Any) -> None:
        if self.cluster.peers is not None:
            frame = {"node": self.cluster.node, **said}
            self.cluster.pubsub.publish(MODERATION_CHANNEL, orjson.dumps(frame).decode())

    def _heard(self, frame: Frame) -> None:
        if not isinstance(frame, str):
            return
        said = orjson.loads(frame)
        if said["node"] == self.cluster.node:
            return
        if "notify" in said:
            self._notify_here(said["notify"], said["key"], said["arguments"])
        elif "banned" in said:
            row = SanctionRow(**said["banned"])
            self.sanctions.keep(row)
            for address in self._banned_here(row, said["guest"]):
                self.background.spawn(self._ban_address(row, address))
        elif "reload" in said:
            reloading = self.sanctions.reload(said["reload"], said.get("addresses", []))
            self.background.spawn(reloading)


def _sanction(
    kind: str,
    user_id: int | None,
    address: str | None,
    scope: str,
    reason: str,
    by: str,
    until: float | None,
) -> dict[str, Any]:
    return {
        "kind": kind,
        "user_id": user_id,
        "address": address,
        "scope": scope,
        "reason": reason,
        "given_by": by,
        "given_at": time.time(),
        "until": until,
    }


def _minutes(minutes: int) -> int:
    if not 1 <= minutes <= LONGEST_MINUTES:
        raise ServerError("bad_minutes", minutes=minutes, limit=LONGEST_MINUTES)
    return minutes


def reason_given(reason: str, needed: bool = True) -> str:
    """A reason, shown to the person concerned: needed for a mute, a ban, a removal."""
    reason = " ".join(reason.split())
    if needed and not reason:
        raise ServerError("reason_needed")
    if len(reason) > MAX_REASON:
        raise ServerError("reason_too_long", limit=MAX_REASON)
    return reason
