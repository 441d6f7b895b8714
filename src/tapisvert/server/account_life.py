"""An account's end and its data: a person deletes their account or downloads what the
server keeps of them, and an administrator gives a one-time link that sets a new password
(there is no e-mail to send one to).

A deleted account's games stay, for the others who played them: its name becomes
``ERASED_NAME`` in every record and view, on every node, and nothing else of it remains.
"""

from __future__ import annotations

import logging
import time
from secrets import token_urlsafe
from typing import Any

import orjson

from tapisvert.server.accounts import Accounts, check_new_password, session_key
from tapisvert.server.errors import ServerError
from tapisvert.server.moderation import Moderation
from tapisvert.server.presence import Presence
from tapisvert.server.pubsub import ACCOUNTS_CHANNEL, Frame, PubSub
from tapisvert.server.quotas import Quotas
from tapisvert.server.ratings import Skill
from tapisvert.server.registry import TableRegistry
from tapisvert.server.storage import ERASED_NAME, Storage
from tapisvert.server.storage.moderation import audit_entry
from tapisvert.server.users import User

_log = logging.getLogger(__name__)

MESSAGES_DOWNLOADED = 100_000
"""The latest private messages a download gives at most."""
RESET_LINK_HOURS = 24
"""How long a link that sets a new password may be used (once)."""


class AccountLife:
    def __init__(
        self,
        storage: Storage,
        accounts: Accounts,
        presence: Presence,
        registry: TableRegistry,
        pubsub: PubSub,
        quotas: Quotas,
        moderation: Moderation,
    ) -> None:
        self.storage = storage
        self.accounts = accounts
        self.presence = presence
        self.registry = registry
        self.pubsub = pubsub
        self.quotas = quotas
        self.moderation = moderation

    def listen(self) -> None:
        """Hear the accounts deleted on other nodes (their finished tables kept here)."""
        self.pubsub.subscribe(ACCOUNTS_CHANNEL, self._heard)

    async def delete(self, user: User, password: str, address: str) -> None:
        """Delete the account for good, and the bot accounts it owns. A registered account
        confirms with its password; a person (or their bot) still seated at a table that is
        open or being played leaves it first."""
        if not user.guest:
            await self.accounts.confirm_password(user, password, address)
        bots = [
            User(bot.id, bot.name, False) for bot in await self.storage.accounts.owned_bots(user.id)
        ]
        seated = []
        for account in (user, *bots):
            seated += await self.storage.tables.seated(account.id, ["open", "playing"])
        if seated:
            listed = ", ".join(str(row.id) for row in seated)
            raise ServerError("leave_tables_first", status=409, tables=listed)
        for account in (*bots, user):
            await self.storage.account_life.erase(account.id)
            self.accounts.end_every_session(account)
            self._erased(account.id)
            said = {"node": self.presence.node, "erased": account.id}
            self.pubsub.publish(ACCOUNTS_CHANNEL, orjson.dumps(said).decode())

    def _heard(self, frame: Frame) -> None:
        if not isinstance(frame, str):
            return
        said = orjson.loads(frame)
        if said["node"] != self.presence.node:
            self._erased(int(said["erased"]))

    def _erased(self, user_id: int) -> None:
        """Forget the name here: in the tables in memory (a replay names nobody)."""
        self.presence.names.pop(user_id, None)
        for table, _ in self.registry.seated_tables(user_id):
            for seat in table.seats:
                if seat.user_id == user_id:
                    seat.user_id, seat.name = None, ERASED_NAME
            self.registry.index_seats(table)

    async def data(self, user: User) -> dict[str, Any]:
        """What the server keeps of the person, as they may download it."""
        self.quotas.take("data_downloads", str(user.id))
        ratings = await self.storage.ratings.of(user.id)
        games = await self.storage.account_life.games(user.id)
        messages = await self.storage.social.messages_of(user.id, MESSAGES_DOWNLOADED)
        return {
            "name": user.name,
            "guest": user.guest,
            "downloaded_at": time.time(),
            "ratings": [
                {
                    "game": row.game,
                    "rating": _skill(row.skill),
                    "games": row.games,
                    "wins": row.wins,
                }
                for row in ratings
            ],
            "games": [
                {
                    "table": game.table,
                    "game": game.game,
                    "finished_at": game.finished_at,
                    "players": game.seats,
                    "seat": game.result.seat + 1,
                    "place": game.result.place,
                    "score": game.result.score,
                    "won": game.result.won,
                    "rating_before": _skill(game.result.before),
                    "rating_after": _skill(game.result.after),
                    "record": f"/api/tables/{game.table}/record",
                }
                for game in games
            ],
            "messages": [
                {
                    "from": message.sender,
                    "to": message.recipient,
                    "text": message.text,
                    "table": message.table,
                    "sent_at": message.sent_at,
                    "read": message.read,
                }
                for message in messages
            ],
        }

    async def reset_link(self, user: User, name: str) -> str:
        """An administrator's one-time key for the named account (see ``issue_reset_key``)."""
        await self.moderation.require(user, "administrator")
        return await issue_reset_key(self.storage, user.name, name)

    async def reset_password(self, key: str, password: str, address: str) -> str:
        """Spend a link: the account's new password; every session of it ends. The
        account's name, to sign in with."""
        check_new_password(password)
        self.quotas.take("logins_per_address", address)
        password_hash = await self.accounts.new_hash(password)
        user_id = await self.storage.account_life.use_reset(session_key(key), password_hash)
        if user_id is None:
            raise ServerError("bad_reset_link", status=404)
        row = await self.storage.accounts.load(user_id)
        assert row is not None
        self.accounts.end_every_session(User(row.id, row.name, False))
        _log.info(
            "the password is set by a reset link; every session ends", extra={"user": row.name}
        )
        return row.name


def _skill(skill: Skill | None) -> dict[str, float] | None:
    return None if skill is None else {"mu": skill.mu, "sigma": skill.sigma}


async def issue_reset_key(storage: Storage, by: str, name: str) -> str:
    """A new one-time key that sets the named account's password (the account's earlier one
    no longer works), kept in the audit log as given ``by`` whom."""
    row = await storage.accounts.named(name)
    if row is None or row.guest or row.password_hash is None:  # bots have none
        raise ServerError("no_such_account", status=404, name=name[:32])
    key = token_urlsafe(24)
    ttl = RESET_LINK_HOURS * 3600.0
    await storage.account_life.keep_reset(session_key(key), row.id, ttl)
    await storage.moderation.log(audit_entry(by, "reset_link", row.name, ""))
    return key
