"""Relays: processes that hold a node's clients' sockets, talking to it over the bus.

Python runs one thread at a time per process, and sending a frame costs about as much as
deciding what it says: a move sends one to every seat. A node with a bus (Redis) can leave
its WebSockets to relay processes (``serve --relays N``), as Lichess's lila-ws holds
lila's: a relay answers WebSockets on a port of its own and carries their messages to the
node over the bus, and the node's frames back. Pages and the HTTP API stay with the node; a
load balancer sends ``/ws`` to the relays (see the README). A node still answers ``/ws``
itself: a client that reaches it directly is served in process.

On the bus, the records of one turn of a process's event loop travel as one message: a
JSON list, the sending relay's name (empty from the node) and then ``[kind, link number,
text]`` records. Link numbers are the relay's, one per client socket. A relay lives as long
as its node: when the process that started it is gone (stopped, or killed), the relay goes
too, and its clients, their sockets closed, reconnect to the next server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from starlette.types import Receive, Scope, Send

from tapisvert.i18n import accepted_language
from tapisvert.server.errors import ServerError
from tapisvert.server.links import (
    PUBLIC_OPTIONS,
    AsgiLink,
    Pace,
    accept,
    client_address,
    refuse_body,
)
from tapisvert.server.pubsub import PubSub
from tapisvert.server.redis_bus import RedisPubSub

OPEN, MESSAGE, CLOSED, FRAME, CLOSE, DROP = range(6)
"""Relay to node: a client came, sent a message, left. Node to relay: a frame, close it,
drop it (see ``Link.drop``)."""
NODE_WAIT_SECONDS = 30.0
"""How long a starting relay waits for its node to follow its channel on the bus."""
PARENT_CHECK_SECONDS = 0.25
"""How often a relay looks whether the node that started it is still there."""
READ_AHEAD = 4
"""How many times the node's rate a relay reads from one client (see ``Relay.rate``)."""

log = logging.getLogger(__name__)

Record = tuple[int, int, str]


def sockets_channel(node: str) -> str:
    """Where a node hears its relays."""
    return f"sockets:{node}"


def relay_channel(relay: str) -> str:
    """Where a relay hears its node."""
    return f"relay:{relay}"


class Outbox:
    """Records for one channel, all those of one turn of the event loop in one message."""

    def __init__(self, pubsub: PubSub, channel: str, sender: str) -> None:
        self._pubsub = pubsub
        self._channel = channel
        self._sender = sender
        self._waiting: list[Any] = []

    def write(self, kind: int, number: int, text: str = "") -> None:
        if not self._waiting:
            asyncio.get_running_loop().call_soon(self._flush)
            self._waiting.append(self._sender)
        self._waiting.append((kind, number, text))

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        self._pubsub.publish(self._channel, orjson.dumps(waiting).decode())


def read_message(frame: object) -> tuple[str, list[Record]]:
    """The sender and records of a message of the bus; a ``ValueError`` if it is not one."""
    if not isinstance(frame, str):
        raise ValueError("a relay message is a JSON text")
    sender, *records = orjson.loads(frame)
    if not isinstance(sender, str) or not all(
        isinstance(record, list) and len(record) == 3 for record in records
    ):
        raise ValueError("a relay message is a sender and [kind, number, text] records")
    return sender, [(int(kind), int(number), str(text)) for kind, number, text in records]


# -- the node's end ------------------------------------------------------------------


class RelayedLink:
    """A client whose socket a relay holds."""

    def __init__(self, outbox: Outbox, number: int, address: str) -> None:
        self.address = address
        self._outbox = outbox
        self._number = number
        self._closed = False
        self.incoming: asyncio.Queue[str | None] = asyncio.Queue()

    async def receive(self) -> str | None:
        return await self.incoming.get()

    def push(self, frame: str) -> None:
        self._outbox.write(FRAME, self._number, frame)

    def close(self, code: int = 1000) -> None:
        if not self._closed:
            self._closed = True
            self._outbox.write(CLOSE, self._number, str(code))

    def drop(self) -> None:
        if not self._closed:
            self._closed = True
            self._outbox.write(DROP, self._number)

    def backlog(self) -> int:
        return 0  # frames go to the bus at once; the relay holds any backlog

    async def wait_closed(self) -> None:
        return None


class RelayedSockets:
    """A node's end of its relays: each (relay, link number) is one client."""

    def __init__(
        self, pubsub: PubSub, node: str, serve: Callable[[RelayedLink], Coroutine[Any, Any, None]]
    ) -> None:
        self._pubsub = pubsub
        self._channel = sockets_channel(node)
        self._serve = serve
        self._outboxes: dict[str, Outbox] = {}
        self._links: dict[tuple[str, int], RelayedLink] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._pubsub.subscribe(self._channel, self._heard)
        await self._pubsub.following(self._channel)

    def close(self) -> None:
        self._pubsub.unsubscribe(self._channel, self._heard)
        for link in self._links.values():
            link.incoming.put_nowait(None)
        self._links.clear()

    def _heard(self, frame: object) -> None:
        try:
            relay, records = read_message(frame)
        except ValueError:
            log.exception("a message on %s could not be read", self._channel)
            return
        for kind, number, text in records:
            key = (relay, number)
            if kind == OPEN:
                outbox = self._outboxes.get(relay)
                if outbox is None:
                    outbox = self._outboxes[relay] = Outbox(self._pubsub, relay_channel(relay), "")
                link = self._links[key] = RelayedLink(outbox, number, text or "?")
                task = asyncio.get_running_loop().create_task(self._serve(link))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif kind == MESSAGE and key in self._links:
                self._links[key].incoming.put_nowait(text)
            elif kind == CLOSED and key in self._links:
                self._links.pop(key).incoming.put_nowait(None)


# -- the relay -----------------------------------------------------------------------


class Relay:
    """The ASGI application of a relay process."""

    def __init__(self, bus_url: str, node: str, unread_limit: int, rate: float) -> None:
        self.name = uuid.uuid4().hex
        self.node = node
        self.unread_limit = unread_limit
        """Bytes of frames a client may leave unread before its link is dropped."""
        self.rate = READ_AHEAD * rate
        """Messages a second read from one client: more than the node allows, so that the
        node still tells a client that goes too fast, and finds a flood; not so many that
        they pile up in the node."""
        self.clients: dict[int, AsgiLink] = {}
        self._numbers = itertools.count()
        self._pubsub = RedisPubSub(bus_url)
        self._outbox = Outbox(self._pubsub, sockets_channel(node), self.name)
        self._parent = os.getppid()
        self._watching: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "websocket":
            await self._relay_socket(scope, receive, send)
        else:
            accepted = dict(scope["headers"]).get(b"accept-language", b"").decode("latin-1")
            refusal = ServerError("sockets_only", status=404)
            await refuse_body(send, refusal, accepted_language(accepted))

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def start(self) -> None:
        """Join the bus, and wait for the node to follow it; a node that dies meanwhile
        takes this relay with it at once, not at the end of the wait."""
        loop = asyncio.get_running_loop()
        self._watching = loop.create_task(self._watch_parent())
        await self._pubsub.start()
        channel = relay_channel(self.name)
        self._pubsub.subscribe(channel, self._heard)
        await self._pubsub.following(channel)
        deadline = loop.time() + NODE_WAIT_SECONDS
        while not self._pubsub.has_subscribers(sockets_channel(self.node)):
            if loop.time() > deadline:
                raise RuntimeError(f"the node {self.node} does not follow the bus")
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
        await self._pubsub.close()

    async def _watch_parent(self) -> None:
        """The node that started this relay is gone (a relay is its node's child): so are
        this relay and its clients."""
        while os.getppid() == self._parent:
            await asyncio.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    def _heard(self, frame: object) -> None:
        try:
            _, records = read_message(frame)
        except ValueError:
            log.exception("a message from the node could not be read")
            return
        for kind, number, text in records:
            link = self.clients.get(number)
            if link is None:
                continue
            if kind == CLOSE:
                link.close(int(text))
            elif kind == DROP or link.backlog() >= self.unread_limit:
                link.drop()  # a flood, or a client that does not read: the node hears it leave
            else:
                link.push(text)

    async def _relay_socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] != "/ws" or not await accept(receive, send):
            return
        number = next(self._numbers)
        address = client_address(scope)
        link = self.clients[number] = AsgiLink(receive, send, address)
        outbox = self._outbox
        outbox.write(OPEN, number, address)
        pace = Pace(self.rate)
        try:
            # once the node closes the link (a flood, say), nothing more is read from it
            while not link.closing and (text := await link.receive()) is not None:
                outbox.write(MESSAGE, number, text)
                await pace.wait()
        finally:
            del self.clients[number]
            outbox.write(CLOSED, number)
            link.close()
            await link.wait_closed()


def relay_socket(host: str, port: int) -> socket.socket:
    """The relays' port, shared with any other relay (and with one that is still exiting)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    with contextlib.suppress(AttributeError, OSError):
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listener.bind((host, port))
    return listener


def run_relay(
    bus_url: str,
    node: str,
    host: str,
    port: int,
    unread_limit: int,
    rate: float,
    logs: dict[str, Any],
) -> None:
    """``logs``: the node's configuration of ``logging`` (see ``logs.logging_config``)."""
    import uvicorn

    relay = Relay(bus_url, node, unread_limit, rate)
    level = logs["root"]["level"].lower()
    config = uvicorn.Config(relay, log_config=logs, log_level=level, **PUBLIC_OPTIONS)
    uvicorn.Server(config).run(sockets=[relay_socket(host, port)])
