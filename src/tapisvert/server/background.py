"""The work a node starts and does not wait for: tasks and timers, ended when it stops."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any


class Background:
    """Tasks started and not awaited, kept so that they are not collected mid-way and so
    that stopping the node cancels them."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def later(self, delay: float, callback: Callable[..., Any], *arguments: Any) -> None:
        asyncio.get_running_loop().call_later(delay, callback, *arguments)

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()
