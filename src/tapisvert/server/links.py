"""Links: what carries one client's messages, whatever the process that holds its socket.

A client's WebSocket is held either by this process's ASGI server (``AsgiLink``) or by a
relay process that forwards its messages over a bus (``RelayedLink``, in ``relay``). The
lobby serves both the same way, through ``Link``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Protocol

from starlette.types import Receive, Send


class Link(Protocol):
    async def receive(self) -> str | None:
        """The next text message; ``None`` once the client is gone."""

    async def send(self, frame: str) -> None: ...

    async def close(self, code: int = 1000) -> None: ...


class Outbox:
    """Frames waiting for a socket, in order; ``None`` closes the socket.

    A move reaches every seat at once: the socket's sender takes all that is waiting in
    one go instead of waking once per frame.
    """

    def __init__(self) -> None:
        self._frames: deque[str | None] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def __len__(self) -> int:
        return len(self._frames)

    def put(self, frame: str | None) -> None:
        self._frames.append(frame)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def take(self) -> deque[str | None]:
        while not self._frames:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        frames, self._frames = self._frames, deque()
        return frames


async def accept(receive: Receive, send: Send) -> bool:
    """Complete an ASGI WebSocket handshake; ``False`` if the client left first."""
    if (await receive())["type"] != "websocket.connect":
        return False
    await send({"type": "websocket.accept"})
    return True


async def receive_text(receive: Receive) -> str | None:
    """The next message of an ASGI WebSocket as text (a binary one is decoded, so that it is
    refused as malformed rather than dropped); ``None`` once the client is gone."""
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return None
        if message["type"] == "websocket.receive":
            text = message.get("text")
            if text is None:
                text = (message.get("bytes") or b"").decode("utf-8", "replace")
            return str(text)


async def pump(outbox: Outbox, link: Link) -> None:
    """Send an outbox's frames in order, until ``None`` or a failed send."""
    try:
        while True:
            for frame in await outbox.take():
                if frame is None:
                    return
                await link.send(frame)
    except Exception:
        return


class AsgiLink:
    """A WebSocket held by this process's ASGI server: frames go straight to it."""

    def __init__(self, receive: Receive, send: Send) -> None:
        self._receive = receive
        self._send = send

    async def receive(self) -> str | None:
        return await receive_text(self._receive)

    async def send(self, frame: str) -> None:
        await self._send({"type": "websocket.send", "text": frame})

    async def close(self, code: int = 1000) -> None:
        with contextlib.suppress(Exception):
            await self._send({"type": "websocket.close", "code": code})
