"""Ignores, friendships and private messages between accounts."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Connection, and_, case, delete, func, insert, or_, select, update

from tapisvert.server.storage.schema import (
    friendships_table,
    ignores_table,
    messages_table,
    users_table,
)
from tapisvert.server.storage.writer import Writer

Asked = Literal["asked", "accepted", "already_asked", "already_friends"]
"""What asking for a friendship did: a new request, the other's request accepted, or nothing."""


@dataclass(frozen=True)
class MessageRow:
    id: int
    sender: str
    recipient: str
    text: str
    table: int | None
    sent_at: float
    read: bool


@dataclass(frozen=True)
class Relations:
    """One person's ties, each a list of (id, name): friends, the requests they received and
    those they sent, and the people they ignore."""

    friends: list[tuple[int, str]]
    asked_by: list[tuple[int, str]]
    asking: list[tuple[int, str]]
    ignored: list[tuple[int, str]]


class SocialStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def person(self, name: str, key: str) -> tuple[int, str, bool] | None:
        """The id and name of whoever is named ``name``, or else whose name's key is ``key``
        (a name that looks the same), and whether they have an account (not a guest, not a
        bot)."""

        def work(connection: Connection) -> tuple[int, str, bool] | None:
            columns = select(
                users_table.c.id, users_table.c.name, users_table.c.guest, users_table.c.bot
            )
            row = connection.execute(columns.where(users_table.c.name == name)).first()
            if row is None and key:
                row = connection.execute(columns.where(users_table.c.name_key == key)).first()
            if row is None:
                return None
            return int(row.id), str(row.name), not row.guest and not row.bot

        return await self._writer.run(work)

    # -- ignores ----------------------------------------------------------------------

    async def ignore(self, user_id: int, other_id: int) -> bool:
        """``user_id`` ignores ``other_id``: their friendship and requests go too (whether
        there were some)."""

        def work(connection: Connection) -> bool:
            ended = _unfriend(connection, user_id, other_id)
            mine = (ignores_table.c.user_id == user_id) & (ignores_table.c.ignored_id == other_id)
            if connection.execute(select(ignores_table.c.since).where(mine)).first() is None:
                values = {"user_id": user_id, "ignored_id": other_id, "since": time.time()}
                connection.execute(insert(ignores_table).values(**values))
            return ended

        return await self._writer.run(work)

    async def unignore(self, user_id: int, other_id: int) -> bool:
        """Whether ``user_id`` ignored ``other_id`` (and no longer does)."""
        mine = (ignores_table.c.user_id == user_id) & (ignores_table.c.ignored_id == other_id)
        result = await self._writer.run(lambda c: c.execute(delete(ignores_table).where(mine)))
        return bool(result.rowcount)

    async def ignores(self, user_id: int, other_id: int) -> bool:
        """Whether ``user_id`` ignores ``other_id``."""
        mine = (ignores_table.c.user_id == user_id) & (ignores_table.c.ignored_id == other_id)
        query = select(ignores_table.c.since).where(mine)
        return await self._writer.run(lambda c: c.execute(query).first()) is not None

    # -- friendships ------------------------------------------------------------------

    async def ask(self, asker_id: int, asked_id: int) -> Asked:
        """``asker_id`` asks ``asked_id`` to be friends; a request the other way is accepted."""

        def work(connection: Connection) -> Asked:
            theirs = _pair(asked_id, asker_id)
            found = connection.execute(select(friendships_table).where(theirs)).first()
            if found is not None:
                if found.accepted_at is not None:
                    return "already_friends"
                accepted = update(friendships_table).where(theirs)
                connection.execute(accepted.values(accepted_at=time.time()))
                return "accepted"
            mine = connection.execute(
                select(friendships_table).where(_pair(asker_id, asked_id))
            ).first()
            if mine is not None:
                return "already_friends" if mine.accepted_at is not None else "already_asked"
            values = {"asker_id": asker_id, "asked_id": asked_id, "asked_at": time.time()}
            connection.execute(insert(friendships_table).values(**values))
            return "asked"

        return await self._writer.run(work)

    async def unfriend(self, user_id: int, other_id: int) -> bool:
        """End a friendship, or a request either way; whether there was one."""
        return await self._writer.run(lambda c: _unfriend(c, user_id, other_id))

    async def relations(self, user_id: int) -> Relations:
        def work(connection: Connection) -> Relations:
            asked = select(
                friendships_table.c.asked_id, users_table.c.name, friendships_table.c.accepted_at
            ).join(users_table, users_table.c.id == friendships_table.c.asked_id)
            asker = select(
                friendships_table.c.asker_id, users_table.c.name, friendships_table.c.accepted_at
            ).join(users_table, users_table.c.id == friendships_table.c.asker_id)
            sent = connection.execute(asked.where(friendships_table.c.asker_id == user_id)).all()
            got = connection.execute(asker.where(friendships_table.c.asked_id == user_id)).all()
            ignored = connection.execute(
                select(ignores_table.c.ignored_id, users_table.c.name)
                .join(users_table, users_table.c.id == ignores_table.c.ignored_id)
                .where(ignores_table.c.user_id == user_id)
            ).all()
            friends = [(row[0], row[1]) for row in [*sent, *got] if row[2] is not None]
            return Relations(
                friends=_by_name(friends),
                asked_by=_by_name([(row[0], row[1]) for row in got if row[2] is None]),
                asking=_by_name([(row[0], row[1]) for row in sent if row[2] is None]),
                ignored=_by_name([(row[0], row[1]) for row in ignored]),
            )

        return await self._writer.run(work)

    # -- messages ---------------------------------------------------------------------

    async def send(self, sender_id: int, recipient_id: int, text: str, table: int | None) -> int:
        values: dict[str, Any] = {
            "sender_id": sender_id,
            "recipient_id": recipient_id,
            "text": text,
            "table_id": table,
            "sent_at": time.time(),
        }

        def work(connection: Connection) -> int:
            inserted = connection.execute(insert(messages_table).values(**values))
            key = inserted.inserted_primary_key
            assert key is not None
            return int(key[0])

        return await self._writer.run(work)

    async def message(self, message_id: int) -> MessageRow:
        rows = await self._writer.run(lambda c: _messages(c, messages_table.c.id == message_id, 1))
        return rows[0]

    async def messages_of(self, user_id: int, limit: int) -> list[MessageRow]:
        """The latest ``limit`` messages the person sent or received, oldest first."""
        mine = (messages_table.c.sender_id == user_id) | (messages_table.c.recipient_id == user_id)
        return await self._writer.run(lambda c: _messages(c, mine, limit))

    async def unread(self, user_id: int, limit: int) -> list[MessageRow]:
        """The latest messages ``user_id`` has not read, oldest first, but for their
        ignored's."""
        return await self._writer.run(lambda c: _messages(c, _unread(user_id), limit))

    async def unread_count(self, user_id: int) -> int:
        query = select(func.count()).select_from(messages_table).where(_unread(user_id))
        counted: int | None = await self._writer.run(lambda c: c.execute(query).scalar())
        return counted or 0

    async def conversation(self, user_id: int, other_id: int, limit: int) -> list[MessageRow]:
        """The latest messages between two people, oldest first."""
        condition = or_(
            _sent(user_id, other_id) & messages_table.c.sender_id.not_in(_ignored_by(user_id)),
            _sent(other_id, user_id),
        )
        return await self._writer.run(lambda c: _messages(c, condition, limit))

    async def correspondents(self, user_id: int, limit: int) -> list[tuple[str, int, float]]:
        """Whom ``user_id`` exchanged messages with (latest first): their name, how many of
        their messages are unread, and when the last one was sent."""

        def work(connection: Connection) -> list[tuple[str, int, float]]:
            other = func.coalesce(
                func.nullif(messages_table.c.sender_id, user_id), messages_table.c.recipient_id
            ).label("other")
            unread = func.sum(
                case(
                    (
                        (messages_table.c.recipient_id == user_id)
                        & messages_table.c.read_at.is_(None),
                        1,
                    ),
                    else_=0,
                )
            )
            mine = or_(
                messages_table.c.sender_id == user_id, messages_table.c.recipient_id == user_id
            )
            grouped = (
                select(
                    other, unread.label("unread"), func.max(messages_table.c.sent_at).label("last")
                )
                .where(mine)
                .where(
                    messages_table.c.sender_id.not_in(_ignored_by(user_id))
                    | (messages_table.c.sender_id == user_id)
                )
                .group_by(other)
                .subquery()
            )
            query = (
                select(users_table.c.name, grouped.c.unread, grouped.c.last)
                .join(users_table, users_table.c.id == grouped.c.other)
                .order_by(grouped.c.last.desc())
                .limit(limit)
            )
            return [(row[0], int(row[1] or 0), float(row[2])) for row in connection.execute(query)]

        return await self._writer.run(work)

    async def read(self, user_id: int, other_id: int) -> int:
        """``user_id`` read what ``other_id`` sent them; how many messages that was."""
        unread = _sent(other_id, user_id) & messages_table.c.read_at.is_(None)
        statement = update(messages_table).where(unread).values(read_at=time.time())
        result = await self._writer.run(lambda c: c.execute(statement))
        return int(result.rowcount)


def _pair(asker_id: int, asked_id: int) -> Any:
    return (friendships_table.c.asker_id == asker_id) & (friendships_table.c.asked_id == asked_id)


def _unfriend(connection: Connection, user_id: int, other_id: int) -> bool:
    either = or_(_pair(user_id, other_id), _pair(other_id, user_id))
    return bool(connection.execute(delete(friendships_table).where(either)).rowcount)


def _by_name(people: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return sorted(people, key=lambda person: person[1].casefold())


def _sent(sender_id: int, recipient_id: int) -> Any:
    return (messages_table.c.sender_id == sender_id) & (
        messages_table.c.recipient_id == recipient_id
    )


def _unread(user_id: int) -> Any:
    return and_(
        messages_table.c.recipient_id == user_id,
        messages_table.c.read_at.is_(None),
        messages_table.c.sender_id.not_in(_ignored_by(user_id)),
    )


def _ignored_by(user_id: int) -> Any:
    return select(ignores_table.c.ignored_id).where(ignores_table.c.user_id == user_id)


def _messages(connection: Connection, condition: Any, limit: int) -> list[MessageRow]:
    """The latest ``limit`` messages that meet ``condition``, oldest first, with names."""
    sender = users_table.alias("sender")
    recipient = users_table.alias("recipient")
    query = (
        select(messages_table, sender.c.name.label("sender"), recipient.c.name.label("recipient"))
        .join(sender, sender.c.id == messages_table.c.sender_id)
        .join(recipient, recipient.c.id == messages_table.c.recipient_id)
        .where(condition)
        .order_by(messages_table.c.id.desc())
        .limit(limit)
    )
    rows = connection.execute(query).all()
    return [
        MessageRow(
            id=row.id,
            sender=row.sender,
            recipient=row.recipient,
            text=row.text,
            table=row.table_id,
            sent_at=row.sent_at,
            read=row.read_at is not None,
        )
        for row in reversed(rows)
    ]
