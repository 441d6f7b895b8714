"""Where the search bots think: worker processes, never the server's event loop.

A search takes up to a second of CPU. In a thread of the server it would hold the interpreter
lock that the event loop needs, and every person's moves and pings would wait; in a process of
its own it takes a core and nothing else. A decision travels as what the bot may know and
nothing more — the game's name, player count and options, the bot's level, the seat's
observation, the legal actions and the seed of its generator — and comes back as an action.
Each worker keeps the bots it built, one per game and level.

The quick bots (``random``, ``easy``) choose on the event loop: they take microseconds.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, NamedTuple, Protocol

from tapisvert.bots import Bot, make_bot
from tapisvert.core.game import Action, Observation
from tapisvert.core.registry import load_game

QUICK_BOTS = frozenset({"random", "easy", "heuristic"})
"""Bots quick enough to choose on the event loop."""
FALLBACK_BOT = "easy"
"""Who decides when a worker cannot (it died, or took far longer than any search may)."""
THINKING_LIMIT = 60.0
"""Seconds a decision may take in all, waiting for a worker included; a search caps itself at
a second, so only a worker in trouble reaches this."""

PARENT_CHECK_SECONDS = 1.0
"""How often a worker checks that its server still runs."""

log = logging.getLogger(__name__)


class BotJob(NamedTuple):
    """One decision, as what the bot may know and nothing more."""

    game: str
    players: int
    options: dict[str, Any]
    level: str
    observation: Observation
    legal: list[Action]
    seed: str
    """Of the bot's generator, so that a decision is the same wherever it is taken."""


class Thinking(Protocol):
    """Where a server's bots decide: ``BotWorkers`` here, or ``BotQueue`` through a bus."""

    async def choose(self, job: BotJob) -> Action: ...

    async def trouble(self) -> str | None:
        """Why the search bots cannot decide now, or ``None`` (see ``health``)."""

    async def close(self) -> None: ...


async def choose(
    job: BotJob,
    think: Callable[[BotJob], Awaitable[Action]],
    troubles: tuple[type[BaseException], ...],
    thinker: str,
) -> Action:
    """The move of a bot: a quick bot's on the event loop, a search bot's by ``think``; if
    that fails with one of ``troubles``, the log says so (``thinker``: who failed) and the
    fallback bot decides instead."""
    if job.level in QUICK_BOTS:
        return decide(job)
    try:
        return await think(job)
    except troubles as trouble:
        log.error("%s failed (%r); %s decides instead", thinker, trouble, FALLBACK_BOT)
        return decide(job._replace(level=FALLBACK_BOT))


def default_workers() -> int:
    """All the cores but one, which the event loop keeps; at least one."""
    return max(1, (os.cpu_count() or 2) - 1)


class BotWorkers:
    """A pool of processes that take the search bots' decisions, in order of asking."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or default_workers()
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        """Started on the first search: a server whose bots are all quick starts none. The
        workers are spawned, not forked: the server has threads (storage) a fork would copy
        in whatever state they were."""
        if self._pool is None:
            self._pool = worker_processes(self.workers)
        return self._pool

    async def choose(self, job: BotJob) -> Action:
        """The move of a bot, chosen in a worker unless the bot is a quick one."""
        return await choose(job, self._think, (BrokenProcessPool, TimeoutError), "a bot worker")

    async def _think(self, job: BotJob) -> Action:
        loop = asyncio.get_running_loop()
        try:
            decision = loop.run_in_executor(self._executor(), decide, job)
            return await asyncio.wait_for(decision, THINKING_LIMIT)
        except BrokenProcessPool:
            self._pool = None
            raise

    async def trouble(self) -> str | None:
        """None: the pool starts on the first search, and again after its processes died."""
        return None

    async def close(self) -> None:
        """Stop the workers, letting a search under way finish (a second at most)."""
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)


def worker_processes(workers: int) -> ProcessPoolExecutor:
    """Processes for work that costs CPU, spawned rather than forked (the server has threads,
    the storage's writer, that a fork would copy in whatever state they were), each ending
    when the server that started it is gone."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=follow_the_server,
        initargs=(os.getpid(),),
    )


def follow_the_server(server: int) -> None:
    """In a worker: end when the server that started it is gone, even killed outright."""

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


_BOTS: dict[tuple[str, int, str, str], Bot] = {}
"""The bots this process built, by game, player count, options and level."""


def decide(job: BotJob) -> Action:
    """One decision, in whichever process runs it."""
    key = (job.game, job.players, repr(sorted(job.options.items())), job.level)
    bot = _BOTS.get(key)
    if bot is None:
        game = load_game(job.game, job.players, **job.options)
        bot = _BOTS[key] = make_bot(job.level, game)
    return bot.choose(job.observation, job.legal, random.Random(job.seed))
