"""The Redis server the tests use, each test in a share of its own (a prefix of its own)."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable, Iterator

import pytest
import redis

from tapisvert.server.redis_bus import PREFIX_VARIABLE

REDIS_URL = os.environ.get("TAPISVERT_TEST_REDIS", "redis://127.0.0.1:6379")


def redis_answers() -> bool:
    try:
        with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1) as client:
            client.ping()
    except (redis.RedisError, OSError):
        return False
    return True


@pytest.fixture
def redis_share(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A prefix of this test's own, also given to the servers it starts; its keys are
    deleted afterwards."""
    if not redis_answers():
        pytest.skip(f"no Redis server answers at {REDIS_URL} (set TAPISVERT_TEST_REDIS)")
    prefix = f"test-{uuid.uuid4().hex[:12]}:"
    monkeypatch.setenv(PREFIX_VARIABLE, prefix)
    yield prefix
    with redis.Redis.from_url(REDIS_URL) as client:
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)


async def until(test: Callable[[], bool], seconds: float = 5.0) -> None:
    """Wait for ``test`` to hold, failing after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError("it did not happen in time")
        await asyncio.sleep(0.01)
