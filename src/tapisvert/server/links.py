"""Links: what carries one client's messages, whatever the process that holds its socket.

A client's WebSocket is held either by this process's ASGI server (``AsgiLink``) or by a
relay process that forwards its messages over a bus (``RelayedLink``, in ``relay``). The
lobby serves both the same way, through ``Link``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import time
from collections import deque
from typing import Any, Protocol

import orjson
from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from tapisvert.server.errors import ServerError

BACKLOG_BYTES = 1 << 20
"""What a client may leave unread (in bytes of frames waiting for its socket, beyond what
the socket's buffers hold) before its link is dropped: it is not reading. A client that
reads gets a move's frames within milliseconds; this is minutes of play."""
DROP_GRACE_SECONDS = 1.0
"""How long a dropped link still tries to hand its last frames (the reason) to the client."""
DROPPED = "dropped"
"""What a dropped link's waiting reader is cancelled with, to tell it from other cancels."""
MAX_BODY_BYTES = 64 * 1024
"""The largest HTTP request body taken: every request the API takes is far smaller."""
REQUEST_SECONDS = 10.0
"""How long a client may take to send a request's head, and then its body: a request of
the API is a few hundred bytes, and a client that trickles one holds a connection for
nothing."""

log = logging.getLogger(__name__)


class TimedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol, with a deadline for each request's head.

    uvicorn closes a connection left idle between requests, but not one that sends its
    request slowly, or sends nothing after connecting: hundreds of those would hold as
    many connections for as long as they like. (``read_body`` gives the body its own
    deadline.)
    """

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_deadline.cancel()
        self._head_deadline = self.loop.call_later(REQUEST_SECONDS, self._too_slow)

    def on_headers_complete(self) -> None:
        self._head_deadline.cancel()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_deadline.cancel()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self.transport.close()


async def read_body(receive: Receive, limit: int = MAX_BODY_BYTES) -> bytes:
    """An HTTP request's whole body; refused as soon as it goes beyond ``limit`` bytes (the
    rest is not read, so a huge body costs nothing) or takes over ``REQUEST_SECONDS``."""
    body = bytearray()
    try:
        async with asyncio.timeout(REQUEST_SECONDS):
            while True:
                message = await receive()
                body += message.get("body", b"")
                if len(body) > limit:
                    raise ServerError("body_too_large", status=413, limit=limit)
                if not message.get("more_body"):
                    return bytes(body)
    except TimeoutError:
        raise ServerError("too_slow", status=408, seconds=REQUEST_SECONDS) from None


async def refuse_body(send: Send, refusal: ServerError, language: str) -> None:
    """Answer a request refused before it reached the application (its body was too large
    or too slow, or the server is unreachable), and close its connection."""
    headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": orjson.dumps(refusal.body(language))})


class Pace:
    """Takes a client's messages no faster than ``rate`` a second, in bursts of twice that.

    While it waits, the client's socket is not read, and TCP holds the client back: a
    flood costs what the allowed rate costs, and nothing piles up behind it.
    """

    def __init__(self, rate: float) -> None:
        self._rate = rate
        self._allowance = 2 * rate
        self._checked = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        elapsed, self._checked = now - self._checked, now
        self._allowance = min(2 * self._rate, self._allowance + elapsed * self._rate)
        if self._allowance < 1:
            await asyncio.sleep((1 - self._allowance) / self._rate)
            self._allowance, self._checked = 1.0, time.monotonic()
        self._allowance -= 1


class Link(Protocol):
    address: str
    """Where the client is: its IP address, as the server or a trusted proxy saw it."""

    async def receive(self) -> str | None:
        """The next text message; ``None`` once the client is gone."""

    def push(self, frame: str) -> None:
        """Send ``frame`` after those pushed before it, without waiting."""

    def close(self, code: int = 1000) -> None:
        """Close the link once the frames pushed before are sent."""

    def drop(self) -> None:
        """Cut the link without a closing handshake, and read nothing more from it: the
        client floods or does not read, and a handshake would mean reading on until its
        answer. The frames pushed before get ``DROP_GRACE_SECONDS`` to leave."""

    def backlog(self) -> int:
        """Bytes of frames pushed and not yet handed to the socket."""

    async def wait_closed(self) -> None: ...


class Outbox:
    """Frames waiting for a socket, in order; ``None`` closes the socket.

    A move reaches every seat at once: the socket's sender takes all that is waiting in
    one go instead of waking once per frame. Two queues take turns, so that taking makes
    no new object for the garbage collector to visit while the socket waits.
    """

    def __init__(self) -> None:
        self._frames: deque[str | None] = deque()
        self._taken: deque[str | None] = deque()
        """The frames taken last, which the sender has sent once it takes again."""
        self._waiter: asyncio.Future[None] | None = None
        self.size = 0
        """Characters waiting: bytes, near enough, for frames of JSON."""

    def put(self, frame: str | None) -> None:
        self._frames.append(frame)
        if frame is not None:
            self.size += len(frame)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def take(self) -> deque[str | None]:
        """What is waiting, once something is: the sender's until it takes again."""
        while not self._frames:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        taken = self._frames
        self._taken.clear()
        self._frames, self._taken = self._taken, taken
        self.size = 0
        return taken


def client_address(scope: Scope) -> str:
    """The client's address, as uvicorn gives it (from a trusted proxy's headers, if any),
    as its quotas count it (see ``address_key``)."""
    client = scope.get("client")
    return address_key(str(client[0]) if client else "")


def address_key(host: str) -> str:
    """What the limits of addresses count: an IPv4 address, or an IPv6 address's /64 (one
    subscriber's network, in which a client can take a new address at will)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "?"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)


async def accept(receive: Receive, send: Send) -> bool:
    """Complete an ASGI WebSocket handshake; ``False`` if the client left first."""
    if (await receive())["type"] != "websocket.connect":
        return False
    await send({"type": "websocket.accept"})
    return True


class AsgiLink:
    """A WebSocket held by this process's ASGI server, with its own sending task."""

    def __init__(self, receive: Receive, send: Send, address: str) -> None:
        self.address = address
        self._receive = receive
        self._send = send
        self._outbox = Outbox()
        self._code: int | None = None
        self._dropped = False
        self._reader: asyncio.Task[object] | None = None
        """The task waiting in ``receive``, if one is: a drop wakes it."""
        self._sender = asyncio.get_running_loop().create_task(self._send_all())

    async def receive(self) -> str | None:
        """The next message as text (a binary one is decoded, so that it is refused as
        malformed rather than dropped); ``None`` once the client is gone."""
        if self._dropped:
            return None
        self._reader = asyncio.current_task()
        try:
            while True:
                message = await self._receive()
                if message["type"] == "websocket.disconnect":
                    return None
                if message["type"] == "websocket.receive":
                    text = message.get("text")
                    if text is None:
                        text = (message.get("bytes") or b"").decode("utf-8", "replace")
                    return str(text)
        except asyncio.CancelledError as cancelled:
            if cancelled.args != (DROPPED,) or self._reader is None:
                raise
            self._reader.uncancel()
            return None
        finally:
            self._reader = None

    def push(self, frame: str) -> None:
        self._outbox.put(frame)

    def close(self, code: int = 1000) -> None:
        if self._code is None:
            self._code = code
            self._outbox.put(None)

    def drop(self) -> None:
        if not self._dropped:
            self._dropped = True
            self.close(1008)
            asyncio.get_running_loop().call_later(DROP_GRACE_SECONDS, self._sender.cancel)
            if self._reader is not None:
                self._reader.cancel(DROPPED)

    def backlog(self) -> int:
        return self._outbox.size

    @property
    def closing(self) -> bool:
        """Whether the link is closed or closing: what the client sends is not read."""
        return self._code is not None

    async def wait_closed(self) -> None:
        """Once the socket is closed, or dropped: the ASGI server then closes the
        connection when its application returns, without reading on."""
        await asyncio.wait([self._sender])

    async def _send_all(self) -> None:
        try:
            while True:
                for frame in await self._outbox.take():
                    if frame is None:
                        return
                    await self._send({"type": "websocket.send", "text": frame})
        except Exception:
            return
        finally:
            if not self._dropped:
                with contextlib.suppress(Exception):
                    await self._send({"type": "websocket.close", "code": self._code or 1000})


OPEN_FILES_WANTED = 8192
"""Open files a server should be allowed: one per socket, a few for its database and bus;
enough for some thousands of people at once."""


def allow_open_files(wanted: int = OPEN_FILES_WANTED) -> int:
    """Raise the process's limit of open files towards ``wanted`` (within the hard limit),
    and warn when it stays below: past the limit, new sockets fail. Returns the limit."""
    try:
        import resource
    except ImportError:  # no such limits where the module is missing
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if raised > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
                soft = raised
            except (ValueError, OSError) as refusal:
                log.warning("the limit of open files could not be raised: %s", refusal)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        log.warning(
            "this process may open %d files only (hard limit %d): each socket takes one, so "
            "beyond that people cannot connect; allow at least %d (ulimit -n, or LimitNOFILE "
            "in a systemd unit)",
            soft,
            hard,
            wanted,
        )
    return int(soft)


PUBLIC_OPTIONS: dict[str, Any] = {
    "ws_max_size": 1 << 20,
    "ws_per_message_deflate": False,
    "http": TimedHttpProtocol,
}
"""uvicorn's settings for a public port: a frame over 1 MiB closes its socket (1009);
frames are small JSON, not worth deflating; a request's head must come within
``REQUEST_SECONDS``."""
