"""Readiness from a node's parts: one round of checks however many ask at once, and each
failing part named."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from tapisvert.server.cluster import Cluster
from tapisvert.server.health import Health
from tapisvert.server.storage import Storage
from tapisvert.server.thinking import Thinking


class Parts:
    """A storage, bots and a cluster that answer as told, counting the storage's checks."""

    def __init__(self) -> None:
        self.pings = 0
        self.storage_fails = False
        self.bots_say: str | None = None
        self.draining = False
        self.answer = asyncio.Event()

    async def ping(self) -> None:
        self.pings += 1
        await self.answer.wait()
        if self.storage_fails:
            raise OSError("the database is away")

    async def trouble(self) -> str | None:
        return self.bots_say

    def health(self) -> Health:
        parts: Any = self
        return Health(cast(Storage, parts), None, cast(Thinking, parts), cast(Cluster, parts))


def test_polls_at_once_share_one_round_of_checks() -> None:
    async def run() -> list[dict[str, Any]]:
        parts = Parts()
        health = parts.health()
        polls = [asyncio.create_task(health.readiness()) for _ in range(20)]
        await asyncio.sleep(0)
        parts.answer.set()
        answers = await asyncio.gather(*polls)
        answers.append(await health.readiness())  # fresh: no new round
        assert parts.pings == 1
        return answers

    answers = asyncio.run(run())
    expected = {"ready": True, "draining": False, "checks": {"storage": "ok", "bots": "ok"}}
    assert answers == [expected] * 21


def test_each_failing_part_is_named_and_a_draining_node_is_not_ready() -> None:
    async def run() -> tuple[dict[str, Any], dict[str, Any]]:
        parts = Parts()
        parts.answer.set()
        parts.storage_fails, parts.bots_say = True, "no_worker"
        failing = await parts.health().readiness()
        parts.storage_fails, parts.bots_say, parts.draining = False, None, True
        return failing, await parts.health().readiness()

    failing, draining = asyncio.run(run())
    assert failing == {
        "ready": False,
        "draining": False,
        "checks": {"storage": "unreachable", "bots": "no_worker"},
    }
    assert draining == {"ready": False, "draining": True, "checks": {"storage": "ok", "bots": "ok"}}
