"""A node that stops gently on SIGTERM, as a supervisor or an orchestrator asks it to.

uvicorn stops listening at once on SIGTERM. Here the node first drains (``Lobby.drain``):
it says it is not ready (``/readyz``: 503), refuses new tables and connections, tells its
clients to reconnect and waits for them to go, and hands its tables over to the other nodes;
then uvicorn stops it as usual, committing what is queued. All of it takes at most
``Settings.drain_seconds``: past that, the process ends outright, as if killed (every
acknowledged move is committed already). A second SIGTERM, or Ctrl+C, stops at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import threading
from types import FrameType

import uvicorn

from tapisvert.server.lobby import Lobby

EXIT_LATE = 1
"""The exit status of a node that did not stop within its drain time."""

_log = logging.getLogger(__name__)


class DrainingServer(uvicorn.Server):
    """uvicorn's server, draining ``lobby`` on the first SIGTERM before it stops."""

    def __init__(self, config: uvicorn.Config, lobby: Lobby) -> None:
        super().__init__(config)
        self.lobby = lobby
        self._loop: asyncio.AbstractEventLoop | None = None
        self._asked = False
        self._drainer: asyncio.Task[None] | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """The first SIGTERM drains (in the event loop: this runs in a signal handler)."""
        if sig != signal.SIGTERM or self._asked or self._loop is None:
            super().handle_exit(sig, frame)
            return
        seconds = self.lobby.settings.drain_seconds
        late = threading.Timer(seconds, os._exit, (EXIT_LATE,))
        late.daemon = True
        late.start()
        self._asked = True
        self._loop.call_soon_threadsafe(self._start, seconds)

    def _start(self, seconds: float) -> None:
        self._drainer = asyncio.get_running_loop().create_task(self._drain(seconds))

    async def _drain(self, seconds: float) -> None:
        """Drain for half the time at most: the rest is uvicorn's, to finish the requests
        under way and stop the node."""
        try:
            await asyncio.wait_for(self.lobby.drain(seconds / 4), seconds / 2)
        except TimeoutError:
            _log.warning("draining took over %.0f s: the node stops", seconds / 2)
        except Exception:
            _log.exception("draining failed: the node stops")
        self.should_exit = True
