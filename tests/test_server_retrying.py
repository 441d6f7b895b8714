"""The one way the server tries again: what is retried, the waits, the log, giving up."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tapisvert.server.errors import StorageError
from tapisvert.server.retrying import Recovering, retrying, retrying_async


def test_waits_double_from_the_first_to_the_longest_and_only_the_errors_named_are_retried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waits: list[float] = []
    failed: list[str] = []
    attempts = retrying(OSError, 0.1, 0.5, lambda error, wait: failed.append(f"{error} {wait}"))
    monkeypatch.setattr(attempts, "sleep", waits.append)
    left = [OSError("away")] * 5

    def work() -> str:
        if left:
            raise left.pop()
        return "done"

    assert attempts(work) == "done"
    assert waits == [0.1, 0.2, 0.4, 0.5, 0.5]
    assert failed[0] == "away 0.1"
    with pytest.raises(ValueError):
        attempts(lambda: int("not a number"))


def test_a_coroutine_is_awaited_at_each_attempt_and_given_up_once_told() -> None:
    calls: list[int] = []
    moved = False

    async def save() -> None:
        nonlocal moved
        calls.append(len(calls))
        moved = len(calls) == 2
        raise StorageError()

    async def run() -> object:
        return await retrying_async(StorageError, 0.01, 0.02, until=lambda: moved)(save)

    assert asyncio.run(run()) is None
    assert calls == [0, 1]


def test_recovering_keeps_the_trouble_and_says_when_it_works_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("tapisvert.server.test")
    recovering = Recovering(logger, "reading", OSError, 0.01, 0.02)
    troubles: list[BaseException | None] = []
    left = [OSError("away")] * 2

    async def read() -> None:
        troubles.append(recovering.trouble)
        if left:
            raise left.pop()

    with caplog.at_level(logging.WARNING, logger="tapisvert.server.test"):
        asyncio.run(recovering(read))
    assert troubles[0] is None and isinstance(troubles[-1], OSError)
    assert recovering.trouble is None
    assert caplog.text.count("reading failed: OSError('away')") == 2
    assert "reading works again" in caplog.text
