"""What a node counts for its operator, in Prometheus's text format (``prometheus_client``).

Every series carries the node's name (``node``), so that the series of a platform's nodes
add up, and one node's stand apart. What is there anyway — the tables, the sockets, the
leases — is read when Prometheus scrapes, not counted as it changes. What happens at every
move (a move accepted or refused, its latency, its frames, a bot's decision) is counted in
plain numbers of the event loop, without a lock, and read on scrape too: a move costs a few
additions. What happens less often (a commit, a collection, a lease taken over) goes to
``prometheus_client``'s own counters and histograms, whose labelled child is bound once.

The metrics are served on a listener of their own (``serve --metrics-port``, on loopback
unless told otherwise), never by the public server: the public need not reach them. A node
started without that listener serves none, and its ``prometheus_client`` instruments do
nothing (the event loop's plain numbers cost less than measuring them would).

No label or value says anything of a game's cards: games, bot levels and refusal codes only.
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_left
from collections import Counter as Tally
from collections.abc import Iterator, Mapping, Sequence, Sized
from itertools import accumulate
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from tapisvert.bots.base import LEVELS
from tapisvert.core.registry import game_names

MOVE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds from a move's receipt to the mover's view: milliseconds on a node that keeps up."""
BOT_BUCKETS = (0.0001, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 15.0, 60.0)
"""Seconds a bot's decision takes: microseconds for the quick bots, a second for a search."""
COMMIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
GROUP_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
"""Writes committed in one transaction (see ``storage.writer``)."""
PAUSE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_PERIOD = 0.25
"""How often the event loop's lag is measured (a timer's lateness)."""
TABLE_STATUSES = ("open", "playing")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class Served(Protocol):
    """What the metrics read of a table served here (a ``GameTable``)."""

    @property
    def game(self) -> _Named: ...

    @property
    def status(self) -> str: ...

    @property
    def fence(self) -> int | None: ...

    @property
    def moved(self) -> bool: ...


class Tables(Protocol):
    """The tables in memory here (a ``TableRegistry``)."""

    @property
    def tables(self) -> Mapping[int, Served]: ...


class People(Protocol):
    """The connections here, by person (a ``Presence``)."""

    @property
    def connections(self) -> Mapping[int, Sized]: ...


class Counting(Protocol):
    def inc(self, amount: float = 1) -> None: ...


class Observing(Protocol):
    def observe(self, amount: float) -> None: ...


class _Nothing:
    """The instrument of a node that keeps no metrics."""

    def inc(self, amount: float = 1) -> None:
        """Nothing is counted."""

    def observe(self, amount: float) -> None:
        """Nothing is observed."""


NOTHING = _Nothing()


class Metrics:
    """One node's metrics in a registry of their own (``registry``), kept only if ``kept``."""

    def __init__(self, node: str, kept: bool = False) -> None:
        self.node = node
        self.kept = kept
        self.registry = CollectorRegistry()
        self.frames_sent = 0
        """Frames handed to the clients' links: counted by the connections, read on scrape."""
        self.bots_waiting = 0
        """Bot decisions asked for and not yet answered (the bot queue's depth, here)."""
        self._tables: Tables | None = None
        self._people: People | None = None
        labels = ["node"]
        registry = self.registry if kept else None  # a node that keeps none shows none
        self.moves_accepted: Tally[str] = Tally()
        """People's moves accepted by the tables served here, by game (read on scrape)."""
        self.moves_refused: Tally[tuple[str, str]] = Tally()
        """People's moves refused by the tables served here, by game and refusal's code."""
        self.move_seconds = LoopHistogram(MOVE_BUCKETS)
        self.bot_seconds = {level: LoopHistogram(BOT_BUCKETS) for level in LEVELS}
        """Each level's decisions, asked and answered (read on scrape)."""
        self.commit_seconds = self._observing(
            Histogram(
                "tapisvert_storage_commit_seconds",
                "Seconds one transaction of the storage's writer took.",
                labels,
                buckets=COMMIT_BUCKETS,
                registry=registry,
            )
        )
        self.group_writes = self._observing(
            Histogram(
                "tapisvert_storage_group_writes",
                "Writes committed together in one transaction.",
                labels,
                buckets=GROUP_BUCKETS,
                registry=registry,
            )
        )
        self.failed_writes = self._counting(
            Counter(
                "tapisvert_storage_failed_writes",
                "Writes the database refused (each is refused to whoever asked).",
                labels,
                registry=registry,
            )
        )
        self.loop_lag = self._observing(
            Histogram(
                "tapisvert_event_loop_lag_seconds",
                f"How late a timer of the event loop ran (one every {LAG_PERIOD} s).",
                labels,
                buckets=LAG_BUCKETS,
                registry=registry,
            )
        )
        gc_pauses = Histogram(
            "tapisvert_gc_pause_seconds",
            "Seconds a garbage collection held the server, by generation.",
            [*labels, "generation"],
            buckets=PAUSE_BUCKETS,
            registry=registry,
        )
        self.leases_taken_over = self._counting(
            Counter(
                "tapisvert_leases_taken_over",
                "Tables this node took over from a node that stopped.",
                labels,
                registry=registry,
            )
        )
        self.leases_lost = self._counting(
            Counter(
                "tapisvert_leases_lost",
                "Tables another node took from this one.",
                labels,
                registry=registry,
            )
        )
        self._gc_pauses = [self._observing(gc_pauses, str(generation)) for generation in range(3)]
        if kept:
            self.registry.register(_NodeState(self))
            ProcessCollector(registry=self.registry)

    def _counting(self, family: Counter, *labels: str) -> Counting:
        return family.labels(self.node, *labels) if self.kept else NOTHING

    def _observing(self, family: Histogram, *labels: str) -> Observing:
        return family.labels(self.node, *labels) if self.kept else NOTHING

    def watch(self, tables: Tables, people: People) -> None:
        """Read the tables, leases and connections of these parts on each scrape."""
        self._tables, self._people = tables, people

    # -- what the parts tell -----------------------------------------------------------

    def accepted(self, game: str) -> None:
        self.moves_accepted[game] += 1

    def refused(self, game: str, reason: str) -> None:
        self.moves_refused[game, reason] += 1

    def decided(self, level: str, seconds: float) -> None:
        histogram = self.bot_seconds.get(level)
        if histogram is None:  # a level known to the bots, if not among the usual ones
            histogram = self.bot_seconds[level] = LoopHistogram(BOT_BUCKETS)
        histogram.observe(seconds)

    def committed(self, writes: int, seconds: float, failed: bool) -> None:
        """A transaction of the storage's writer (from its thread)."""
        if failed:
            self.failed_writes.inc(writes)
        else:
            self.group_writes.observe(writes)
            self.commit_seconds.observe(seconds)

    def paused(self, generation: int, seconds: float) -> None:
        """A garbage collection (see ``collector``)."""
        self._gc_pauses[min(generation, 2)].observe(seconds)

    async def measure_lag(self) -> None:
        """Until cancelled: how late a timer of the event loop runs, every ``LAG_PERIOD``."""
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(LAG_PERIOD)
            self.loop_lag.observe(max(0.0, time.perf_counter() - asked - LAG_PERIOD))


class WorkerMetrics:
    """A bot worker's metrics (``tapisvert bot-worker --metrics-port``), labelled with the
    worker's name (``node``: ``host:pid``, as Redis lists the group's consumers). A job takes
    a search's time: its counts cost nothing beside it."""

    def __init__(self, worker: str) -> None:
        self.worker = worker
        self.registry = CollectorRegistry()
        self._seconds = Histogram(
            "tapisvert_worker_decision_seconds",
            "Seconds a worker thought over a job, by level.",
            ["node", "level"],
            buckets=BOT_BUCKETS,
            registry=self.registry,
        )
        self._jobs = Counter(
            "tapisvert_worker_jobs",
            "Jobs a worker took, by what became of them: decided, late (past their time), "
            "refused (no job), failed.",
            ["node", "outcome"],
            registry=self.registry,
        )
        ProcessCollector(registry=self.registry)

    def decided(self, level: str, seconds: float) -> None:
        self._seconds.labels(self.worker, level).observe(seconds)
        self.ended("decided")

    def ended(self, outcome: str) -> None:
        self._jobs.labels(self.worker, outcome).inc()


class LoopHistogram:
    """A histogram observed from the event loop alone, read on scrape: an observation is a
    bisection and two additions, where ``prometheus_client``'s takes a lock for each of its
    counts; for what happens at every move."""

    def __init__(self, buckets: Sequence[float]) -> None:
        self.bounds = tuple(buckets)
        self.counts = [0] * (len(self.bounds) + 1)
        """Observations in each bucket alone (the last: above every bound)."""
        self.total = 0.0

    def observe(self, amount: float) -> None:
        self.counts[bisect_left(self.bounds, amount)] += 1
        self.total += amount

    def add_to(self, family: HistogramMetricFamily, labels: list[str]) -> None:
        """Add the histogram to ``family`` as the series of ``labels``, its counts copied at
        once (see ``_NodeState``)."""
        cumulative = list(accumulate(list(self.counts)))
        bounds = [repr(float(bound)) for bound in self.bounds] + ["+Inf"]
        family.add_metric(labels, list(zip(bounds, cumulative, strict=True)), self.total)


class _NodeState:
    """The series read on each scrape (a ``prometheus_client`` custom collector)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        """Read from the scraping thread: the event loop's collections are copied at once
        (one call, which no other thread interrupts) before they are looked through."""
        metrics = self.metrics
        node = metrics.node
        accepted = CounterMetricFamily(
            "tapisvert_moves_accepted",
            "People's moves the tables served here accepted, by game.",
            labels=["node", "game"],
        )
        counted = dict(metrics.moves_accepted)
        for game in sorted(counted.keys() | set(game_names())):
            accepted.add_metric([node, game], counted.get(game, 0))
        refused = CounterMetricFamily(
            "tapisvert_moves_refused",
            "People's moves the tables served here refused, by game and refusal's code.",
            labels=["node", "game", "reason"],
        )
        for (game, reason), count in sorted(dict(metrics.moves_refused).items()):
            refused.add_metric([node, game, reason], count)
        yield from (accepted, refused)
        latency = HistogramMetricFamily(
            "tapisvert_move_seconds",
            "Seconds from a move's receipt on a socket here to the mover's view sent.",
            labels=["node"],
        )
        metrics.move_seconds.add_to(latency, [node])
        bots = HistogramMetricFamily(
            "tapisvert_bot_decision_seconds",
            "Seconds a bot's decision took here, asked and answered, by level.",
            labels=["node", "level"],
        )
        for level, histogram in list(metrics.bot_seconds.items()):
            histogram.add_to(bots, [node, level])
        yield from (latency, bots)
        frames = CounterMetricFamily(
            "tapisvert_frames_sent", "Frames handed to the clients' sockets.", labels=["node"]
        )
        frames.add_metric([node], metrics.frames_sent)
        yield frames
        waiting = GaugeMetricFamily(
            "tapisvert_bot_decisions_waiting",
            "Bot decisions asked for here and not yet answered.",
            labels=["node"],
        )
        waiting.add_metric([node], metrics.bots_waiting)
        yield waiting
        people, tables = metrics._people, metrics._tables
        if people is not None:
            yield from _connected(node, list(people.connections.values()))
        if tables is not None:
            yield from _tables(node, list(tables.tables.values()))


def _connected(node: str, connections: Sequence[Sized]) -> Iterator[Metric]:
    sockets = GaugeMetricFamily(
        "tapisvert_sockets", "Clients' sockets connected here.", labels=["node"]
    )
    sockets.add_metric([node], sum(len(mine) for mine in connections))
    people = GaugeMetricFamily(
        "tapisvert_people", "People with at least one socket connected here.", labels=["node"]
    )
    people.add_metric([node], sum(1 for mine in connections if mine))
    yield from (sockets, people)


def _tables(node: str, tables: list[Served]) -> Iterator[Metric]:
    counted = Tally((table.game.name, table.status) for table in tables if not table.moved)
    family = GaugeMetricFamily(
        "tapisvert_tables",
        "Tables served here, by game and status.",
        labels=["node", "game", "status"],
    )
    for game in sorted({game for game, _ in counted} | set(game_names())):
        for status in TABLE_STATUSES:
            family.add_metric([node, game, status], counted[game, status])
    held = GaugeMetricFamily(
        "tapisvert_leases_held", "Leases of tables this node holds.", labels=["node"]
    )
    held.add_metric(
        [node], sum(1 for table in tables if table.fence is not None and not table.moved)
    )
    yield from (family, held)
