"""Relays: processes that hold the clients' sockets for the server, over a bus.

Python runs one thread at a time per process. Sending a frame costs about as much as
deciding what it says, and a move sends one to every seat; so by default the server
(the hub: lobby, tables, storage) runs in one process and the public port in another,
a relay. The relay answers the WebSockets and forwards their messages to the hub over a
Unix socket (the bus), and the hub's frames back; every other HTTP request it passes to
the hub's own HTTP server, on another Unix socket. The hub writes all the frames of a
turn of its event loop to the bus at once.

The bus carries records: a header (length of the text, link number, kind) and the text.
Link numbers are the relay's, one per client socket. If the hub goes, the relay goes too:
its clients reconnect to the next server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import shutil
import socket
import struct
import tempfile
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, cast

import httpx
from starlette.types import Receive, Scope, Send

from tapisvert.i18n import accepted_language
from tapisvert.server.errors import ServerError
from tapisvert.server.links import (
    AsgiLink,
    Pace,
    TimedHttpProtocol,
    accept,
    read_body,
    refuse_body,
)

HEADER = struct.Struct("!IIB")
"""Length of the text, link number, kind."""
OPEN, MESSAGE, CLOSED, FRAME, CLOSE, DROP = range(6)
"""Relay to hub: a client came, sent a message, left. Hub to relay: a frame, close it,
drop it (see ``Link.drop``)."""
HOP_HEADERS = frozenset(
    {b"connection", b"keep-alive", b"transfer-encoding", b"upgrade", b"te", b"trailer"}
)
"""Headers about one HTTP hop, not passed on."""
DROPPED_RESPONSE_HEADERS = HOP_HEADERS | {b"date", b"server"}
"""Hop headers, and those the relay's own HTTP server writes."""
PEER_HEADER = "x-tapisvert-peer"
"""The client's address, which the relay tells the hub (a client's own is dropped)."""


class Records:
    """Reads records out of a byte stream, however it is cut."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[int, int, str]]:
        buffer = self._buffer
        buffer += data
        records = []
        offset = 0
        while len(buffer) - offset >= HEADER.size:
            length, number, kind = HEADER.unpack_from(buffer, offset)
            end = offset + HEADER.size + length
            if end > len(buffer):
                break
            records.append((kind, number, buffer[offset + HEADER.size : end].decode()))
            offset = end
        del buffer[:offset]
        return records


class BusWriter:
    """Writes records, all those of one turn of the event loop in one write."""

    def __init__(self, transport: asyncio.WriteTransport) -> None:
        self._transport = transport
        self._waiting: list[bytes] = []

    def write(self, kind: int, number: int, text: str = "") -> None:
        data = text.encode()
        if not self._waiting:
            asyncio.get_running_loop().call_soon(self._flush)
        self._waiting += (HEADER.pack(len(data), number, kind), data)

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        if not self._transport.is_closing():
            self._transport.write(b"".join(waiting))


# -- the hub's end -------------------------------------------------------------------


class RelayedLink:
    """A client whose socket a relay holds."""

    def __init__(self, bus: BusWriter, number: int) -> None:
        self._bus = bus
        self._number = number
        self._closed = False
        self.incoming: asyncio.Queue[str | None] = asyncio.Queue()

    async def receive(self) -> str | None:
        return await self.incoming.get()

    def push(self, frame: str) -> None:
        self._bus.write(FRAME, self._number, frame)

    def close(self, code: int = 1000) -> None:
        if not self._closed:
            self._closed = True
            self._bus.write(CLOSE, self._number, str(code))

    def drop(self) -> None:
        if not self._closed:
            self._closed = True
            self._bus.write(DROP, self._number)

    def backlog(self) -> int:
        return 0  # frames go to the bus at once; the relay holds any backlog

    async def wait_closed(self) -> None:
        return None


class HubBus(asyncio.Protocol):
    """The hub's end of one relay's bus: each link number is one client of that relay."""

    def __init__(self, serve: Callable[[RelayedLink], Coroutine[Any, Any, None]]) -> None:
        self._serve = serve
        self._records = Records()
        self._links: dict[int, RelayedLink] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._writer: BusWriter | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._writer = BusWriter(cast(asyncio.WriteTransport, transport))

    def data_received(self, data: bytes) -> None:
        assert self._writer is not None
        for kind, number, text in self._records.feed(data):
            if kind == OPEN:
                link = self._links[number] = RelayedLink(self._writer, number)
                task = asyncio.get_running_loop().create_task(self._serve(link))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif kind == MESSAGE and number in self._links:
                self._links[number].incoming.put_nowait(text)
            elif kind == CLOSED and number in self._links:
                self._links.pop(number).incoming.put_nowait(None)

    def connection_lost(self, exc: Exception | None) -> None:
        for link in self._links.values():
            link.incoming.put_nowait(None)
        self._links.clear()


async def open_bus(
    path: Path, serve: Callable[[RelayedLink], Coroutine[Any, Any, None]]
) -> asyncio.AbstractServer:
    """Listen for relays on the Unix socket ``path``."""
    loop = asyncio.get_running_loop()
    return await loop.create_unix_server(lambda: HubBus(serve), str(path))


# -- the relay -----------------------------------------------------------------------


class RelayBus(asyncio.Protocol):
    """The relay's end of the bus: frames for its clients' outboxes."""

    def __init__(self, relay: Relay) -> None:
        self._relay = relay
        self._records = Records()

    def data_received(self, data: bytes) -> None:
        for kind, number, text in self._records.feed(data):
            link = self._relay.clients.get(number)
            if link is None:
                continue
            if kind == CLOSE:
                link.close(int(text))
            elif kind == DROP or link.backlog() >= self._relay.unread_limit:
                link.drop()  # a flood, or a client that does not read: the hub hears it leave
            else:
                link.push(text)

    def connection_lost(self, exc: Exception | None) -> None:
        # the hub is gone (killed, maybe: then nobody else removes its sockets' folder), and
        # so are this relay and its clients
        folder = self._relay.bus_path.parent
        if folder.name.startswith(SOCKETS_PREFIX):
            shutil.rmtree(folder, ignore_errors=True)
        os._exit(0)


class Relay:
    """The ASGI application of a relay process."""

    CONNECT_SECONDS = 30.0

    def __init__(self, bus_path: Path, hub_path: Path, unread_limit: int, rate: float) -> None:
        self.bus_path = bus_path
        self.unread_limit = unread_limit
        """Bytes of frames a client may leave unread before its link is dropped."""
        self.rate = READ_AHEAD * rate
        """Messages a second read from one client: more than the hub allows, so that the
        hub still tells a client that goes too fast, and finds a flood; not so many that
        they pile up in the hub."""
        self.clients: dict[int, AsgiLink] = {}
        self._numbers = itertools.count()
        self._bus: BusWriter | None = None
        self._http = httpx.AsyncClient(
            transport=httpx.AsyncHTTPTransport(uds=str(hub_path)),
            base_url="http://hub",
            timeout=httpx.Timeout(HUB_ANSWER_SECONDS, connect=5.0),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "websocket":
            await self._relay_socket(scope, receive, send)
        else:
            await self._pass_on(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self._connect()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self._http.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _connect(self) -> None:
        """Reach the hub's bus, which may still be starting."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.CONNECT_SECONDS
        while True:
            try:
                transport, _ = await loop.create_unix_connection(
                    lambda: RelayBus(self), str(self.bus_path)
                )
                break
            except OSError:
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.05)
        self._bus = BusWriter(cast(asyncio.WriteTransport, transport))

    async def _relay_socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        bus = self._bus
        if bus is None or scope["path"] != "/ws" or not await accept(receive, send):
            return
        number = next(self._numbers)
        link = self.clients[number] = AsgiLink(receive, send)
        bus.write(OPEN, number)
        pace = Pace(self.rate)
        try:
            # once the hub closes the link (a flood, say), nothing more is read from it
            while not link.closing and (text := await link.receive()) is not None:
                bus.write(MESSAGE, number, text)
                await pace.wait()
        finally:
            del self.clients[number]
            bus.write(CLOSED, number)
            link.close()
            await link.wait_closed()

    async def _pass_on(self, scope: Scope, receive: Receive, send: Send) -> None:
        """An HTTP request, to the hub and back."""
        accepted = dict(scope["headers"]).get(b"accept-language", b"").decode("latin-1")
        language = accepted_language(accepted)
        try:
            body = await read_body(receive)
        except ServerError as refusal:
            await refuse_body(send, refusal, language)
            return
        path = scope["raw_path"].decode() if scope.get("raw_path") else scope["path"]
        if scope["query_string"]:
            path += "?" + scope["query_string"].decode()
        headers = [
            (name, value)
            for name, value in scope["headers"]
            if name not in HOP_HEADERS and name != PEER_HEADER.encode()
        ]
        client = scope.get("client")
        headers.append((PEER_HEADER.encode(), str(client[0] if client else "?").encode()))
        request = self._http.build_request(scope["method"], path, headers=headers, content=body)
        try:
            response = await self._http.send(request, stream=True)
        except httpx.TransportError:
            await refuse_body(send, ServerError("unreachable", status=502), language)
            return
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status_code,
                    "headers": [
                        (name, value)
                        for name, value in response.headers.raw
                        if name.lower() not in DROPPED_RESPONSE_HEADERS
                    ],
                }
            )
            async for chunk in response.aiter_raw():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            await response.aclose()


HUB_ANSWER_SECONDS = 60.0
"""How long the relay waits for the hub's answer to an HTTP request: longer than anything
the hub may wait for itself (a write waits up to SQLite's 5 s busy timeout, then is
refused with ``storage``), so that the hub's own answer comes through."""
READ_AHEAD = 4
"""How many times the hub's rate a relay reads from one client (see ``Relay.rate``)."""
SOCKETS_PREFIX = "tapisvert-"
"""How the folders of the hubs' Unix sockets begin: then the server's process id."""


def socket_folder() -> tempfile.TemporaryDirectory[str]:
    """A private folder for a hub's Unix sockets, named after this process. The folders of
    servers that are gone go first: a server killed together with its relays (which
    remove its folder when it alone is killed) could not remove its own."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SOCKETS_PREFIX}*-*"):
        owner = folder.name.removeprefix(SOCKETS_PREFIX).partition("-")[0]
        if owner.isascii() and owner.isdigit() and not _running(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)
    prefix = f"{SOCKETS_PREFIX}{os.getpid()}-"
    return tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's
        return True
    return True


def relay_socket(host: str, port: int) -> socket.socket:
    """The public port, shared with any other relay (and with one that is still exiting)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    with contextlib.suppress(AttributeError, OSError):
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    listener.bind((host, port))
    return listener


def run_relay(
    bus_path: Path, hub_path: Path, host: str, port: int, unread_limit: int, rate: float
) -> None:
    import uvicorn

    relay = Relay(bus_path, hub_path, unread_limit, rate)
    config = uvicorn.Config(relay, log_level="warning", **PUBLIC_OPTIONS)
    uvicorn.Server(config).run(sockets=[relay_socket(host, port)])


PUBLIC_OPTIONS: dict[str, Any] = {
    "ws_max_size": 1 << 20,
    "ws_per_message_deflate": False,
    "http": TimedHttpProtocol,
}
"""uvicorn's settings for the public port: a frame over 1 MiB closes its socket (1009);
frames are small JSON, not worth deflating; a request's head must come within
``REQUEST_SECONDS``."""
