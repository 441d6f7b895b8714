"""One client's link to the server: what it follows, what it may send, what it is sent."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable

import orjson

from tapisvert.server.addresses import TokenBucket
from tapisvert.server.errors import ServerError
from tapisvert.server.links import Link
from tapisvert.server.metrics import Metrics
from tapisvert.server.notices import Said, render_notice
from tapisvert.server.protocol import ChatLine, Error, Reconnect, ServerMessage
from tapisvert.server.pubsub import Frame, PubSub, table_channel
from tapisvert.server.settings import Settings
from tapisvert.server.users import User

VIEW_HEAD = re.compile(r'\{"type":"view","table":(?P<table>\d+),"seq":(?P<seq>\d+),')
"""The head of a view frame (see ``Views.frame``)."""
CHAT_HEAD = '{"type":"chat"'
"""The head of a chat line's frame."""
FLOOD_SECONDS = 10
"""A connection whose refused messages outrun its rate by this many seconds' worth is
dropped: a client that backs off when refused never comes near it."""
RECENT_IDS = 64
"""A request that repeats the id of one of its connection's last this many is refused."""

_log = logging.getLogger(__name__)


class Connection:
    """One client's link: what it follows, what it may send, and its outgoing frames."""

    def __init__(
        self,
        user: User,
        language: str,
        link: Link,
        pubsub: PubSub,
        settings: Settings,
        flooded: Callable[[str], None],
        metrics: Metrics,
        shared: TokenBucket | None = None,
    ) -> None:
        """``flooded``: told the address of a connection cut for flooding; ``metrics``: where
        its frames are counted; ``shared``: the rate the connection shares with the others
        of its address."""
        self._pubsub = pubsub
        self._settings = settings
        self._flooded = flooded
        self._shared = shared
        self._metrics = metrics
        self.user = user
        self.language = language
        self.link = link
        self.channels: set[str] = set()
        self.recent_ids: dict[str, None] = {}
        """The ids of the last ``RECENT_IDS`` requests, oldest first (a dict: looked up by hash)."""
        self._allowance = 2 * settings.rate
        self._refused = 0.0
        """Refused messages, draining at the rate (see ``within_rate``)."""
        self._checked = time.monotonic()
        self.closed = False
        self._held: dict[int, list[str]] = {}
        """Views of tables served elsewhere, kept while their first view is on its way."""
        self.ignored: frozenset[str] = frozenset()
        """The names whose chat lines this connection does not pass on (see ``social``)."""
        self.busy = False
        """A request of the client is being handled (see ``reconnect``)."""
        self.leaving = False
        """The client is to be told to reconnect once its request is answered."""
        self._last_published: Frame | None = None
        """The frame last published to this connection: the same one, published on two of
        its channels, is sent once (two equal chat lines are two lines, and both are sent)."""

    def deliver(self, frame: Frame) -> None:
        """A frame published on a channel this connection listens to."""
        if frame is self._last_published:  # a table's news reaches its room and its players
            return
        if self._held and isinstance(frame, str):
            head = VIEW_HEAD.match(frame)
            if head is not None and int(head["table"]) in self._held:
                self._held[int(head["table"])].append(frame)
                return
        self._last_published = frame
        if self.ignored and isinstance(frame, str) and self._ignored_line(frame):
            return
        if isinstance(frame, dict):
            frame = render_notice(frame, self.language)
        self._enqueue(frame)

    def _ignored_line(self, frame: str) -> bool:
        """Whether ``frame`` is a chat line of someone this connection's person ignores."""
        return frame.startswith(CHAT_HEAD) and orjson.loads(frame)["sender"] in self.ignored

    def send(self, message: ServerMessage) -> None:
        """A frame for this connection alone: an answer, or the view it asked for."""
        self._enqueue(message.model_dump_json())

    def recall(self, history: Iterable[Said]) -> None:
        """What a room or a table said before this connection came, marked as history."""
        for said in history:
            if isinstance(said, ChatLine):
                if said.sender in self.ignored:
                    continue
                self.send(said.model_copy(update={"history": True}))
            else:
                self._enqueue(render_notice({**said, "history": True}, self.language))

    def _enqueue(self, frame: str) -> None:
        if self.closed:
            return
        if self.link.backlog() >= self._settings.unread_limit:
            self.drop()
            return
        self.link.push(frame)
        self._metrics.frames_sent += 1

    def hold(self, table_id: int) -> None:
        """Keep the table's views until ``release``: the node serving the table is asked for
        its first view, and views published meanwhile may come before it (see
        ``catch_up``)."""
        self._held.setdefault(table_id, [])

    def release(self, table_id: int) -> list[str]:
        """Stop keeping the table's views; those kept since ``hold``."""
        return self._held.pop(table_id, [])

    def catch_up(self, views: list[str], seq: int) -> None:
        """Send the views kept that came after position ``seq`` (the one the table's first
        view showed): the others were changes to a view this connection never had."""
        for frame in views:
            head = VIEW_HEAD.match(frame)
            if head is not None and int(head["seq"]) > seq:
                self._enqueue(frame)

    def listen(self, channel: str) -> None:
        if channel not in self.channels:
            self.channels.add(channel)
            self._pubsub.subscribe(channel, self.deliver)

    def stop_listening(self, test: Callable[[str], bool]) -> None:
        for channel in [name for name in self.channels if test(name)]:
            self.channels.discard(channel)
            self._pubsub.unsubscribe(channel, self.deliver)

    def stop_following(self, table: int, seat_only: bool = False) -> None:
        """Stop hearing a table's views (``seat_only``) or everything about it."""
        public = table_channel(table)
        self.stop_listening(
            lambda name: name.startswith(f"{public}:") or (not seat_only and name == public)
        )

    def follows_seat(self, table_id: int) -> bool:
        """Whether this connection hears its user's seat at the table (and so its views)."""
        seats = f"{table_channel(table_id)}:seat:"
        return any(channel.startswith(seats) for channel in self.channels)

    def within_rate(self) -> bool:
        """A token bucket: ``rate`` messages a second, bursts of twice that.

        Refusals fill a second bucket that drains at ``rate`` a second: a client whose
        refusals outrun it by ``FLOOD_SECONDS`` seconds' worth of messages is flooding, and
        its connection is dropped. A burst that then waits is only slowed down.
        """
        now = time.monotonic()
        rate = self._settings.rate
        elapsed, self._checked = now - self._checked, now
        self._allowance = min(2 * rate, self._allowance + elapsed * rate)
        self._refused = max(0.0, self._refused - elapsed * rate)
        if self._allowance < 1 or (self._shared is not None and not self._shared.take()):
            self._refused += 1
            if self._refused > FLOOD_SECONDS * rate:
                self.drop(ServerError("flooding", status=429))
                self._flooded(self.link.address)
            return False
        self._allowance -= 1
        return True

    def repeated(self, request_id: str | None) -> bool:
        if request_id is None:
            return False
        if request_id in self.recent_ids:
            return True
        self.recent_ids[request_id] = None
        if len(self.recent_ids) > RECENT_IDS:
            del self.recent_ids[next(iter(self.recent_ids))]
        return False

    def close(self, code: int = 1000) -> None:
        if not self.closed:
            self.closed = True
            self.stop_listening(lambda name: True)
            self.link.close(code)

    def reconnect(self) -> None:
        """Tell the client to connect again (this node is stopping) and close the socket
        (1012, a service restart): at once, or once the request being handled is answered,
        so that a client knows that what was answered is done and nothing else is."""
        self.leaving = True
        if not self.busy:
            self.send(Reconnect())
            self.close(code=1012)

    def drop(self, reason: ServerError | None = None) -> None:
        """Cut a connection that floods or does not read (see ``Link.drop``), saying why
        in the log and, as far as it goes, to the client: a socket closed with unread data
        on it may lose its last frames on the way."""
        if not self.closed:
            why = "it does not read" if reason is None else reason.code
            _log.warning("the connection of %s is cut: %s", self.user.name, why)
            if reason is not None:
                refusal = Error(code=reason.code, message=reason.render(self.language))
                self.link.push(refusal.model_dump_json())
            self.closed = True
            self.stop_listening(lambda name: True)
            self.link.drop()
