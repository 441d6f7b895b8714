"""Search bots' decisions as jobs on a real Redis stream: legal answers, shared by workers,
never lost with a worker, bounded in time, and carrying only what the seat may see."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Iterator
from multiprocessing.process import BaseProcess
from pathlib import Path

import orjson
import pytest
import redis

from redis_support import REDIS_URL, redis_share, until  # noqa: F401  (a fixture)
from tapisvert import CHANCE, load_game
from tapisvert.bots import make_bot
from tapisvert.bots.search import BUDGET_SCALE_VARIABLE
from tapisvert.server.bot_queue import GROUP, JOBS, BotQueue, read_job, work
from tapisvert.server.redis_bus import bus_prefix
from tapisvert.server.thinking import BotJob
from test_bot_workers import SCALE, decisions, play_with_medium_bots

from server_support import Server, serving

pytestmark = pytest.mark.usefixtures("redis_share")


@pytest.fixture
def small_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUDGET_SCALE_VARIABLE, SCALE)


def client() -> redis.Redis:
    return redis.Redis.from_url(REDIS_URL)


def answers(queue: BotQueue) -> list[dict[bytes, bytes]]:
    """The answers the node's reply stream holds, oldest first."""
    with client() as reader:
        return [fields for _, fields in reader.xrange(queue.replies)]


def pending() -> int:
    with client() as reader:
        return int(reader.xpending(bus_prefix() + JOBS, GROUP)["pending"])


@pytest.fixture
def workers() -> Iterator[list[BaseProcess]]:
    """Worker processes a test starts (``start_worker``), killed afterwards."""
    started: list[BaseProcess] = []
    yield started
    for process in started:
        process.kill()
        process.join()


def start_worker(started: list[BaseProcess], claim_after: float = 5.0) -> BaseProcess:
    process = multiprocessing.get_context("spawn").Process(
        target=work, args=(REDIS_URL, bus_prefix(), claim_after), daemon=True
    )
    process.start()
    started.append(process)
    return process


def test_decisions_come_back_legal_and_as_this_process_would_decide(
    small_searches: None,
) -> None:
    found = decisions("wizard", 6)

    async def ask() -> list[int]:
        queue = BotQueue(REDIS_URL, workers=1)
        await queue.start()
        try:
            return [
                await queue.choose(BotJob("wizard", 4, {}, "medium", observation, legal, seed))  # type: ignore[arg-type]
                for observation, legal, seed in found
            ]
        finally:
            await queue.close()

    chosen = asyncio.run(ask())
    bot = make_bot("medium", load_game("wizard", players=4))
    home = [bot.choose(obs, legal, random.Random(seed)) for obs, legal, seed in found]  # type: ignore[arg-type]
    assert chosen == home
    assert all(action in legal for action, (_, legal, _) in zip(chosen, found, strict=True))
    assert pending() == 0


def test_two_workers_share_the_jobs(small_searches: None) -> None:
    """Rounds of decisions asked at once, until both workers have answered some: a worker
    that is still starting takes no job (Redis lists it only once it was given one), so the
    first round may all go to the other."""
    found = decisions("luz", 12)

    async def ask() -> tuple[list[int], list[dict[bytes, bytes]]]:
        queue = BotQueue(REDIS_URL, workers=2)
        await queue.start()
        chosen: list[int] = []
        try:
            deadline = time.monotonic() + 60
            while len({fields[b"worker"] for fields in answers(queue)}) < 2:
                assert time.monotonic() < deadline, "one worker took every job for a minute"
                chosen += await asyncio.gather(
                    *(
                        queue.choose(BotJob("luz", 4, {}, "medium", o, legal, s))
                        for o, legal, s in found
                    )  # type: ignore[arg-type]
                )
            return chosen, answers(queue)
        finally:
            await queue.close()

    chosen, given = asyncio.run(ask())
    rounds = len(chosen) // len(found)
    assert all(
        action in legal for action, (_, legal, _) in zip(chosen, found * rounds, strict=True)
    )
    assert len(given) == len(chosen)
    assert len({fields[b"worker"] for fields in given}) == 2


@pytest.mark.slow
def test_a_job_whose_worker_dies_is_taken_over(workers: list[BaseProcess]) -> None:
    """Full-size searches (a second), so that the first worker is killed mid-job."""
    ((observation, legal, seed),) = decisions("wizard", 1)

    async def ask() -> tuple[int, list[dict[bytes, bytes]]]:
        queue = BotQueue(REDIS_URL, workers=0, limit=30, claim_after=1.0)
        await queue.start()
        first = start_worker(workers, claim_after=1.0)
        try:
            decision = asyncio.ensure_future(
                queue.choose(BotJob("wizard", 4, {}, "hard", observation, legal, seed))  # type: ignore[arg-type]
            )
            await until(lambda: pending() == 1, 30)  # the first worker took it
            os.kill(first.pid or 0, signal.SIGKILL)
            start_worker(workers, claim_after=1.0)
            action = await asyncio.wait_for(decision, 30)
            return action, answers(queue)
        finally:
            await queue.close()

    started = time.monotonic()
    action, given = asyncio.run(ask())
    assert action in legal
    assert time.monotonic() - started < 25  # answered by the second worker, not the fallback
    assert [fields[b"worker"].decode().rpartition(":")[2] for fields in given] == [
        str(workers[1].pid)
    ]
    assert pending() == 0


def test_without_an_answer_in_time_the_easy_bot_decides_and_a_late_one_is_ignored(
    small_searches: None, workers: list[BaseProcess], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "tapisvert.server.bot_queue")
    found = decisions("abluxxen", 2)
    easy = make_bot("easy", load_game("abluxxen", players=4))

    async def ask() -> tuple[int, int]:
        queue = BotQueue(REDIS_URL, workers=0, limit=0.5)
        await queue.start()
        try:
            observation, legal, seed = found[0]
            unanswered = await queue.choose(
                BotJob("abluxxen", 4, {}, "medium", observation, legal, seed)
            )  # type: ignore[arg-type]
            start_worker(workers)  # comes too late: skips the job past its time
            await until(lambda: pending() == 0 and stream_length() == 0, 30)
            with client() as writer:  # an answer to the job it gave up: ignored
                writer.xadd(queue.replies, {"id": f"{queue.replies}:1", "action": "-1"})
            queue.limit = 30
            observation, legal, seed = found[1]
            answered = await queue.choose(
                BotJob("abluxxen", 4, {}, "medium", observation, legal, seed)
            )  # type: ignore[arg-type]
            return unanswered, answered
        finally:
            await queue.close()

    unanswered, answered = asyncio.run(ask())
    observation, legal, seed = found[0]
    assert unanswered == easy.choose(observation, legal, random.Random(seed))  # type: ignore[arg-type]
    assert answered in found[1][1]
    assert "easy decides instead" in caplog.text
    assert "the answer is ignored" in caplog.text


def stream_length() -> int:
    with client() as reader:
        return int(reader.xlen(bus_prefix() + JOBS))


def test_a_job_carries_only_what_the_seat_may_see() -> None:
    """The payload on the stream is the game, options, level, the seat's observation, the
    legal actions and the seed; nothing in it is a game state."""
    state = load_game("fzzzt", players=4).new_initial_state(seed=5)
    rng = random.Random(5)
    while state.current_player() == CHANCE:
        state.resolve_chance(rng)
    seat, legal = state.current_player(), state.legal_actions()

    async def ask() -> dict[bytes, bytes]:
        queue = BotQueue(REDIS_URL, workers=0, limit=1)
        await queue.start()
        try:
            decision = asyncio.ensure_future(
                queue.choose(BotJob("fzzzt", 4, {}, "hard", state.observation(seat), legal, "s"))
            )
            await until(lambda: stream_length() == 1)
            with client() as reader:
                ((_, fields),) = reader.xrange(bus_prefix() + JOBS)
            await decision
            return dict(fields)
        finally:
            await queue.close()

    fields = asyncio.run(ask())
    assert set(fields) == {b"id", b"reply", b"deadline", b"job"}
    sent = orjson.loads(fields[b"job"])  # JSON, not a pickle
    observation = state.observation(seat)
    assert sent == {
        "game": "fzzzt",
        "players": 4,
        "options": {},
        "level": "hard",
        "observation": sent["observation"],
        "legal": legal,
        "seed": "s",
    }
    assert set(sent["observation"]) == {field.name for field in dataclasses.fields(observation)}
    job = read_job(fields[b"job"])
    assert job[:4] == ("fzzzt", 4, {}, "hard") and job[5:] == (legal, "s")
    assert type(job[4]) is type(observation) and job[4] == observation


@pytest.fixture
def server_on_redis(small_searches: None, tmp_path: Path) -> Iterator[Server]:
    with serving(tmp_path, **{"bot-workers": 1, "bus": REDIS_URL}) as running:  # type: ignore[arg-type]
        yield running


@pytest.mark.slow
def test_a_server_on_redis_plays_search_bots_through_the_queue(server_on_redis: Server) -> None:
    server = server_on_redis
    table = play_with_medium_bots(server, "queued", "wizard")
    record = server.record(table, "text")
    assert record.replay().is_terminal()
    assert {"P2", "P3"} <= set(record.actors or [])
    with client() as reader:
        (group,) = reader.xinfo_groups(bus_prefix() + JOBS)
        consumers = reader.xinfo_consumers(bus_prefix() + JOBS, GROUP)
    assert group["pending"] == 0
    assert group["entries-read"] >= 2  # the bots' decisions went through the stream
    (consumer,) = consumers
    assert int(consumer["name"].decode().rpartition(":")[2]) in server.bot_workers()


def test_readiness_wants_a_worker_seen_lately(workers: list[BaseProcess]) -> None:
    """With no worker of its own, a node is ready for searches once a worker of the group
    asked for jobs within ``claim_after`` seconds, and no longer once none did."""

    async def run() -> list[str | None]:
        queue = BotQueue(REDIS_URL, workers=0, claim_after=1.0)
        await queue.start()
        said = [await queue.trouble()]
        try:
            worker = start_worker(workers)
            while await queue.trouble() is not None:
                await asyncio.sleep(0.05)
            said.append(None)
            worker.kill()
            while await queue.trouble() is None:
                await asyncio.sleep(0.05)
            said.append(await queue.trouble())
        finally:
            await queue.close()
        return said

    assert asyncio.run(asyncio.wait_for(run(), 60)) == ["no_worker", None, "no_worker"]
