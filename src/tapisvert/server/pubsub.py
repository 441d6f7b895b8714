"""The pub/sub port: tables publish frames on channels, connections subscribe.

Frames are already filtered for their channel (one channel per seat, one for
spectators, one public per table and per room), so whatever carries them never
holds anything a subscriber may not see. The in-process adapter is enough for one
server process; ``tapisvert.server.redis_bus`` carries the same frames between processes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, KeysView
from typing import Any, Protocol

Frame = str | dict[str, Any]
"""A JSON text sent as is, or a notice rendered in each reader's language on delivery."""
Subscriber = Callable[[Frame], None]


class PubSub(Protocol):
    def subscribe(self, channel: str, subscriber: Subscriber) -> None: ...
    def unsubscribe(self, channel: str, subscriber: Subscriber) -> None: ...
    def publish(self, channel: str, frame: Frame) -> None: ...
    def has_subscribers(self, channel: str) -> bool:
        """Whether anyone, in this process or another, may follow ``channel``: a publisher
        skips building frames nobody follows. Subscribers of other processes may be counted
        a moment late (see ``redis_bus``), never the ones of this process."""
        ...

    def expect(self, channel: str) -> None:
        """Someone in another process has just started to follow ``channel``: count them
        at once, before they can be counted."""
        ...

    async def following(self, channel: str) -> None:
        """Return once what anyone publishes on ``channel`` reaches this process's
        subscribers (that is at once, within one process)."""
        ...


class LocalPubSub:
    """Delivery inside one process, in publishing order."""

    def __init__(self) -> None:
        self._channels: defaultdict[str, dict[Subscriber, None]] = defaultdict(dict)

    def subscribe(self, channel: str, subscriber: Subscriber) -> None:
        self._channels[channel][subscriber] = None

    def unsubscribe(self, channel: str, subscriber: Subscriber) -> None:
        subscribers = self._channels.get(channel)
        if subscribers is not None:
            subscribers.pop(subscriber, None)
            if not subscribers:
                del self._channels[channel]

    def publish(self, channel: str, frame: Frame) -> None:
        for subscriber in list(self._channels.get(channel, ())):
            subscriber(frame)

    def has_subscribers(self, channel: str) -> bool:
        return bool(self._channels.get(channel))

    def expect(self, channel: str) -> None:
        """Nobody else is there to expect."""

    async def following(self, channel: str) -> None:
        return

    def channels(self) -> KeysView[str]:
        """The channels someone follows."""
        return self._channels.keys()


PRESENCE_CHANNEL = "presence"
"""Where each node says who is connected to it."""

LEASES_CHANNEL = "leases"
"""Where a stopping node says it let its tables' leases go, for the others to take them now."""

ACCOUNTS_CHANNEL = "accounts"
"""Where each node says which account it deleted, for the others to forget its name."""


def user_channel(user_id: int) -> str:
    """What every node serving one of the user's connections hears for them."""
    return f"user:{user_id}"


def room_channel(room: str) -> str:
    return f"room:{room}"


def table_channel(table: int) -> str:
    return f"table:{table}"


def seat_channel(table: int, seat: int | None) -> str:
    return f"table:{table}:watch" if seat is None else f"table:{table}:seat:{seat}"


def is_seat_channel(channel: str) -> bool:
    """Whether ``channel`` carries one seat's views (or the spectators'): whoever follows it
    from another node asks the table's node for a snapshot first, which ``expect``s them."""
    return (channel.startswith("table:") and channel.endswith(":watch")) or ":seat:" in channel
