"""What a node's metrics cost per move and per scrape, measured in one process.

``server_load.py --metrics`` measures the cost on a whole node, but on a machine shared with
other work the node gets more or less of a core from one run to the next, far more than the
few percent at stake. Here the metrics' own work is timed alone, in this process's CPU time:

- a move: what a node does for the metrics when a person's move is accepted — the moment it
  was read and the moment its view went (``perf_counter`` twice), its latency observed, the
  move counted for its game, ``--frames`` frames counted, and (at worst: at 250 tables a
  commit carries several moves) one commit of its own observed, size and time;
- a scrape: the whole text of a node serving ``--tables`` tables (open, running and finished)
  with four people each, and ``--refusals`` kinds of refusals counted.

``--move-us`` is what a move costs a node without metrics (``server_load.py``'s ``µs/move``,
all its threads): the cost of the metrics is the move's share of it, plus the scrapes' share
of a core at one every ``--interval`` seconds.

Run: ``.venv/bin/python benchmarks/metrics_cost.py [--tables 250] [--move-us 450]``
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

from prometheus_client import generate_latest

from tapisvert.core.registry import game_names
from tapisvert.server.metrics import Metrics

GAMES = game_names()
REASONS = ("stale", "not_your_turn", "illegal", "not_playing", "not_seated", "storage")


@dataclass(frozen=True)
class Game:
    name: str


@dataclass
class Table:
    game: Game
    status: str
    fence: int | None = 1
    moved: bool = False


@dataclass
class Node:
    tables: dict[int, Table] = field(default_factory=dict)
    connections: dict[int, set[int]] = field(default_factory=dict)


def node(tables: int, refusals: int) -> Metrics:
    """A node's metrics watching ``tables`` tables of four people each."""
    served = Node()
    for number in range(tables):
        status = ("playing", "open", "finished")[number % 3]
        served.tables[number] = Table(Game(GAMES[number % len(GAMES)]), status)
        for seat in range(4):
            served.connections[4 * number + seat] = {seat}
    metrics = Metrics("host:1234:0123abcd", kept=True)
    metrics.watch(served, served)
    for number in range(refusals):
        metrics.refused(GAMES[number % len(GAMES)], REASONS[number % len(REASONS)])
    return metrics


def per_move(metrics: Metrics, frames: int, moves: int) -> float:
    """CPU seconds the metrics' work of one move takes."""
    started = time.process_time()
    for _ in range(moves):
        received = time.perf_counter()
        metrics.move_seconds.observe(time.perf_counter() - received)
        metrics.accepted(GAMES[0])
        for _ in range(frames):
            metrics.frames_sent += 1
        committing = time.perf_counter()
        metrics.committed(1, time.perf_counter() - committing, False)
    return (time.process_time() - started) / moves


def per_scrape(metrics: Metrics, scrapes: int) -> float:
    """CPU seconds one scrape's text takes."""
    started = time.process_time()
    for _ in range(scrapes):
        generate_latest(metrics.registry)
    return (time.process_time() - started) / scrapes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=250)
    parser.add_argument("--refusals", type=int, default=24, help="kinds of refusals counted")
    parser.add_argument("--frames", type=int, default=5, help="frames a move sends")
    parser.add_argument("--move-us", type=float, default=450.0, help="a move's cost, no metrics")
    parser.add_argument("--interval", type=float, default=15.0, help="seconds between scrapes")
    parser.add_argument("--moves", type=int, default=200_000)
    parser.add_argument("--scrapes", type=int, default=200)
    arguments = parser.parse_args()
    metrics = node(arguments.tables, arguments.refusals)
    move = per_move(metrics, arguments.frames, arguments.moves)
    scrape = per_scrape(metrics, arguments.scrapes)
    share = 1e6 * move / arguments.move_us
    scraping = scrape / arguments.interval
    print(f"a move's metrics: {1e6 * move:.2f} µs, {100 * share:.2f}% of {arguments.move_us:g} µs")
    print(
        f"a scrape ({arguments.tables} tables): {1e3 * scrape:.2f} ms, one every"
        f" {arguments.interval:g} s: {100 * scraping:.3f}% of a core"
    )
    print(f"cost at capacity: {100 * (share + scraping):.2f}% (target: under 3%)")


if __name__ == "__main__":
    main()
