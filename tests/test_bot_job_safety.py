"""Bot jobs on Redis are data: a worker parses what it reads and never unpickles it. A pickle, or
anything else that is not a job, is refused with a logged error and answered as a failure, the
worker keeps working, and the node that asked decides with the fallback bot at once; so does a
node given an answer that is no legal action."""

from __future__ import annotations

import asyncio
import logging
import pickle
import random
import time
from multiprocessing.process import BaseProcess
from pathlib import Path

import orjson
import pytest
import redis

from redis_support import REDIS_URL, redis_share, until  # noqa: F401  (a fixture)
from tapisvert import load_game
from tapisvert.bots import make_bot
from tapisvert.server.bot_queue import (
    GROUP,
    JOBS,
    LARGEST_JOB,
    BotQueue,
    MalformedJob,
    _answer,
    read_job,
    write_job,
)
from tapisvert.server.metrics import WorkerMetrics
from tapisvert.server.redis_bus import bus_prefix
from tapisvert.server.thinking import BotJob
from test_bot_queue import client, pending, start_worker, workers  # noqa: F401  (a fixture)
from test_bot_workers import decisions

pytestmark = pytest.mark.usefixtures("redis_share")


class Planted:
    """Pickled, a call that creates ``path`` as it is unpickled."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return (Path.touch, (self.path,))


def a_job(level: str = "easy") -> tuple[bytes, list[int], int]:
    """A job of a Wizard decision, its legal actions, and what ``level`` decides at home."""
    ((observation, legal, seed),) = decisions("wizard", 1)
    bot = make_bot(level, load_game("wizard", players=4))
    home = bot.choose(observation, legal, random.Random(seed))  # type: ignore[arg-type]
    return write_job(BotJob("wizard", 4, {}, level, observation, legal, seed)), legal, home  # type: ignore[arg-type]


def malformed(tmp_path: Path) -> dict[str, bytes]:
    """Jobs that are not jobs, by name: a pickle that would create a file, and the rest."""
    good, _, _ = a_job()
    job = orjson.loads(good)
    changed = {
        "unknown game": {**job, "game": "no-such-game"},
        "observation of another game": {**job, "game": "luz"},
        "observation with a wrong field": {**job, "observation": {**job["observation"], "hand": 7}},
        "legal actions as texts": {**job, "legal": [str(action) for action in job["legal"]]},
        "players as a text": {**job, "players": "4"},
        "an unknown field": {**job, "code": "import os"},
        "a missing field": {key: value for key, value in job.items() if key != "seed"},
    }
    return {
        "pickle": pickle.dumps(Planted(tmp_path / "planted"), pickle.HIGHEST_PROTOCOL),
        "pickle of the job": pickle.dumps(tuple(job.values())),
        "not JSON": b"\x00\x01 not json",
        "empty": b"",
        "a JSON list": orjson.dumps(list(job.values())),
        "too large": b" " * (LARGEST_JOB + 1) + good,
        **{name: orjson.dumps(fields) for name, fields in changed.items()},
    }


def test_the_pickle_here_would_create_its_file(tmp_path: Path) -> None:
    """The payload the worker is given below is a real one."""
    pickle.loads(pickle.dumps(Planted(tmp_path / "proof")))
    assert (tmp_path / "proof").exists()


def test_a_job_round_trips_and_anything_else_is_refused(tmp_path: Path) -> None:
    good, legal, _ = a_job()
    assert orjson.loads(good)["legal"] == legal
    assert read_job(good)[5] == legal
    for name, payload in malformed(tmp_path).items():
        with pytest.raises(MalformedJob):
            read_job(payload)
            pytest.fail(f"{name} was read as a job")
    assert not (tmp_path / "planted").exists()


def test_a_worker_refuses_what_is_no_job_and_keeps_working(
    workers: list[BaseProcess],  # noqa: F811
    tmp_path: Path,
) -> None:
    bad = malformed(tmp_path)
    good, legal, home = a_job()
    reply = bus_prefix() + "bot-replies:test"
    with client() as writer:
        writer.xgroup_create(bus_prefix() + JOBS, GROUP, id="0", mkstream=True)
        deadline = repr(time.time() + 60)
        for name, payload in [*bad.items(), ("good", good)]:
            fields = {"id": name, "reply": reply, "deadline": deadline, "job": payload}
            writer.xadd(bus_prefix() + JOBS, fields)  # type: ignore[arg-type]
        writer.xadd(bus_prefix() + JOBS, {"id": "no job", "reply": reply, "deadline": deadline})
        writer.xadd(bus_prefix() + JOBS, {"id": "no deadline", "reply": reply, "job": good})
    worker = start_worker(workers)

    def answers() -> dict[str, dict[bytes, bytes]]:
        with client() as reader:
            return {fields[b"id"].decode(): fields for _, fields in reader.xrange(reply)}

    asyncio.run(until(lambda: len(answers()) == len(bad) + 3, 60))
    given = answers()
    assert int(given["good"][b"action"]) == home and home in legal
    refused = {name for name, fields in given.items() if b"error" in fields}
    assert refused == {*bad, "no job", "no deadline"}
    for name in refused:
        assert given[name][b"error"].startswith(b"malformed job: "), name
        assert b"action" not in given[name]
    assert not (tmp_path / "planted").exists()
    assert worker.is_alive()
    assert pending() == 0


def test_a_refused_job_is_logged_as_such(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "tapisvert.server.bot_queue")
    reply = bus_prefix() + "bot-replies:test"
    payload = pickle.dumps(Planted(tmp_path / "planted"))
    fields = {b"id": b"7", b"reply": reply.encode(), b"deadline": b"1e20", b"job": payload}
    with redis.Redis.from_url(REDIS_URL) as connection:
        _answer(connection, bus_prefix() + JOBS, "tester", b"0-1", fields, WorkerMetrics("tester"))
        ((_, answer),) = connection.xrange(reply)
    assert answer[b"id"] == b"7" and answer[b"worker"] == b"tester"
    assert answer[b"error"].startswith(b"malformed job: ")
    (record,) = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert record.levelno == logging.ERROR and record.exc_info is None
    assert record.getMessage().startswith("bot job 7 is refused, being no job: ")
    assert "JSON" in record.getMessage()
    assert not (tmp_path / "planted").exists()


@pytest.mark.parametrize(
    "answer",
    [
        {"error": "malformed job: not JSON"},
        {"action": "not a number"},
        {"action": "-1"},
        {},
    ],
)
def test_a_node_given_no_legal_action_falls_back(
    answer: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "tapisvert.server.bot_queue")
    ((observation, legal, seed),) = decisions("abluxxen", 1)
    easy = make_bot("easy", load_game("abluxxen", players=4))

    async def ask() -> tuple[int, float]:
        queue = BotQueue(REDIS_URL, workers=0, limit=30)
        await queue.start()
        try:
            started = time.monotonic()
            decision = asyncio.ensure_future(
                queue.choose(BotJob("abluxxen", 4, {}, "medium", observation, legal, seed))  # type: ignore[arg-type]
            )
            with client() as reader:
                await until(lambda: reader.xlen(bus_prefix() + JOBS) == 1)
                ((_, fields),) = reader.xrange(bus_prefix() + JOBS)
                reader.xadd(queue.replies, {"id": fields[b"id"], **answer})  # type: ignore[dict-item]
            action = await asyncio.wait_for(decision, 10)
            return action, time.monotonic() - started
        finally:
            await queue.close()

    action, took = asyncio.run(ask())
    assert action == easy.choose(observation, legal, random.Random(seed))  # type: ignore[arg-type]
    assert took < 10
    assert "easy decides instead" in caplog.text
