"""Whether this node may be sent clients: what a load balancer polls (``/readyz``).

A node is ready when its database answers a statement through the storage's writer (the
one every move waits for), its bus works (with one) and someone would take its bots' searches
(with workers on the bus: see ``BotQueue.trouble``), and it is not stopping (see
``Lobby.drain``). The checks run at most once per ``FRESH_SECONDS`` whoever asks, and a
poll that comes while they run waits for them: polling every second costs nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from tapisvert.server.cluster import Cluster
from tapisvert.server.storage import Storage
from tapisvert.server.thinking import Thinking

if TYPE_CHECKING:
    from tapisvert.server.redis_bus import RedisPubSub

FRESH_SECONDS = 0.5
"""How long one answer of the checks stands."""
CHECK_SECONDS = 2.0
"""How long a check may take: longer, it failed."""


class Health:
    """The readiness of one node, from its parts: storage, bus (``None`` alone), bots."""

    def __init__(
        self, storage: Storage, bus: RedisPubSub | None, thinking: Thinking, cluster: Cluster
    ) -> None:
        self.storage = storage
        self.bus = bus
        self.thinking = thinking
        self.cluster = cluster
        self._checked: tuple[float, dict[str, str]] | None = None
        self._checking: asyncio.Task[dict[str, str]] | None = None

    async def readiness(self) -> dict[str, Any]:
        """``{"ready", "draining", "checks"}``: each check ``"ok"`` or why not."""
        checks = await self._checks()
        draining = self.cluster.draining
        ready = not draining and all(result == "ok" for result in checks.values())
        return {"ready": ready, "draining": draining, "checks": checks}

    async def _checks(self) -> dict[str, str]:
        """The last checks' results while fresh; else those of the checks under way, or
        of new ones (a poll that gives up waiting leaves them running for the next)."""
        if self._checked is not None and time.monotonic() - self._checked[0] < FRESH_SECONDS:
            return self._checked[1]
        if self._checking is None:
            self._checking = asyncio.get_running_loop().create_task(self._check_all())
            self._checking.add_done_callback(self._done)
        return await asyncio.shield(self._checking)

    def _done(self, checking: asyncio.Task[dict[str, str]]) -> None:
        self._checking = None
        if not checking.cancelled():
            self._checked = (time.monotonic(), checking.result())

    async def _check_all(self) -> dict[str, str]:
        checks = {"storage": await _within(self.storage.ping(), "unreachable")}
        if self.bus is not None:
            checks["bus"] = "ok" if self.bus.trouble is None else "unreachable"
        checks["bots"] = await _within(self.thinking.trouble(), "unreachable")
        return checks


async def _within(check: Awaitable[str | None], failed: str) -> str:
    """``"ok"``, what the check says is wrong, or ``failed`` if it raised or took too long."""
    try:
        said = await asyncio.wait_for(check, CHECK_SECONDS)
    except Exception:
        return failed
    return said if isinstance(said, str) else "ok"
