"""Ignores and friends: whom a person hears, who may reach them, and where their friends are.

Whoever a person ignores no longer reaches them: their chat lines (in rooms and at tables)
are not sent to the person's connections, and their private messages, invitations and
friend requests are refused with a clear error ("NAME does not accept…"); ignoring someone
ends a friendship with them. Anyone may ignore anyone, guests included; friends and private
messages are for accounts (a guest is told to register).

Each person's connections, on whichever node, hear their own channel (``inbox_channel``):
what changes for them (a ``social`` frame: friends, requests, ignored, unread messages) and
their private messages are published there, so that a change made on one node reaches every
connection of theirs on the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import orjson

from tapisvert.server.connection import Connection
from tapisvert.server.errors import ServerError
from tapisvert.server.names import name_key
from tapisvert.server.presence import Presence
from tapisvert.server.protocol import Friend, SocialInfo
from tapisvert.server.pubsub import Frame, PubSub
from tapisvert.server.quotas import Quotas
from tapisvert.server.storage import Relations, Storage
from tapisvert.server.users import User

SOCIAL_HEAD = '{"type":"social"'


def inbox_channel(user_id: int) -> str:
    """What every node serving one of the person's connections hears for them: their
    private messages and the changes to their friends and ignored."""
    return f"inbox:{user_id}"


@dataclass(frozen=True)
class Person:
    """Someone named in a request."""

    id: int
    name: str
    account: bool
    """Signed in with a password: neither a guest nor a bot."""


class Social:
    """Ignores and friendships, and each connected person's own channel on this node."""

    def __init__(
        self, storage: Storage, presence: Presence, pubsub: PubSub, quotas: Quotas
    ) -> None:
        self.storage = storage
        self.store = storage.social
        self.presence = presence
        self.pubsub = pubsub
        self.quotas = quotas
        self._heard: dict[int, Callable[[Frame], None]] = {}
        """The subscriber of each person's channel, while they have connections here."""

    # -- who is named ----------------------------------------------------------------

    async def person(self, name: str) -> Person:
        """The person of that name (or of one that looks the same), or a clear refusal."""
        found = await self.store.person(name[:32], name_key(name[:32]) if name else "")
        if found is None:
            raise ServerError("no_such_player", status=404, name=name[:32])
        return Person(*found)

    async def other(self, user: User, name: str) -> Person:
        """Someone else than ``user``."""
        other = await self.person(name)
        if other.id == user.id:
            raise ServerError("yourself")
        return other

    async def account_of(self, user: User, name: str) -> Person:
        """For friends and messages: ``user`` has an account, and so has the other."""
        if user.guest:
            raise ServerError("social_guest", status=403)
        other = await self.other(user, name)
        if not other.account:
            raise ServerError("not_an_account", name=other.name)
        return other

    async def may_reach(self, user: User, other: Person) -> None:
        """Refuse when either ignores the other: they are told which one."""
        if await self.store.ignores(other.id, user.id):
            raise ServerError("not_accepting", status=403, name=other.name)
        if await self.store.ignores(user.id, other.id):
            raise ServerError("ignoring", name=other.name)

    # -- ignores ------------------------------------------------------------------------

    async def ignore(self, user: User, name: str) -> str:
        """``user`` ignores the person named; their name as it is written."""
        other = await self.other(user, name)
        if await self.store.ignore(user.id, other.id):  # no longer friends: they see it
            await self.changed(other.id)
        await self.changed(user.id)
        return other.name

    async def unignore(self, user: User, name: str) -> str:
        other = await self.other(user, name)
        if not await self.store.unignore(user.id, other.id):
            raise ServerError("not_ignored", name=other.name)
        await self.changed(user.id)
        return other.name

    # -- friends ------------------------------------------------------------------------

    async def befriend(self, user: User, name: str) -> tuple[str, bool]:
        """Ask the person named to be friends, or accept their request: their name, and
        whether they are friends now."""
        other = await self.account_of(user, name)
        await self.may_reach(user, other)
        self.quotas.take("friend_requests", user.id)
        done = await self.store.ask(user.id, other.id)
        if done in ("already_asked", "already_friends"):
            raise ServerError(done, name=other.name)
        await self.changed(user.id, other.id)
        return other.name, done == "accepted"

    async def unfriend(self, user: User, name: str) -> str:
        """End a friendship, withdraw a request or turn one down."""
        other = await self.other(user, name)
        if not await self.store.unfriend(user.id, other.id):
            raise ServerError("not_friends", name=other.name)
        await self.changed(user.id, other.id)
        return other.name

    async def info(self, user_id: int) -> SocialInfo:
        """Everything the person's ``social`` frame says, friends' whereabouts included."""
        relations: Relations = await self.store.relations(user_id)
        friends = []
        for friend_id, name in relations.friends:
            online = self.presence.is_online(friend_id)
            tables = []
            if online:
                seated = await self.storage.tables.seated(friend_id, ["open", "playing"])
                tables = [row.id for row in seated]
            friends.append(Friend(name=name, online=online, tables=tables))
        return SocialInfo(
            friends=friends,
            asked_by=[name for _, name in relations.asked_by],
            asking=[name for _, name in relations.asking],
            ignored=[name for _, name in relations.ignored],
            unread=await self.store.unread_count(user_id),
        )

    async def changed(self, *user_ids: int) -> None:
        """Tell each person online their new ``social`` frame, on every node."""
        for user_id in user_ids:
            if self.presence.is_online(user_id):
                info = await self.info(user_id)
                self.pubsub.publish(inbox_channel(user_id), info.model_dump_json())

    # -- each person's channel -----------------------------------------------------------

    async def connected(self, connection: Connection) -> None:
        """A new connection hears its person's channel, from now on, and follows the people
        they ignore; it is sent their ``social`` frame unless it would be empty (no friends,
        requests, ignored or unread messages: a guest's, usually)."""
        user_id = connection.user.id
        if connection.closed:  # gone before this began (see ``disconnected``)
            return
        if user_id not in self._heard:
            self._heard[user_id] = heard = self._hearer(user_id)
            self.pubsub.subscribe(inbox_channel(user_id), heard)
            await self.pubsub.following(inbox_channel(user_id))
        info = await self.info(user_id)
        connection.ignored = frozenset(info.ignored)
        if info.friends or info.asked_by or info.asking or info.ignored or info.unread:
            connection.send(info)

    def disconnected(self, connection: Connection) -> None:
        """The connection is closing: its person's channel is no longer heard here once
        their last connection here closes."""
        user_id = connection.user.id
        if not self.presence.connections.get(user_id, set()) - {connection}:
            heard = self._heard.pop(user_id, None)
            if heard is not None:
                self.pubsub.unsubscribe(inbox_channel(user_id), heard)

    def _hearer(self, user_id: int) -> Callable[[Frame], None]:
        def heard(frame: Frame) -> None:
            if not isinstance(frame, str):
                return
            connections = list(self.presence.connections.get(user_id, ()))
            if frame.startswith(SOCIAL_HEAD):
                ignored = frozenset(orjson.loads(frame)["ignored"])
                for connection in connections:
                    connection.ignored = ignored
            for connection in connections:
                connection.deliver(frame)

        return heard
