"""A rolling restart of two nodes under load: no acknowledged move lost, none applied twice.

Two nodes (``serve --bus``, one PostgreSQL database) serve ``--tables`` tables of four
client seats each (seat j of table g on node (g + j) mod 2, every table created on node
g mod 2), the clients thinking as in ``server_load`` (0.5–1.5 × ``--think`` seconds). After
a warm-up and a baseline window of ``--seconds``, the first node is stopped gently
(SIGTERM: it hands its tables to the other and tells its clients to reconnect, which they do
to the other node, as a load balancer would send them), started again once it has exited,
and then the second node the same way. The players' move latencies (from leaving the client
to its acknowledgement) are reported in the baseline window and during the restart (from the
first SIGTERM until the second node is started again), with their ratio.

At the end every acknowledged move must be in the database at its position (``lost`` counts
those that are not), no position may be logged twice and no move acknowledged twice.

Run: ``.venv/bin/python benchmarks/rolling_restart.py --database-url postgresql://…
--bus redis://… [--tables 250]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import psycopg

from server_load import (  # puts tests/ on the path
    database,
    forget_redis_keys,
    guest,
    logged_moves,
    quantile,
)
from tapisvert.core.registry import game_names
from tapisvert.server.redis_bus import PREFIX_VARIABLE

from server_support import Server


@dataclass
class Moves:
    """Every move sent and acknowledged, with when."""

    acked: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    """(table, position, action) of each acknowledged move, by its id."""
    latencies: list[tuple[float, float]] = field(default_factory=list)
    """(sent at, seconds to its acknowledgement) of each acknowledged move."""
    twice: int = 0
    """Moves acknowledged a second time."""
    reconnects: int = 0


class Seat:
    """One client seat: plays its table, and reconnects, to the other node first, when its
    node says it stops or cannot be reached."""

    def __init__(self, token: str, ports: list[int], node: int, seed: int, moves: Moves) -> None:
        self.token = token
        self.ports = ports
        self.node = node
        self.rng = random.Random(seed)
        self.moves = moves
        self.sent: dict[str, tuple[float, int, int, str]] = {}
        self.done = False

    async def run(self, session: aiohttp.ClientSession, think: float) -> None:
        while not self.done:
            try:
                url = f"ws://127.0.0.1:{self.ports[self.node]}/ws"
                async with session.ws_connect(url, max_msg_size=0, compress=0) as link:
                    hello = {"type": "hello", "version": 1, "token": self.token}
                    await link.send_str(json.dumps(hello))
                    await self.play(link, think)
            except (aiohttp.ClientError, OSError):
                await asyncio.sleep(0.05)
            if not self.done:
                self.node = 1 - self.node  # the other node, as a load balancer would

    async def play(self, link: Any, think: float) -> None:
        async for message in link:
            if message.type != aiohttp.WSMsgType.TEXT:
                return
            frame = json.loads(message.data)
            kind = frame["type"]
            if kind == "reconnect":
                self.moves.reconnects += 1
                return
            if kind == "error" and frame["code"] == "draining":
                return
            if kind != "view":
                continue
            if frame["ack"] in self.sent:
                sent, table, position, action = self.sent.pop(frame["ack"])
                if frame["ack"] in self.moves.acked:
                    self.moves.twice += 1
                self.moves.acked[frame["ack"]] = (table, position, action)
                self.moves.latencies.append((sent, time.perf_counter() - sent))
            if frame["result"] is not None:
                self.done = True
                return
            if frame["to_act"] == frame["seat"] and frame["legal"]:
                action = self.rng.choice(frame["legal"])
                move = f"{frame['table']}:{frame['seq']}:{uuid.uuid4().hex[:6]}"
                await asyncio.sleep(self.rng.uniform(0.5, 1.5) * think)
                self.sent[move] = (time.perf_counter(), frame["table"], frame["seq"], action)
                act = {"type": "act", "id": move, "table": frame["table"], "seq": frame["seq"]}
                await link.send_str(json.dumps({**act, "action": action}))


async def set_up(nodes: list[Server], game: str, tables: int, moves: Moves) -> list[Seat]:
    """The tables, each created on its node and started, and their seats."""
    ports = [node.port for node in nodes]
    seats = []
    for group in range(tables):
        tokens = []
        for index in range(4):
            node = nodes[(group + index) % 2]
            async with httpx.AsyncClient(base_url=node.url, timeout=60) as http:
                tokens.append(await guest(http, f"p{group}x{index}", group))
        home = nodes[group % 2]
        created = home.call(tokens[0], "POST", "/api/tables", game=game, players=4)
        table = int(created.json()["table"])
        for seat, token in enumerate(tokens[1:], start=1):
            home.call(token, "POST", f"/api/tables/{table}/join", seat=seat).raise_for_status()
        home.call(tokens[0], "POST", f"/api/tables/{table}/start").raise_for_status()
        seats += [
            Seat(token, ports, (group + index) % 2, 4 * group + index, moves)
            for index, token in enumerate(tokens)
        ]
    return seats


async def restart(node: Server) -> None:
    """SIGTERM, wait for the exit, start again."""
    assert node.process is not None
    node.process.send_signal(signal.SIGTERM)
    code = await asyncio.to_thread(node.process.wait, 120)
    node.process = None
    if code != 0:
        raise RuntimeError(f"the node exited with {code}: {node.log.read_text()[-2000:]}")
    await asyncio.to_thread(node.start)


async def measure(nodes: list[Server], arguments: argparse.Namespace) -> dict[str, Any]:
    moves = Moves()
    seats = await set_up(nodes, arguments.game, arguments.tables, moves)
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    playing = [asyncio.create_task(seat.run(session, arguments.think)) for seat in seats]
    await asyncio.sleep(arguments.warmup)
    baseline = time.perf_counter()
    await asyncio.sleep(arguments.seconds)
    started = time.perf_counter()
    for node in nodes:
        await restart(node)
    ended = time.perf_counter()
    await asyncio.sleep(arguments.seconds)
    for seat in seats:
        seat.done = True
    for task in playing:
        task.cancel()
    await asyncio.gather(*playing, return_exceptions=True)
    await session.close()
    before = sorted(seconds for sent, seconds in moves.latencies if baseline <= sent < started)
    during = sorted(seconds for sent, seconds in moves.latencies if started <= sent <= ended)
    return {"moves": moves, "before": before, "during": during, "restart": ended - started}


def check_log(url: str, acked: dict[str, tuple[int, int, str]]) -> tuple[int, int, int]:
    """(moves acknowledged, of them lost, positions logged twice), read from the database."""
    positions = logged_moves(url)
    with psycopg.connect(url) as connection:
        doubled = connection.execute(
            "SELECT count(*) FROM (SELECT table_id, seq FROM actions"
            " GROUP BY table_id, seq HAVING count(*) > 1) AS doubled"
        ).fetchone()
    twice = 0 if doubled is None else doubled[0]
    lost = sum((table, position) not in positions for table, position, _ in acked.values())
    return len(acked), lost, int(twice)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20, help="250 for the full measure")
    games = game_names()
    parser.add_argument("--game", choices=games, default=games[-1], help="of four players")
    parser.add_argument("--think", type=float, default=0.14)
    parser.add_argument("--warmup", type=float, default=10.0, help="before the baseline")
    parser.add_argument("--seconds", type=float, default=10.0, help="the baseline's window")
    parser.add_argument("--database-url", required=True, help="a PostgreSQL server's URL")
    parser.add_argument("--bus", required=True, help="a Redis server's URL")
    parser.add_argument("--lease-seconds", type=float, default=10.0)
    arguments = parser.parse_args()
    os.environ[PREFIX_VARIABLE] = f"rolling-{uuid.uuid4().hex[:8]}:"
    settings = {"bus": arguments.bus, "lease-seconds": arguments.lease_seconds, "rate": 1000}
    with (
        tempfile.TemporaryDirectory() as folder,
        database(arguments.database_url, Path(folder)) as url,
    ):
        nodes = [Server(url, Path(folder) / f"node{index}.log", **settings) for index in (1, 2)]
        try:
            for node in nodes:
                node.start()
            found = asyncio.run(measure(nodes, arguments))
        finally:
            for node in nodes:
                node.stop()
            forget_redis_keys(arguments.bus)
        acked, lost, twice = check_log(url, found["moves"].acked)
    before, during = found["before"], found["during"]
    print(f"{arguments.tables} tables, 2 nodes, each restarted in turn ({found['restart']:.1f} s)")
    print(
        f"acknowledged moves: {acked}; lost: {lost}; logged twice: {twice}; "
        f"acknowledged twice: {found['moves'].twice}; reconnections: {found['moves'].reconnects}"
    )
    for name, values in (("before", before), ("during", during)):
        print(
            f"{name:>7}: {len(values)} moves, p50 {1000 * quantile(values, 0.5):.1f} ms, "
            f"p99 {1000 * quantile(values, 0.99):.1f} ms"
        )
    print(f"p99 during / before: {quantile(during, 0.99) / quantile(before, 0.99):.2f}")


if __name__ == "__main__":
    main()
