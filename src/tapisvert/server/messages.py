"""Private messages between accounts (``/tell NAME text``) and invitations to a table.

A message is stored, then published on its recipient's and its sender's channels (see
``social.inbox_channel``): every connection of either, on any node, receives it at once. A
message to someone offline stays unread until they read it; each connection receives the
unread ones when it opens. Replying to someone, or opening the conversation with them, reads
what they sent. Whoever the recipient ignores may not send them anything.
"""

from __future__ import annotations

from tapisvert.server.connection import Connection
from tapisvert.server.errors import ServerError
from tapisvert.server.protocol import PrivateMessage
from tapisvert.server.social import Social, inbox_channel
from tapisvert.server.storage import MessageRow
from tapisvert.server.users import User

MAX_TEXT = 500
CONVERSATION_LENGTH = 100
"""The latest messages of a conversation that are shown."""
UNREAD_SENT = 100
"""Unread messages a new connection receives at most (the latest)."""
CORRESPONDENTS = 50


def message_of(row: MessageRow, history: bool = False) -> PrivateMessage:
    return PrivateMessage(
        message=row.id,
        sender=row.sender,
        recipient=row.recipient,
        text=row.text,
        table=row.table,
        sent_at=row.sent_at,
        read=row.read,
        history=history,
    )


class Messages:
    def __init__(self, social: Social) -> None:
        self.social = social
        self.store = social.store

    async def tell(
        self, user: User, name: str, text: str, table: int | None = None
    ) -> PrivateMessage:
        """Send ``text`` (or an invitation to ``table``) to the account named."""
        if not text.strip() and table is None:
            raise ServerError("empty_message")
        if len(text) > MAX_TEXT:
            raise ServerError("message_too_long", limit=MAX_TEXT)
        other = await self.social.account_of(user, name)
        await self.social.may_reach(user, other)
        self.social.quotas.take("messages", user.id)
        if await self.store.read(user.id, other.id):  # a reply: what they sent is read
            await self.social.changed(user.id)
        number = await self.store.send(user.id, other.id, text.strip(), table)
        sent = message_of(await self.store.message(number))
        frame = sent.model_dump_json()
        self.social.pubsub.publish(inbox_channel(other.id), frame)
        self.social.pubsub.publish(inbox_channel(user.id), frame)
        return sent

    async def invite(self, user: User, name: str, table_id: int) -> PrivateMessage:
        """Invite the account named to an open or playing table."""
        row = await self.social.storage.tables.load(table_id)
        if row is None or row.status not in ("open", "playing"):
            raise ServerError("invite_closed", table=table_id)
        return await self.tell(user, name, "", table_id)

    async def conversation(self, user: User, name: str) -> list[PrivateMessage]:
        """The latest messages between ``user`` and the person named, oldest first; what they
        sent is read from now on."""
        if user.guest:
            raise ServerError("social_guest", status=403)
        other = await self.social.other(user, name)
        rows = await self.store.conversation(user.id, other.id, CONVERSATION_LENGTH)
        if await self.store.read(user.id, other.id):
            await self.social.changed(user.id)
        return [message_of(row) for row in rows]

    async def correspondents(self, user: User) -> list[tuple[str, int, float]]:
        """Whom ``user`` exchanged messages with, latest first: name, unread, last sent."""
        if user.guest:
            raise ServerError("social_guest", status=403)
        return await self.store.correspondents(user.id, CORRESPONDENTS)

    async def unread_for(self, connection: Connection) -> None:
        """Send a new connection the messages its person has not read yet."""
        if connection.user.guest:
            return
        for row in await self.store.unread(connection.user.id, UNREAD_SENT):
            connection.send(message_of(row, history=True))
