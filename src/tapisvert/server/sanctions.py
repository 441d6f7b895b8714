"""The mutes and bans in force, kept in memory: every chat line and every sign-in is
checked against them without asking the database.

They are read from the database at start; a node that mutes or bans someone changes its
own copy and tells the others (see ``moderation``), which read that person's again.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from tapisvert.i18n import Message, message
from tapisvert.server.errors import ServerError
from tapisvert.server.rooms import tournament_of
from tapisvert.server.storage import Storage
from tapisvert.server.storage.moderation import SanctionRow


def until_words(until: float | None) -> Message:
    """When a sanction ends, as people read it: until a date and time (UTC), or for good."""
    if until is None:
        return message("server.moderation.for_good")
    when = datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return message("server.moderation.until", when=when)


def scope_words(scope: str) -> Message:
    """Where a mute holds: everywhere, in a room (a tournament's chat), at a table."""
    kind, _, where = scope.partition(":")
    tournament = tournament_of(where) if kind == "room" else None
    if tournament is not None:
        return message("server.moderation.scope_tournament", number=tournament)
    return message(f"server.moderation.scope_{kind}", where=where)


class Sanctions:
    """The mutes and bans in force, by account and by address."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.by_user: dict[int, list[SanctionRow]] = {}
        self.by_address: dict[str, list[SanctionRow]] = {}

    async def load(self) -> None:
        """Every sanction in force, from the database."""
        self.by_user, self.by_address = {}, {}
        for row in await self.storage.moderation.active():
            self.keep(row)

    async def reload(self, user_id: int | None, addresses: list[str]) -> None:
        """One person's and some addresses' sanctions again, from the database."""
        if user_id is not None:
            self.by_user.pop(user_id, None)
        for address in addresses:
            self.by_address.pop(address, None)
        for row in await self.storage.moderation.active(user_id, addresses):
            self.keep(row)

    def keep(self, row: SanctionRow) -> None:
        if row.user_id is not None:
            self.by_user.setdefault(row.user_id, []).append(row)
        if row.address is not None:
            self.by_address.setdefault(row.address, []).append(row)

    def _in_force(self, kind: str, user_id: int | None, address: str | None) -> list[SanctionRow]:
        now = time.time()
        rows = self.by_user.get(user_id, []) if user_id is not None else []
        if address is not None:
            rows = rows + self.by_address.get(address, [])
        return [row for row in rows if row.kind == kind and (row.until is None or row.until > now)]

    def ban_of(self, user_id: int | None, address: str | None) -> SanctionRow | None:
        """The ban in force that lasts longest, if any."""
        bans = self._in_force("ban", user_id, address)
        return max(bans, key=_ends, default=None)

    def refuse_banned(self, user_id: int | None, address: str | None) -> None:
        """Refuse a banned account or address, saying why and until when."""
        ban = self.ban_of(user_id, address)
        if ban is not None:
            raise banned(ban)

    def refuse_muted(self, user_id: int, room: str | None, table: int | None) -> None:
        """Refuse a chat line from someone muted where they speak (or everywhere)."""
        here = {"all", f"room:{room}" if room is not None else "", f"table:{table}"}
        mutes = [row for row in self._in_force("mute", user_id, None) if row.scope in here]
        mute = max(mutes, key=_ends, default=None)
        if mute is not None:
            raise ServerError(
                "muted",
                status=403,
                where=scope_words(mute.scope),
                until=until_words(mute.until),
                reason=mute.reason,
            )


def banned(ban: SanctionRow) -> ServerError:
    return ServerError("banned", status=403, until=until_words(ban.until), reason=ban.reason)


def _ends(row: SanctionRow) -> float:
    return float("inf") if row.until is None else row.until
