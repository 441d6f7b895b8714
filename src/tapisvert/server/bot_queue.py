"""The search bots' decisions as jobs on a Redis stream, taken by workers anywhere.

With a bus, a node keeps no pool of its own: it adds each search decision to one stream that a
consumer group of workers shares — ``tapisvert bot-worker --bus URL`` on any machine, and the
``--bot-workers`` that ``serve`` starts beside itself — so bot capacity grows by adding worker
processes. A worker answers on the asking node's own reply stream.

A job carries exactly what a worker of the local pool gets (see ``thinking``): the game's name,
player count and options, the bot's level, the seat's observation, the legal actions and the
seed, as one JSON object (``write_job``); the observation as data that ``tapisvert.core.wire``
reads back by the game's observation type. Nothing on the streams is pickled: a worker parses
a job and checks every field against its type (``read_job``), and a job that is not one (not
JSON, an unknown game, an observation that does not fit, a pickle) is refused, logged and
answered with its error, so that its node decides with the fallback bot at once; nothing read
from Redis is ever run as code. An answer is an action, a number the node checks is legal.
Whoever can write to Redis can still give wrong answers or withhold them (each costs the
node an ``easy`` decision), so Redis belongs on a private network, with a password.

The time budget is the node's: a job not answered within ``THINKING_LIMIT`` is decided by the
``easy`` bot, on the node. A worker that dies mid-job leaves the job pending in the group:
another worker claims it (``XAUTOCLAIM``) once it has been idle ``CLAIM_AFTER`` seconds, longer
than any search takes. An answer to a job already answered or given up is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import os
import socket
import time
import uuid
from multiprocessing.process import BaseProcess
from typing import Any

import orjson
import redis
from prometheus_client import start_http_server
from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError
from redis.exceptions import RedisError, ResponseError

from tapisvert.core.game import Action
from tapisvert.core.wire import (
    actions_from_data,
    actions_to_data,
    observation_from_data,
    observation_to_data,
    summary,
)
from tapisvert.server.metrics import WorkerMetrics
from tapisvert.server.redis_bus import (
    RETRY_FIRST,
    RETRY_LONGEST,
    bus_client,
    bus_prefix,
    finish,
    recovering,
    watched,
)
from tapisvert.server.retrying import logged, retrying
from tapisvert.server.thinking import (
    THINKING_LIMIT,
    BotJob,
    choose,
    decide,
    default_workers,
    follow_the_server,
)

JOBS = "bot-jobs"
GROUP = "bot-workers"
SEEN = "bot-workers-seen"
"""A sorted set: each worker, by when it last asked for jobs (its clock; at most once a
second), so that a node knows whether any would take its searches (``BotQueue.trouble``)."""
CLAIM_AFTER = 5.0
"""Seconds a job stays with a worker that does not answer before another may take it."""
KEPT = 10_000
"""Entries a stream keeps at most (jobs are deleted once answered; this bounds the rest)."""
REPLIES_EXPIRE = 3600
"""Seconds a reply stream outlives its last answer, should its node be gone."""
LARGEST_JOB = 1 << 20
"""Bytes a job may have at most (a whole game's observation takes a few thousand)."""
LONGEST_ERROR = 1000
"""Characters of a refused job's error that its log line and its answer keep."""

log = logging.getLogger(__name__)


class JobFailed(Exception):
    """A worker could not decide (its error is in the message)."""


class MalformedJob(ValueError):
    """What a worker read is not a job: it is refused, never decided."""


class _JobFields(BaseModel):
    """A job as JSON: each field of its type, as strict JSON has it, and no other field; the
    observation and the legal actions are read next, by ``tapisvert.core.wire``."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    game: str
    players: int
    options: dict[str, JsonValue]
    level: str
    observation: Any
    legal: Any
    seed: str


def write_job(job: BotJob) -> bytes:
    """A job as the JSON object that goes on the stream; raises ``TypeError`` or
    ``ValueError`` for one that has no such form (an option that is no JSON value, say)."""
    return orjson.dumps(
        {
            "game": job.game,
            "players": job.players,
            "options": job.options,
            "level": job.level,
            "observation": observation_to_data(job.game, job.observation),
            "legal": actions_to_data(job.legal),
            "seed": job.seed,
        }
    )


def read_job(raw: bytes) -> BotJob:
    """The job that ``write_job`` wrote; raises :class:`MalformedJob`, saying why, for
    anything else: nothing in ``raw`` is run, only parsed and checked."""
    if len(raw) > LARGEST_JOB:
        raise MalformedJob(f"{len(raw)} bytes, more than a job may have ({LARGEST_JOB})")
    try:
        job = _JobFields.model_validate_json(raw)
    except ValidationError as error:  # not JSON, or not a job's fields
        raise MalformedJob(_shortened(summary(error))) from None
    try:
        observation = observation_from_data(job.game, job.observation)
        legal = actions_from_data(job.legal)
    except ValueError as error:  # an unknown game, not its observation, not actions
        raise MalformedJob(_shortened(f"{job.game}: {error}")) from None
    return BotJob(job.game, job.players, dict(job.options), job.level, observation, legal, job.seed)


def _shortened(text: str) -> str:
    return text if len(text) <= LONGEST_ERROR else text[: LONGEST_ERROR - 1] + "…"


class BotQueue:
    """Search decisions through Redis; quick bots still choose on the event loop.

    ``workers`` processes (``None``: all cores but one) are started beside this node, on the
    first search, as workers of the shared queue.
    """

    def __init__(
        self,
        url: str,
        workers: int | None = None,
        prefix: str | None = None,
        limit: float = THINKING_LIMIT,
        claim_after: float = CLAIM_AFTER,
    ) -> None:
        self.url = url
        self.workers = default_workers() if workers is None else workers
        self.prefix = prefix = bus_prefix() if prefix is None else prefix
        self.limit = limit
        self.claim_after = claim_after
        self.jobs = prefix + JOBS
        self.replies = f"{prefix}bot-replies:{uuid.uuid4().hex}"
        self._numbers = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[Action]] = {}
        self._processes: list[BaseProcess] = []
        self._redis = bus_client(url)
        self._reader: asyncio.Task[None] | None = None
        self._open = True
        self._reading = recovering("reading bot answers from Redis", lambda: not self._open)
        self._last_answer = "0-0"
        """The position of the last answer read on the reply stream."""

    async def start(self) -> None:
        """Make sure the group exists and listen for answers."""
        await self._redis.ping()
        with contextlib.suppress(ResponseError):  # BUSYGROUP: it does
            await self._redis.xgroup_create(self.jobs, GROUP, id="0", mkstream=True)
        self._reader = watched(self._read_answers())

    async def choose(self, job: BotJob) -> Action:
        """The move of a bot, chosen by a worker unless the bot is a quick one."""
        troubles = (TimeoutError, JobFailed, RedisError, OSError)
        return await choose(job, self._ask, troubles, "a bot job")

    async def _ask(self, job: BotJob) -> Action:
        """A worker's answer to ``job``, as soon as one comes back (within ``limit``)."""
        self._start_workers()
        number = f"{self.replies}:{next(self._numbers)}"
        answer: asyncio.Future[Action] = asyncio.get_running_loop().create_future()
        self._waiting[number] = answer
        try:
            try:
                payload = write_job(job)
            except (TypeError, ValueError) as error:
                raise JobFailed(f"the job has no JSON form: {error}") from error
            await self._redis.xadd(
                self.jobs,
                {
                    "id": number,
                    "reply": self.replies,
                    "deadline": repr(time.time() + self.limit),
                    "job": payload,
                },
                maxlen=KEPT,
                approximate=True,
            )
            action = await asyncio.wait_for(answer, self.limit)
            if action not in job.legal:
                raise JobFailed(f"the answer {action} is not a legal action")
            return action
        finally:
            self._waiting.pop(number, None)

    async def trouble(self) -> str | None:
        """Why no worker would answer now: Redis is away, or no worker (here or anywhere)
        asked for jobs within ``claim_after`` seconds (see ``SEEN``). Workers not started
        yet here count as there: they start on the first search."""
        if self._reading.trouble is not None:
            return "redis"
        if self.workers and not self._processes:
            return None
        if any(process.is_alive() for process in self._processes):
            return None
        try:
            seen = await self._redis.zcount(
                self.prefix + SEEN, time.time() - self.claim_after, "+inf"
            )
        except (RedisError, OSError):
            return "redis"
        return None if seen else "no_worker"

    async def close(self) -> None:
        """Stop listening and stop the workers started here (a job one was doing stays in
        the queue for another)."""
        self._open = False  # see RedisPubSub._open
        if self._reader is not None:
            await finish([self._reader])
        for process in self._processes:
            process.terminate()
        for process in self._processes:
            await asyncio.to_thread(process.join)
        self._processes = []
        with contextlib.suppress(RedisError, OSError):
            await self._redis.delete(self.replies)
        await self._redis.aclose()

    def _start_workers(self) -> None:
        if self._processes or not self.workers:
            return
        context = multiprocessing.get_context("spawn")  # see BotWorkers._executor
        for _ in range(self.workers):
            arguments = (self.url, self.prefix, self.claim_after, os.getpid())
            process = context.Process(target=work, args=arguments, daemon=True)
            process.start()
            self._processes.append(process)

    async def _read_answers(self) -> None:
        while self._open:
            await self._reading(self._read_some_answers)

    async def _read_some_answers(self) -> None:
        """Read the answers as they come; back from trouble, hand over after the first
        read, so that the next error waits the first wait again."""
        while self._open:
            found: Any = await self._redis.xread(
                {self.replies: self._last_answer}, count=100, block=1000
            )
            for _, entries in found:
                for entry, fields in entries:
                    self._last_answer = entry
                    self._answered(fields)
            if self._reading.trouble is not None:
                return

    def _answered(self, fields: dict[bytes, bytes]) -> None:
        number = fields.get(b"id", b"?").decode(errors="replace")
        answer = self._waiting.get(number)
        if answer is None or answer.done():
            log.info("bot job %s was answered again, or too late: the answer is ignored", number)
        elif b"error" in fields:
            answer.set_exception(JobFailed(fields[b"error"].decode(errors="replace")))
        else:
            try:
                answer.set_result(int(fields[b"action"]))
            except (KeyError, ValueError):
                said = _shortened(repr(fields))
                answer.set_exception(JobFailed(f"an answer without an action: {said}"))


def work(
    url: str,
    prefix: str | None = None,
    claim_after: float = CLAIM_AFTER,
    server: int | None = None,
    metrics_address: tuple[str, int] | None = None,
) -> None:
    """A worker: answer bot jobs, one at a time, for ever; with ``server``, only as long as
    that process (the node that started it) runs; with ``metrics_address`` (a host and a
    port), its metrics are served there (see ``metrics``)."""
    if server is not None:
        follow_the_server(server)
    client = redis.Redis.from_url(url)
    jobs = (bus_prefix() if prefix is None else prefix) + JOBS
    me = f"{socket.gethostname()}:{os.getpid()}"
    seen = jobs.removesuffix(JOBS) + SEEN
    said = 0.0
    metrics = WorkerMetrics(me)
    if metrics_address is not None:
        host, port = metrics_address
        start_http_server(port, host, registry=metrics.registry)
    grouped = False

    def answer_some() -> None:
        """Answer the next jobs; first (again, after an error) make sure the group exists."""
        nonlocal grouped, said
        try:
            if not grouped:
                with contextlib.suppress(ResponseError):  # BUSYGROUP: it exists
                    client.xgroup_create(jobs, GROUP, id="0", mkstream=True)
                grouped = True
            if time.time() - said >= 1.0:
                said = time.time()
                with client.pipeline(transaction=False) as pipe:
                    pipe.zadd(seen, {me: said})
                    pipe.zremrangebyscore(seen, "-inf", said - REPLIES_EXPIRE)  # long gone
                    pipe.execute()
            for entry, fields in _next_jobs(client, jobs, me, claim_after):
                _answer(client, jobs, me, entry, fields, metrics)
        except (RedisError, OSError):
            grouped = False
            raise

    failed = logged(log, "a bot worker's Redis")
    attempts = retrying((RedisError, OSError), RETRY_FIRST, RETRY_LONGEST, failed)
    while True:
        attempts(answer_some)


def _next_jobs(
    client: redis.Redis, jobs: str, me: str, claim_after: float
) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """A job another worker left too long (it died), or else the next new one."""
    claimed: Any = client.xautoclaim(jobs, GROUP, me, int(claim_after * 1000), "0-0", count=1)
    if claimed[1]:
        log.warning("bot job %s is taken over from a worker that left it", claimed[1][0][0])
        return list(claimed[1])
    fresh: Any = client.xreadgroup(GROUP, me, {jobs: ">"}, count=1, block=1000)
    return [entry for _, entries in fresh for entry in entries]


def _answer(
    client: redis.Redis,
    jobs: str,
    me: str,
    entry: bytes,
    fields: dict[bytes, bytes],
    metrics: WorkerMetrics,
) -> None:
    """Decide, then at once answer (saying who did), acknowledge and delete the job; a job
    that cannot be read (``read_job``) or decided is answered with its error, so that its
    node falls back at once and no worker takes it again."""
    number = fields.get(b"id", b"?").decode(errors="replace")
    answer: dict[str, str] = {}
    try:
        if time.time() > _deadline(fields):
            log.warning("bot job %s is past its time: its node decided without it", number)
            metrics.ended("late")
        else:
            job = read_job(fields.get(b"job", b""))
            started = time.perf_counter()
            action = decide(job)
            metrics.decided(job.level, time.perf_counter() - started)
            answer = {"id": number, "worker": me, "action": str(action)}
    except MalformedJob as error:
        log.error("bot job %s is refused, being no job: %s", number, error)
        answer = {"id": number, "worker": me, "error": f"malformed job: {error}"}
        metrics.ended("refused")
    except Exception as error:
        log.exception("bot job %s failed", number)
        answer = {"id": number, "worker": me, "error": _shortened(repr(error))}
        metrics.ended("failed")
    reply = fields.get(b"reply")
    with client.pipeline(transaction=True) as pipe:
        if answer and reply is not None:
            pipe.xadd(reply, answer, maxlen=KEPT, approximate=True)  # type: ignore[arg-type]
            pipe.expire(reply, REPLIES_EXPIRE)
        pipe.xack(jobs, GROUP, entry)
        pipe.xdel(jobs, entry)
        pipe.execute()


def _deadline(fields: dict[bytes, bytes]) -> float:
    try:
        return float(fields[b"deadline"])
    except (KeyError, ValueError):
        raise MalformedJob(f"no deadline: {fields.get(b'deadline')!r}") from None
