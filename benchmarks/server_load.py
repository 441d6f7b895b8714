"""Load on the real server: N tables of 4 bot-driven WebSocket clients, side by side with pings.

For each table count, a fresh ``tapisvert serve`` (SQLite file, one process) is started and
one client process (separate from the server) opens 4 WebSockets per table, each a guest
seated at a 4-player table. Every client plays a uniformly random legal move as soon as its
view says it is to act, and times the move from sending it to its acknowledgement, which the
server sends only after the move is committed to SQLite. A finished table is replaced by a
new one. After a warm-up, moves are counted for the measured window.

The peer, side by side: the same sockets, same server and same client loop, sending ``ping``
messages instead of moves (no game, no database, no fan-out): the ratio moves/pings shows
what the game, the log and the four views cost over the bare WebSocket round trip.

Afterwards the database is read back: every acknowledged move must be in the log.

Run: ``.venv/bin/python benchmarks/server_load.py [--tables 25 100 250] [--seconds 20]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_support import Server, sqlite_url  # noqa: E402


WAITING = re.compile(
    r'\{"type":"view","table":\d+,"seq":(?P<seq>\d+),"seat":(?P<seat>\d+),"to_act":(?P<to_act>\d+)'
)
"""The head of a view frame, enough to skip views that ask nothing of this seat."""


@dataclass
class Tally:
    started: float = 0.0
    until: float = 0.0
    latencies: list[float] = field(default_factory=list)
    acked: list[tuple[int, int]] = field(default_factory=list)
    """(table, position) of every acknowledged move, measured or not."""

    def record(self, sent: float, table: int, position: int) -> None:
        now = time.perf_counter()
        self.acked.append((table, position))
        if self.started <= sent and now <= self.until:
            self.latencies.append(now - sent)


async def guest(http: httpx.AsyncClient, name: str) -> str:
    response = await http.post("/api/guest", json={"name": name})
    response.raise_for_status()
    return str(response.json()["token"])


async def new_table(http: httpx.AsyncClient, tokens: list[str], game: str) -> int:
    def auth(token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    created = await http.post(
        "/api/tables", json={"game": game, "players": len(tokens)}, headers=auth(tokens[0])
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    for seat, token in enumerate(tokens[1:], start=1):
        joined = await http.post(
            f"/api/tables/{table}/join", json={"seat": seat}, headers=auth(token)
        )
        joined.raise_for_status()
    (await http.post(f"/api/tables/{table}/start", headers=auth(tokens[0]))).raise_for_status()
    return table


async def seat_loop(
    url: str, token: str, seed: int, tally: Tally, mode: str, finished: asyncio.Queue[int]
) -> None:
    rng = random.Random(seed)
    sent: dict[str, tuple[float, int, int]] = {}
    async with websockets.connect(url, max_size=None, compression=None) as link:
        await link.send(json.dumps({"type": "hello", "version": 1, "token": token}))
        if mode == "pings":
            await link.recv()
            number = 0
            while time.perf_counter() < tally.until:
                start = time.perf_counter()
                await link.send(json.dumps({"type": "ping", "id": str(number)}))
                answer = orjson.loads(await link.recv())
                assert answer["type"] == "ack", answer
                tally.record(start, 0, number)
                number += 1
            return
        latest = -1
        while time.perf_counter() < tally.until:
            try:
                text = await asyncio.wait_for(link.recv(), 1)
            except TimeoutError:
                continue
            quick = WAITING.match(text)
            if quick and quick["seat"] != quick["to_act"] and int(quick["seq"]) > latest:
                latest = int(quick["seq"])  # a view where another seat is to act
                continue
            frame = orjson.loads(text)
            kind = frame["type"]
            if kind == "ack" and frame.get("id") in sent:
                started, table, position = sent.pop(frame["id"])
                tally.record(started, table, position)
            elif kind == "error":
                raise RuntimeError(f"refused: {frame}")
            elif kind == "view" and frame["seq"] > latest:
                latest = frame["seq"]
                if frame["result"] is not None:
                    if frame["seat"] == 0:
                        finished.put_nowait(frame["table"])
                    latest = -1
                elif frame["to_act"] == frame["seat"]:
                    request = f"{frame['table']}:{frame['seq']}"
                    sent[request] = (time.perf_counter(), frame["table"], frame["seq"])
                    move = {
                        "type": "act",
                        "id": request,
                        "table": frame["table"],
                        "seq": frame["seq"],
                        "action": rng.choice(frame["legal"]),
                    }
                    await link.send(json.dumps(move))


async def run_clients(arguments: argparse.Namespace) -> dict[str, Any]:
    """The client process: set up the tables, play, and report what it measured."""
    base = f"http://127.0.0.1:{arguments.port}"
    url = f"ws://127.0.0.1:{arguments.port}/ws"
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=60) as http:
        names = [f"{arguments.mode[0]}{index}" for index in range(4 * arguments.tables)]
        tokens = await asyncio.gather(*(guest(http, name) for name in names))
        groups = [tokens[4 * index : 4 * index + 4] for index in range(arguments.tables)]
        tally = Tally()
        finished: asyncio.Queue[int] = asyncio.Queue()
        now = time.perf_counter()
        tally.started = now + arguments.warmup
        tally.until = tally.started + arguments.seconds
        seats = [
            seat_loop(url, token, 4 * group + seat, tally, arguments.mode, finished)
            for group, group_tokens in enumerate(groups)
            for seat, token in enumerate(group_tokens)
        ]
        tasks = [asyncio.create_task(seat) for seat in seats]
        if arguments.mode == "moves":
            await asyncio.sleep(0.5)
            tables = await asyncio.gather(
                *(new_table(http, group, arguments.game) for group in groups)
            )
            group_of = dict(zip(tables, groups, strict=True))

            async def replace_finished() -> None:
                while True:
                    table = await finished.get()
                    group = group_of.pop(table)
                    group_of[await new_table(http, group, arguments.game)] = group

            replacer = asyncio.create_task(replace_finished())
        await asyncio.gather(*tasks)
        if arguments.mode == "moves":
            replacer.cancel()
    latencies = sorted(tally.latencies)
    return {
        "moves": len(latencies),
        "per_second": len(latencies) / arguments.seconds,
        "p50": quantile(latencies, 0.50),
        "p95": quantile(latencies, 0.95),
        "p99": quantile(latencies, 0.99),
        "acked": tally.acked,
    }


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


def client_process(port: int, tables: int, mode: str, arguments: argparse.Namespace) -> Any:
    command = [
        sys.executable, __file__, "--client", "--port", str(port), "--mode", mode,
        "--tables", str(tables), "--seconds", str(arguments.seconds),
        "--warmup", str(arguments.warmup), "--game", arguments.game,
    ]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, check=False)
    if output.returncode != 0:
        raise RuntimeError(output.stderr[-3000:])
    return json.loads(output.stdout)


def logged_moves(database: Path) -> set[tuple[int, int]]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT table_id, seq FROM actions WHERE actor >= 0")
        return {(table, seq) for table, seq in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[25, 100, 250])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--game", default="wizard")
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--mode", default="moves", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.client:
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        tables = arguments.tables[0]
        arguments.tables = tables
        print(json.dumps(asyncio.run(run_clients(arguments))))
        return

    print(
        f"{'tables':>6} {'sockets':>7} {'moves/s':>8} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}"
        f" {'pings/s':>8} {'moves/pings':>11} {'persisted':>9}"
    )
    for tables in arguments.tables:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder)
            server = Server(sqlite_url(path), path / "server.log", rate=1000.0)
            server.start()
            try:
                moves = client_process(server.port, tables, "moves", arguments)
                pings = client_process(server.port, tables, "pings", arguments)
            finally:
                server.stop()
            acked = {tuple(move) for move in moves["acked"]}
            persisted = acked <= logged_moves(path / "tapisvert.sqlite3")
        print(
            f"{tables:>6} {4 * tables:>7} {moves['per_second']:>8.0f}"
            f" {1000 * moves['p50']:>7.1f} {1000 * moves['p95']:>7.1f}"
            f" {1000 * moves['p99']:>7.1f} {pings['per_second']:>8.0f}"
            f" {moves['per_second'] / pings['per_second']:>11.2f}"
            f" {'all' if persisted else 'NO':>9}",
            flush=True,
        )
        if not persisted:
            raise SystemExit("an acknowledged move is missing from the database")


if __name__ == "__main__":
    main()
