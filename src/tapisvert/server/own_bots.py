"""Bot accounts of one's own: a person's program plays through the protocol, as a person.

A person (not a guest) may own a few bot accounts. Each is an account like any other,
marked as a bot, its owner shown wherever it sits. It signs in with a token its owner
makes (a session of the bot's, which no password opens), plays through the WebSocket
protocol and so sees exactly what its seat sees, and is rated like everyone. People invite
it to their table as they add a built-in bot, while it is connected; it may also sit down
itself. Limits per owner keep one person from filling the server: ``bots_per_owner``
accounts, and ``bot_tables_per_owner`` open and playing tables for all of them together.
A bot account that lets its clock run out, or stays away, is replaced by a built-in bot for
the rest of that game (see ``GameTable.come_back``).
"""

from __future__ import annotations

from tapisvert.bots.base import ALIASES, HEURISTIC, LEVELS
from tapisvert.server.accounts import Accounts
from tapisvert.server.cluster import Cluster
from tapisvert.server.connections import Connections
from tapisvert.server.errors import ServerError
from tapisvert.server.names import name_key, valid_name
from tapisvert.server.presence import Presence
from tapisvert.server.settings import Settings
from tapisvert.server.storage import Storage
from tapisvert.server.storage.rows import UserRow
from tapisvert.server.users import User

LIVE = ("open", "playing")
INVITES = ("anyone", "friends", "nobody")
RESERVED = frozenset({*LEVELS, *ALIASES, HEURISTIC})
"""Names a bot account may not take: the built-in bots' levels, which ``/bot add`` reads
first."""


class BotSeats:
    """Whether a bot account may sit at one more table, and who owns it."""

    def __init__(self, storage: Storage, settings: Settings) -> None:
        self.storage = storage
        self.settings = settings

    async def owner_of(self, user: User, table_id: int | None = None) -> str | None:
        """The name of the person who owns ``user``, a bot account that may sit at one more
        table (refused past its owner's limit, unless it sits at ``table_id`` already: it
        comes back to its seat); ``None`` for a person."""
        if user.owner_id is None:
            return None
        owner = await self.storage.accounts.load(user.owner_id)
        if owner is None:
            raise ServerError("no_such_bot_account", status=404, name=user.name)
        seated = 0
        for bot in await self.storage.accounts.owned_bots(owner.id):
            tables = await self.storage.tables.seated(bot.id, LIVE)
            if bot.id == user.id and any(table.id == table_id for table in tables):
                return owner.name
            seated += len(tables)
        limit = self.settings.bot_tables_per_owner
        if seated >= limit:
            raise ServerError("bot_tables_limit", status=429, owner=owner.name, limit=limit)
        return owner.name


class OwnBots:
    """Making bot accounts, their tokens, and inviting them to a table."""

    def __init__(
        self,
        storage: Storage,
        settings: Settings,
        accounts: Accounts,
        presence: Presence,
        cluster: Cluster,
        connections: Connections,
        seats: BotSeats,
    ) -> None:
        self.storage = storage
        self.settings = settings
        self.accounts = accounts
        self.presence = presence
        self.cluster = cluster
        self.connections = connections
        self.seats = seats

    async def create(self, owner: User, text: str) -> UserRow:
        """A new bot account of ``owner``'s, named ``text``."""
        if owner.guest:
            raise ServerError("guest_bots", status=403)
        if owner.owner_id is not None:
            raise ServerError("bots_own_no_bots", status=403)
        name = valid_name(text)
        if name.casefold() in RESERVED:
            raise ServerError("name_taken", status=409, name=name)
        limit = self.settings.bots_per_owner
        if len(await self.storage.accounts.owned_bots(owner.id)) >= limit:
            raise ServerError("too_many_bots", status=409, limit=limit)
        bot_id = await self.storage.accounts.create(
            name, name_key(name), None, False, owner_id=owner.id
        )
        if bot_id is None:
            raise ServerError("name_taken", status=409, name=name)
        self.presence.names[bot_id] = name
        return UserRow(bot_id, name, None, False, True, owner.id)

    async def mine(self, owner: User) -> list[UserRow]:
        return await self.storage.accounts.owned_bots(owner.id)

    async def new_token(self, owner: User, name: str) -> str:
        """A token for the bot account: its earlier ones stop working, and their
        connections close (one program plays for a bot account at a time)."""
        bot = await self._owned(owner, name)
        await self._end_sessions(bot)
        token, _ = await self.accounts.open_session(User(bot.id, bot.name, False))
        return token

    async def revoke(self, owner: User, name: str) -> None:
        """No token of the bot account works any more; its connections close, and where it
        sits a built-in bot plays for it once it has been away (see ``GameTable``)."""
        await self._end_sessions(await self._owned(owner, name))

    async def invite(self, user: User, table_id: int, name: str, seat: int | None) -> int:
        """Seat the bot account ``name`` at the open table where ``user`` sits: it must be
        connected, to play when its turn comes."""
        bot = await self._named(name)
        if bot is None or bot.owner_id is None:
            raise ServerError("no_such_bot_account", status=404, name=name[:32])
        if bot.invites == "nobody" or (
            bot.invites == "friends"
            and bot.owner_id != user.id
            and not await self._friends(bot.owner_id, user.id)
        ):
            raise ServerError("bot_not_invited", status=403, name=bot.name)
        if not self.presence.is_online(bot.id):
            raise ServerError("bot_offline", status=409, name=bot.name)
        owner = await self.seats.owner_of(User(bot.id, bot.name, False, owner_id=bot.owner_id))
        index: int = await self.cluster.on_table(
            table_id, "invite", user, bot_id=bot.id, name=bot.name, owner=owner, seat=seat
        )
        await self.connections.follow_all(bot.id, table_id, index)
        return index

    async def allow(self, owner: User, name: str, invites: str) -> None:
        """Who may invite the bot account: ``anyone``, the owner's ``friends`` (and the
        owner), or ``nobody`` (it sits down only by itself)."""
        if invites not in INVITES:
            raise ServerError("bad_invites", invites=invites[:16], choices=", ".join(INVITES))
        await self.storage.accounts.set_invites((await self._owned(owner, name)).id, invites)

    async def _friends(self, owner_id: int, user_id: int) -> bool:
        relations = await self.storage.social.relations(owner_id)
        return any(friend_id == user_id for friend_id, _ in relations.friends)

    async def is_bot_account(self, name: str) -> bool:
        bot = await self._named(name)
        return bot is not None and bot.owner_id is not None

    async def _owned(self, owner: User, name: str) -> UserRow:
        bot = await self._named(name)
        if bot is None or bot.owner_id != owner.id:
            raise ServerError("not_your_bot", status=404, name=name[:32])
        return bot

    async def _named(self, name: str) -> UserRow | None:
        """The account of that name (no name is longer than 32 characters)."""
        return await self.storage.accounts.named(name) if len(name) <= 32 else None

    async def _end_sessions(self, bot: UserRow) -> None:
        await self.storage.sessions.close_every(bot.id)
        self.accounts.end_every_session(User(bot.id, bot.name, False))
