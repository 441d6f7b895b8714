"""The pub/sub port over Redis, so that several server processes share channels.

A frame published here reaches this process's own subscribers at once, exactly as with
``LocalPubSub``, and goes to Redis for the subscribers of other processes; each process
ignores its own frames when Redis hands them back (as Socket.IO's Redis adapter does). So one
node behaves as it does without Redis, even while Redis is away, and other nodes receive each
publisher's frames on a channel in the order it published them: one connection publishes them,
in order, and one pub/sub connection receives them, following exactly the channels this
process's subscribers follow.

A frame crosses as a header line (publishing process, frame number, kind) and its body: a JSON
text as is, or a notice as JSON, rendered in each reader's language where it is read. One frame
object published on two channels (a table's news, for its room and its players) has one number
and arrives as one object, so that a connection following both still sends it once.

``has_subscribers`` answers whether anyone, in any process, follows a channel: subscribers here
are known at once; those of other processes as Redis counted them at most ``COUNT_SECONDS``
ago. A view a table skips because a newcomer elsewhere was not counted yet is not lost for
good: a channel's next view after a skipped one is a full one.

Channels whose followers elsewhere ask the publisher for a snapshot before they read on
(``asked_first``: a seat's views, whose follower's node is then ``expect``ed) reach Redis only
while someone elsewhere follows them: a node whose tables' players are all its own sends
their views to nobody else, and does not read them back.

Redis must be trusted like the database: whoever can publish on it can speak for the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import uuid
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from tapisvert.server.pubsub import Frame, LocalPubSub, Subscriber
from tapisvert.server.retrying import Recovering

PREFIX_VARIABLE = "TAPISVERT_BUS_PREFIX"
"""Names what goes before every channel and key: the platform's share of a Redis server, by
default ``tapisvert:`` (pub/sub channels are the same in every Redis database, so the number
in a URL does not separate two platforms; a prefix does)."""
COUNT_SECONDS = 0.5
"""How often the subscribers of other processes are counted, for the channels asked about."""
FORGET_SECONDS = 30.0
"""A channel nobody asked about for this long is no longer counted."""
POLL_SECONDS = 0.02
"""The longest a change of subscriptions waits for the reader to apply it."""
EXPECT_SECONDS = 4 * COUNT_SECONDS
"""How long a channel another process said it follows counts as followed: until Redis has
counted its new subscriber for sure."""
RETRY_FIRST = 0.1
RETRY_LONGEST = 5.0
"""Seconds before reconnecting after a Redis error, doubling each time up to the longest."""
OUTBOX_LIMIT = 100_000
"""Frames kept for other processes while Redis is away; beyond it, the oldest are dropped."""
BATCH = 500
"""Frames sent to Redis in one round trip, at most."""

log = logging.getLogger(__name__)


def bus_prefix() -> str:
    """What goes before every channel and key (see ``PREFIX_VARIABLE``)."""
    return os.environ.get(PREFIX_VARIABLE, "tapisvert:")


def bus_client(url: str, name: str | None = None) -> aioredis.Redis:
    """A client of the Redis server at ``url`` (``redis://``, ``rediss://`` or ``unix://``),
    its connections named ``name`` in Redis's ``CLIENT LIST``."""
    return aioredis.Redis.from_url(url, client_name=name)


def watched(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """A task that runs for the process's life: should it end with an error, the log says so."""

    def report(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("a Redis task stopped", exc_info=task.exception())

    task = asyncio.get_running_loop().create_task(work)
    task.add_done_callback(report)
    return task


async def finish(tasks: list[asyncio.Task[None]]) -> None:
    """Wait for tasks told to end; cancel any that takes longer than its longest command."""
    if tasks:
        _, late = await asyncio.wait(tasks, timeout=2 * RETRY_LONGEST)
        for task in late:
            log.error("a Redis task did not end: it is cancelled")
            task.cancel()


def recovering(what: str, until: Callable[[], bool]) -> Recovering:
    """Calls to Redis tried again after its errors, from ``RETRY_FIRST`` to
    ``RETRY_LONGEST`` seconds apart, until they work or ``until`` holds."""
    return Recovering(log, what, (RedisError, OSError), RETRY_FIRST, RETRY_LONGEST, until)


class RedisPubSub:
    """The pub/sub port over a Redis server: call ``start`` on the event loop first."""

    def __init__(
        self,
        url: str,
        prefix: str | None = None,
        asked_first: Callable[[str], bool] | None = None,
    ) -> None:
        self.url = url
        self._asked_first = asked_first or (lambda channel: False)
        self.prefix = bus_prefix() if prefix is None else prefix
        self.node = uuid.uuid4().hex
        """This process, in the frames it publishes."""
        self._local = LocalPubSub()
        self._outbox: deque[tuple[str, bytes]] = deque()
        self._dropped = 0
        self._numbered = 0
        self._last_published: tuple[Frame, str, int] | None = None
        self._last_received: tuple[bytes, int, Frame] | None = None
        self._latest: dict[tuple[str, bytes], int] = {}
        """The number of the last frame read on each channel from each other process."""
        self._followed: set[str] = set()
        """The channels the pub/sub connection follows in Redis."""
        self._asked: dict[str, float] = {}
        self._elsewhere: dict[str, int] = {}
        """Subscribers of other processes, by channel, as last counted."""
        self._expected: dict[str, float] = {}
        """Channels another process said it follows, until when they count as followed."""
        self._redis: aioredis.Redis | None = None
        self._open = True
        """Until ``close``: the tasks end when it turns false (a task cancelled inside a
        redis-py command may wait for ever; one that sees this ends between two)."""
        self._wake = asyncio.Event()
        self._resubscribe = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._publishing = recovering("publishing to Redis", self._closing)
        self._reading = recovering("reading from Redis", self._closing)
        self._counting = recovering("counting subscribers in Redis", self._closing)
        self._pubsub: Any = None
        """The connection that follows channels in Redis, while it works."""

    def _closing(self) -> bool:
        return not self._open

    @property
    def trouble(self) -> BaseException | None:
        """The last Redis error, while Redis fails; ``None`` when all is well."""
        return self._publishing.trouble or self._reading.trouble or self._counting.trouble

    async def start(self) -> None:
        """Connect (an unreachable Redis raises here, not later) and start the tasks that
        publish, read and count."""
        self._redis = bus_client(self.url, f"tapisvert-{self.node}")
        await self._redis.ping()
        self._tasks = [
            watched(self._publish_loop(self._redis)),
            watched(self._read_loop(self._redis)),
            watched(self._count_loop(self._redis)),
        ]

    async def close(self) -> None:
        """Send what is waiting (a second at most), then disconnect."""
        deadline = time.monotonic() + 1.0
        while self._outbox and self._publishing.trouble is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        self._open = False
        self._wake.set()
        self._resubscribe.set()
        await finish(self._tasks)
        if self._redis is not None:
            await self._redis.aclose()

    # -- the port ---------------------------------------------------------------------

    def subscribe(self, channel: str, subscriber: Subscriber) -> None:
        self._local.subscribe(channel, subscriber)
        if channel not in self._followed:
            self._resubscribe.set()

    def unsubscribe(self, channel: str, subscriber: Subscriber) -> None:
        self._local.unsubscribe(channel, subscriber)
        if channel in self._followed and not self._local.has_subscribers(channel):
            self._resubscribe.set()

    def publish(self, channel: str, frame: Frame) -> None:
        self._local.publish(channel, frame)
        if self._asked_first(channel) and not self._followed_elsewhere(channel):
            return
        last = self._last_published
        if last is not None and last[0] is frame and last[1] != channel:
            number = last[2]
        else:
            self._numbered += 1
            number = self._numbered
            self._last_published = (frame, channel, number)
        if isinstance(frame, str):
            body = f"{self.node} {number} t\n{frame}".encode()
        else:
            body = f"{self.node} {number} d\n".encode() + orjson.dumps(frame)
        if len(self._outbox) >= OUTBOX_LIMIT:
            self._outbox.popleft()
            self._dropped += 1
        self._outbox.append((self.prefix + channel, body))
        self._wake.set()

    def has_subscribers(self, channel: str) -> bool:
        return self._local.has_subscribers(channel) or self._followed_elsewhere(channel)

    def _followed_elsewhere(self, channel: str) -> bool:
        now = time.monotonic()
        self._asked[channel] = now
        return self._elsewhere.get(channel, 0) > 0 or self._expected.get(channel, 0.0) > now

    def expect(self, channel: str) -> None:
        self._expected[channel] = time.monotonic() + EXPECT_SECONDS

    async def following(self, channel: str) -> None:
        deadline = time.monotonic() + EXPECT_SECONDS
        while channel not in self._followed and time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS / 4)

    # -- the tasks --------------------------------------------------------------------

    async def _publish_loop(self, client: aioredis.Redis) -> None:
        """Send the outbox in order, in batches; after an error, send the same frames again
        (readers drop a frame they already read)."""
        while self._open:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox and self._open:
                await self._publishing(self._send_outbox, client)

    async def _send_outbox(self, client: aioredis.Redis) -> None:
        """Send batches while there are frames; back from trouble, hand over at once, so
        that the next error waits the first wait again."""
        while self._outbox and self._open:
            if self._dropped:
                log.error("%d frames for other processes were dropped", self._dropped)
                self._dropped = 0
            batch = [self._outbox.popleft() for _ in range(min(BATCH, len(self._outbox)))]
            try:
                async with client.pipeline(transaction=False) as pipe:
                    for channel, body in batch:
                        pipe.publish(channel, body)
                    await pipe.execute()
            except (RedisError, OSError):
                self._outbox.extendleft(reversed(batch))
                raise
            if self._publishing.trouble is not None:
                return

    async def _read_loop(self, client: aioredis.Redis) -> None:
        """Follow in Redis the channels followed here and hand their frames to the local
        subscribers; reconnect and follow them again after an error."""
        try:
            while self._open:
                await self._reading(self._read, client)
        finally:
            await self._unfollow_all()

    async def _read(self, client: aioredis.Redis) -> None:
        """Hand on the frames as they come, following (again) the channels followed here;
        back from trouble, hand over after the first read, so that the next error waits the
        first wait again."""
        if self._pubsub is None:
            self._pubsub = client.pubsub(ignore_subscribe_messages=True)
            self._followed = set()
        while self._open:
            try:
                if self._resubscribe.is_set() or not self._followed:
                    self._resubscribe.clear()
                    await self._follow(self._pubsub)
                if not self._followed:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._resubscribe.wait(), 1.0)
                    continue
                message = await self._pubsub.get_message(True, timeout=POLL_SECONDS)
            except (RedisError, OSError):
                await self._unfollow_all()
                raise
            if message is not None and message["type"] == "message":
                try:
                    self._receive(message["channel"], message["data"])
                except ValueError:
                    log.exception("a frame on %r could not be read", message["channel"])
            if self._reading.trouble is not None:
                return

    async def _unfollow_all(self) -> None:
        """Close the connection that follows channels (a new one follows them again)."""
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()

    async def _follow(self, pubsub: Any) -> None:
        wanted = set(self._local.channels())
        added, removed = wanted - self._followed, self._followed - wanted
        if added:
            await pubsub.subscribe(*(self.prefix + channel for channel in added))
        if removed:
            await pubsub.unsubscribe(*(self.prefix + channel for channel in removed))
            for key in [key for key in self._latest if key[0] in removed]:
                del self._latest[key]
        self._followed = wanted

    def _receive(self, prefixed: bytes, data: bytes) -> None:
        channel = prefixed.decode()[len(self.prefix) :]
        head, _, body = data.partition(b"\n")
        node, number_text, kind = head.split(b" ")  # a ValueError if it is not a frame
        if node == self.node.encode():
            return  # delivered here when it was published
        number = int(number_text)
        if number <= self._latest.get((channel, node), 0):
            return  # sent again after an error
        self._latest[(channel, node)] = number
        last = self._last_received
        if last is not None and last[0] == node and last[1] == number:
            frame = last[2]
        else:
            frame = body.decode() if kind == b"t" else orjson.loads(body)
            self._last_received = (node, number, frame)
        try:
            self._local.publish(channel, frame)
        except Exception:
            log.exception("a subscriber of %s failed on a frame from another process", channel)

    async def _count_loop(self, client: aioredis.Redis) -> None:
        """Count other processes' subscribers on the channels asked about lately."""
        while self._open:
            await asyncio.sleep(COUNT_SECONDS)
            await self._counting(self._count, client)

    async def _count(self, client: aioredis.Redis) -> None:
        now = time.monotonic()
        for channel in [name for name, at in self._asked.items() if now - at > FORGET_SECONDS]:
            del self._asked[channel]
            self._elsewhere.pop(channel, None)
        for channel in [name for name, until in self._expected.items() if until < now]:
            del self._expected[channel]
        channels = list(self._asked)
        if not channels:
            return
        counts = await client.pubsub_numsub(*(self.prefix + name for name in channels))
        self._elsewhere = {
            channel: count - (channel in self._followed)
            for channel, (_, count) in zip(channels, counts, strict=True)
        }
