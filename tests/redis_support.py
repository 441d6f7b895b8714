"""The Redis server the tests use, each test in a share of its own (a prefix of its own)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis

from tapisvert.server.redis_bus import PREFIX_VARIABLE

from server_support import Server, serving
from server_support import until as until  # the tests on Redis wait with it

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
    with share_of_redis(monkeypatch) as prefix:
        yield prefix


@contextmanager
def share_of_redis(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A prefix of its own, set for the servers started meanwhile; its keys go afterwards
    (the test is skipped when no Redis server answers)."""
    if not redis_answers():
        pytest.skip(f"no Redis server answers at {REDIS_URL} (set TAPISVERT_TEST_REDIS)")
    prefix = f"test-{uuid.uuid4().hex[:12]}:"
    monkeypatch.setenv(PREFIX_VARIABLE, prefix)
    try:
        yield prefix
    finally:
        with redis.Redis.from_url(REDIS_URL) as client:
            keys = list(client.scan_iter(f"{prefix}*"))
            if keys:
                client.delete(*keys)


@contextmanager
def relayed(folder: Path, **settings: Any) -> Iterator[Server]:
    """A server on a SQLite file in ``folder`` whose clients' sockets two relays hold,
    over Redis (in a share of its own), stopped afterwards; skipped without Redis."""
    if not redis_answers():
        pytest.skip(f"no Redis server answers at {REDIS_URL} (set TAPISVERT_TEST_REDIS)")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PREFIX_VARIABLE, f"test-{uuid.uuid4().hex[:12]}:")
        with serving(folder, relays=2, bus=REDIS_URL, **settings) as server:
            yield server
