"""A socket's frames through ``AsgiLink``: in order, held while the socket is full, none lost
or reordered, and nothing sent once the link is closed, dropped or its socket has failed."""

from __future__ import annotations

import asyncio
from typing import Any

from tapisvert.server.links import AsgiLink


class Socket:
    """An ASGI WebSocket whose ``send`` waits while ``writable`` is clear, as uvicorn's does
    while the socket's buffer is full."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.sent: list[str] = []
        self.closed: int | None = None
        self.gone = False

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("never")

    async def send(self, message: dict[str, Any]) -> None:
        await self.writable.wait()
        if self.gone:
            raise OSError("the client is gone")
        if message["type"] == "websocket.close":
            self.closed = message["code"]
        else:
            self.sent.append(message["text"])


async def settled() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def linked() -> tuple[Socket, AsgiLink]:
    """A socket and its link, whose sending task waits for frames."""
    socket = Socket()
    link = AsgiLink(socket.receive, socket.send, "127.0.0.1")
    await settled()
    return socket, link


def test_frames_go_in_order_and_wait_while_the_socket_is_full() -> None:
    async def run() -> None:
        socket, link = await linked()
        link.push("a")
        await settled()
        assert socket.sent == ["a"]
        socket.writable.clear()
        link.push("b")
        link.push("c")
        assert socket.sent == ["a"] and link.backlog() == 2
        await settled()
        assert socket.sent == ["a"]
        socket.writable.set()
        await settled()
        assert socket.sent == ["a", "b", "c"] and link.backlog() == 0
        link.push("d")
        await settled()
        assert socket.sent == ["a", "b", "c", "d"]
        link.close(4000)
        link.push("after the close")
        await link.wait_closed()
        assert socket.sent == ["a", "b", "c", "d"] and socket.closed == 4000

    asyncio.run(run())


def test_a_frame_waiting_for_a_full_socket_is_cancelled_with_its_link() -> None:
    async def run() -> None:
        socket, link = await linked()
        socket.writable.clear()
        link.push("stuck")
        link.push("behind")
        link.drop()  # its sending task is cancelled after a grace, the waiting send with it
        await asyncio.wait_for(link.wait_closed(), 5)
        socket.writable.set()
        await settled()
        assert socket.sent == []

    asyncio.run(run())


def test_a_socket_that_fails_ends_its_sending() -> None:
    async def run() -> None:
        socket, link = await linked()
        socket.gone = True
        link.push("lost with the client")
        await asyncio.wait_for(link.wait_closed(), 5)
        link.push("not even tried")
        assert socket.sent == []

    asyncio.run(run())
