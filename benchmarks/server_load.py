"""Load on the real server: N tables of 4 bot-driven WebSocket clients, side by side with pings.

For each game (all four by default, one after the other) and each table count, a fresh
``tapisvert serve`` (SQLite file, one node) is started and one client process (separate
from the server) opens 4 WebSockets per table, each a guest seated at a 4-player table of
that game set up over the WebSocket. A client bot thinks for a
uniformly random 0.5–1.5 × ``--think`` seconds, then plays a random legal move; the move is
timed from leaving the client to its acknowledgement (the mover's view of the position after
it), which the server sends only after the move is committed to SQLite. A finished table is
replaced by a new one. Moves are counted over the measured windows, after a warm-up.

The default thinking time, 0.14 s, makes a table ask for about 7 moves a second: 250 tables
ask for 1,786 moves/s, just over the 1,700 the platform must sustain there, so a server that
keeps up does so with short latencies. ``--think 0`` measures capacity instead: every bot
plays as soon as it may, and the latencies are those of a saturated server.

The server's CPU time over the window is read from /proc: ``server cpu`` (cores busy), and per
move ``µs/move`` (all its threads) and ``loop µs`` (the event loop's thread alone).

The peer, side by side: the same server and sockets answering ``ping`` messages, each client
sending the next as soon as the last is answered (no game, no database, no fan-out) — the
bare WebSocket round trips this machine sustains. ``moves/pings`` relates the two. The
measured seconds are split into ``--rounds`` windows of moves, each after a window of the
peer's as long (the clients hold their moves meanwhile, and play them after a new thinking
time; with ``--server-bots`` the server's bots play on), so that both share the same minutes
of the machine. For the peer the server's rate limit of messages a socket may send (and the
quotas that grow with it) is raised for the run, which the output says.

With ``--server-bots LEVEL`` a table has one client seat and three of the server's bots of
that level: the latencies are then those of people's moves while the bots think, and the
``bot moves/s`` and ``workers cpu`` columns tell how much the bots played and what their
worker processes (``--bot-workers``) used.

With ``--bus redis://…`` each measurement is made twice, side by side: once as above (the
in-process bus, the local pool of bot workers), once with the server on that Redis server
(``serve --bus``: frames through Redis, bot decisions as jobs on a Redis stream taken by the
``--bot-workers`` the server starts). Redis's own CPU time is the ``redis cpu`` column.

With ``--relays N`` (and ``--bus``) each node leaves its clients' sockets to N relay
processes that talk to it through Redis (``serve --relays``); the clients' sockets go to the
relays' port, their HTTP requests to the node's.

With ``--nodes N`` (and ``--bus``, ``--database-url postgresql://…``) N nodes of one platform
serve the load: the four seats of a table are spread over the nodes
(seat j of the g-th table on node (g + j) mod N), so that each table has people connected
to other nodes than its own. ``--database-url`` alone puts one node on PostgreSQL.

With ``--metrics`` each measurement is made four times: with the node keeping no metrics, then
twice with ``serve --metrics-port`` and its metrics scraped every ``SCRAPE_SECONDS`` (far more
often than Prometheus would), then without again (so that a machine getting busier or quieter
meanwhile weighs on both alike); the line after them says what the metrics cost: the ratio of
moves a second (with ``--think 0``, the capacity) and of the server's CPU per move, on over
off. On a machine shared with other work the server gets more or less of a core from one run
to the next, and moves a second follow; the CPU a move costs does not.

With ``--interleave ROUNDS`` the games do not run one after the other, minutes apart (the
machine's speed drifts within minutes, and their ratios with it): a server is started for each
game (Wizard, Luz, Abluxxen, Fzzzt!; with ``--engines pure,compiled`` one on each engine, the
pure one told ``TAPISVERT_ENGINE=pure``), each with its tables and clients set up and warmed,
all at once; then each in turn plays for ``--window`` seconds while the others' clients hold
their moves (their servers idle), for ``ROUNDS`` rounds. Each side's moves a second are printed
window by window, and each game's ratio to Wizard on the same engine (and the compiled
engine's to the pure one, game by game) as the median of the rounds' ratios, with their range.
The bots think 0 s by default there: the figures are capacities. The line after the table says
how many games each side ended in its windows.

With ``--peer`` (and ``--interleave``) boardgame.io 0.50.2 takes its turn in the same rounds:
``benchmarks/bgio_peer``, a Node project of its own (its server and its clients, installed
from the npm registry by ``npm install`` at the start; nothing of ``node_modules`` is kept in
the repository), the same number of matches of Oh Hell for four (``game.js``), the
trick-taking game Wizard grew from, each seat a bot on boardgame.io's own client (one
WebSocket each, socket.io) that plays a random legal move as soon as it may, a move timed
from leaving the client to the mover's next state. Each game's ratio to it is printed beside
its ratio to Wizard, as the median of the rounds. What differs from our games: no wizards nor
jesters (52 cards, 13 rounds, not 60 and 15); the matches kept in memory (boardgame.io's
default storage), where ours commit every move to SQLite before acknowledging it; the whole
view sent to each seat after every move (ours send what changed); the legal moves worked out by
the client bots (ours are sent them).

With ``--half-load`` (and ``--interleave``) as many rounds again follow, the peer stopped:
each game's bots think so that its tables ask for half the moves a second the game sustained in
the rounds before (a mean thinking time of 2 × tables / capacity: a table asks for a move every
thinking time, one seat acting at a time), and the p99 of its moves there is printed, the
median of the rounds' and the worst; then each round's p99 with the games that ended in it
(each table set up anew at once; with ``--no-spread`` the tables start together, so their games
tend to end in the same rounds).

In either way, the tables are spread over their games before the windows (``--spread``, the
default; ``--no-spread`` leaves them all starting together): in the warm-up each table plays a
number of its moves drawn uniformly below a whole game's (the mean decisions of random 4-player
games on the engine: some 540 for Wizard, 170 to 210 for the others; with ``--peer``, a whole
match's, 416, for boardgame.io's), then holds its next move until every table has played its
number and ``--warmup`` seconds have passed. The windows then find the tables at every stage
of their games, as on a server whose tables started at different times. Without it, every
table would be at the same stage, its first moves: a move does not cost the same at every stage
(Wizard's first rounds deal 1 to 7 cards, its last 15), and in the same seconds a long game's
tables would play its first rounds alone while a short game's tables played whole games.

At the end of the last window of moves the client kills the node(s) with SIGKILL, and the
database is read back: every move acknowledged until then must be in the log (the
``persisted`` column).

Run: ``.venv/bin/python benchmarks/server_load.py [--game all] [--tables 25 100 250]``, or
``… --tables 250 --interleave 5 --window 3 [--engines pure,compiled] [--peer] [--half-load]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import itertools
import json
import os
import random
import re
import shlex
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import tapisvert  # noqa: E402
from engines import KINDS, engine_environment, engines_to_measure  # noqa: E402
from tapisvert.compiled import ENGINE_VARIABLE  # noqa: E402
from tapisvert.core.registry import game_names  # noqa: E402
from tapisvert.i18n import default_language, translate  # noqa: E402
from tapisvert.server.redis_bus import PREFIX_VARIABLE  # noqa: E402
from tapisvert.server.rooms import rooms  # noqa: E402
from tapisvert.server.settings import Settings  # noqa: E402

from server_support import (  # noqa: E402
    Server,
    children,
    free_port,
    is_relay,
    process_stat,
    scratch_database,
    sqlite_url,
)

WAITING = re.compile(
    r'\{"type":"view","table":\d+,"seq":(?P<seq>\d+),"seat":(?P<seat>\d+),'
    r'"ack":(?:null|"(?P<ack>[^"]*)"),"to_act":(?P<to_act>\d+)'
)
"""The head of a view frame, enough to skip views that ask nothing of this seat."""
GAMES = tuple(game_names())
LENGTH_GAMES = 20
"""Random games whose mean decisions is a game's length for ``--spread``."""
SPREAD_SECONDS = 600.0
"""How long the tables may take to play their drawn moves in the warm-up (``--spread``)."""
BOTS_START_SECONDS = 120.0
"""How long the server's bots may take to play their first move before the window opens."""
PEER_RATE = 1_000_000.0
"""Messages a second a socket may send, raised for the benchmark from the server's default:
the peer's pings go as fast as the server answers (over 1,000 a second on one socket on a
quiet machine), and the rate limit must not be what is measured."""
REFERENCE = "wizard"
"""The game every other is measured against with ``--interleave``."""
TURNS = (REFERENCE, *(game for game in GAMES if game != REFERENCE))
"""The order the games take their turns in with ``--interleave``: the reference first."""
PEER = "boardgame.io"
"""The peer's side with ``--peer``: boardgame.io 0.50.2 (``bgio_peer/``)."""
PEER_FOLDER = ROOT / "benchmarks" / "bgio_peer"
PEER_STARTING_SECONDS = 60.0
PEER_SAYS = (
    "the peer, in the same windows: boardgame.io 0.50.2 (its server, its Node client, socket.io"
    " over WebSocket), {tables} matches of Oh Hell for four (benchmarks/bgio_peer/game.js), the"
    " trick-taking game Wizard grew from: 13 rounds of 1 to 13 cards of 52, bids then tricks,"
    " hands hidden in each seat's view; unlike ours: no wizards nor jesters, 13 rounds not 15,"
    " the matches kept in memory (boardgame.io's default storage; ours commit every move to"
    " SQLite before acknowledging it), the whole view sent to each seat after every move, legal"
    " moves worked out by the client bots (ours are sent them)"
)
NODE = shutil.which("node")
NPM = shutil.which("npm")
SCRAPE_SECONDS = 1.0
"""How often ``--metrics`` scrapes each node's metrics (Prometheus's default is a minute)."""


@dataclass
class Tally:
    window: int | None = None
    """The moves' measured window open now, numbered; ``None`` between windows."""
    paused: bool = False
    """The clients hold their moves (the peer's pings, or with ``--interleave`` another
    side's, are being measured)."""
    stopped: bool = False
    """The last window has closed: the clients send no more moves."""
    held: list[tuple[SeatClient, dict[str, Any]]] = field(default_factory=list)
    """Moves held while paused, with their seats."""
    latencies: list[float] = field(default_factory=list)
    acked: list[tuple[int, int]] = field(default_factory=list)
    """(table, position) of every acknowledged move, measured or not."""
    bot_moves: int = 0
    """Moves of the server's bots seen in the measured windows (``--server-bots``)."""
    games_ended: int = 0
    """Games that ended in the measured windows (each then set up anew: a table made, its
    seats taken, the game started)."""
    warming: bool = True
    """The warm-up: with ``--spread``, a table that has played its drawn number of moves
    holds its next (see ``Spread``)."""
    bots_played: asyncio.Event = field(default_factory=asyncio.Event)
    """Set at the bots' first move: the window opens after it (their workers start first)."""

    def record(self, window: int | None, sent: float, table: int, position: int) -> None:
        """A move acknowledged: timed if it was sent in the window still open."""
        self.acked.append((table, position))
        if window is not None and window == self.window:
            self.latencies.append(time.perf_counter() - sent)


def group_address(group: int) -> dict[str, str]:
    """The headers that put a table's group at an address of its own, as a proxy on this
    machine would say (uvicorn trusts it): one address may hold only a few open tables."""
    return {"X-Forwarded-For": f"10.{group >> 8 & 255}.{group & 255}.1"}


async def guest(http: httpx.AsyncClient, name: str, group: int) -> str:
    response = await http.post("/api/guest", json={"name": name}, headers=group_address(group))
    response.raise_for_status()
    return str(response.json()["token"])


@dataclass
class Spread:
    """A table's moves to play in the warm-up (``--spread``): a number drawn uniformly below a
    whole game's, so that in the windows the tables stand at every stage of their games, as
    on a server whose tables started at different times, not all at their first moves."""

    left: int


class SeatClient:
    """One bot-driven WebSocket: plays its seat, and runs table set-up requests."""

    def __init__(self, link: Any, seed: int, tally: Tally, think: float) -> None:
        self.link = link
        self.rng = random.Random(seed)
        self.tally = tally
        self.think = think
        self.sent: dict[str, tuple[int | None, float, int, int]] = {}
        self.requests: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.finished: asyncio.Queue[int] = asyncio.Queue()
        self.latest = -1
        self.numbers = itertools.count()
        self.bots_to_act = False
        """The other seats are the server's bots: count their moves."""
        self.to_act: int | None = None
        self.spread: Spread | None = None
        """Its table's moves left to play in the warm-up, shared by the table's seats."""

    async def request(self, **message: Any) -> dict[str, Any]:
        """Send a request (create, join, start, ping) and wait for its answer."""
        request = f"r{next(self.numbers)}"
        answer = self.requests[request] = asyncio.get_running_loop().create_future()
        await self.link.send_str(json.dumps({"id": request, **message}))
        frame = await answer
        if frame["type"] == "error":
            raise RuntimeError(f"refused: {frame}")
        return frame

    async def listen(self) -> None:
        async for message in self.link:
            text = message.data
            quick = WAITING.match(text)
            if quick and quick["ack"] in self.sent:
                self.acknowledged(quick["ack"])
            if (
                quick
                and not self.bots_to_act
                and quick["seat"] != quick["to_act"]
                and int(quick["seq"]) > self.latest
            ):
                self.latest = int(quick["seq"])  # a view where another seat is to act
                continue
            self.handle(orjson.loads(text))

    def handle(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        if kind in {"ack", "error"} and frame.get("id") in self.requests:
            answer = self.requests.pop(frame["id"])
            if not answer.cancelled():  # a ping cancelled at the end of the peer's window
                answer.set_result(frame)
        elif kind == "error":
            raise RuntimeError(f"refused: {frame}")
        elif kind == "view" and frame["ack"] in self.sent:
            self.acknowledged(frame["ack"])
        if kind == "view" and frame["seq"] > self.latest:
            if self.bots_to_act and self.to_act not in (None, frame["seat"]):
                self.tally.bot_moves += self.tally.window is not None
                self.tally.bots_played.set()
            self.to_act = frame["to_act"]
            self.latest = frame["seq"]
            if frame["result"] is not None:
                self.latest = -1
                self.finished.put_nowait(frame["table"])
            elif frame["to_act"] == frame["seat"]:
                move = {
                    "type": "act",
                    "id": f"{frame['table']}:{frame['seq']}",
                    "table": frame["table"],
                    "seq": frame["seq"],
                    "action": self.rng.choice(frame["legal"]),
                }
                self.play_later(move)

    def acknowledged(self, move: str) -> None:
        self.tally.record(*self.sent.pop(move))

    def play(self, move: dict[str, Any]) -> None:
        """A bot's move after its thinking time; the clock starts when the move leaves."""
        if self.tally.stopped:
            return
        spread = self.spread if self.tally.warming else None
        if self.tally.paused or (spread is not None and spread.left <= 0):
            self.tally.held.append((self, move))
            return
        if spread is not None:
            spread.left -= 1
        sent = (self.tally.window, time.perf_counter(), move["table"], move["seq"])
        self.sent[move["id"]] = sent
        asyncio.get_running_loop().create_task(self.link.send_str(json.dumps(move)))

    def play_later(self, move: dict[str, Any]) -> None:
        """Play ``move`` after a thinking time of its own."""
        thinking = self.rng.uniform(0.5, 1.5) * self.think
        asyncio.get_running_loop().call_later(thinking, self.play, move)

    async def pings(self, latencies: list[float]) -> None:
        """The peer: ping, and ping again as soon as the answer comes, until cancelled."""
        while True:
            started = time.perf_counter()
            await self.request(type="ping")
            latencies.append(time.perf_counter() - started)


async def connect(session: aiohttp.ClientSession, url: str, token: str, group: int) -> Any:
    headers = group_address(group)
    link = await session.ws_connect(url, max_msg_size=0, compress=0, headers=headers)
    await link.send_str(json.dumps({"type": "hello", "version": 1, "token": token}))
    assert orjson.loads((await link.receive()).data)["type"] == "welcome"
    return link


async def host_tables(seats: list[SeatClient], game: str, server_bots: str, room: str) -> None:
    """Set up a table for these four over the WebSocket (or for the first one and three of the
    server's bots of level ``server_bots``) in ``room``, and a new one whenever it ends."""
    while True:
        created = await seats[0].request(type="create", room=room, game=game, players=4)
        table = created["table"]
        for index, seat in enumerate(seats[1:], start=1):
            await seat.request(type="join", table=table, seat=index)
        for _ in range(4 - len(seats)):
            await seats[0].request(type="bot", table=table, level=server_bots)
        await seats[0].request(type="start", table=table)
        ended = await seats[0].finished.get()
        assert ended == table, f"table {ended} ended, but this group plays at {table}"
        tally = seats[0].tally
        tally.games_ended += tally.window is not None


@dataclass
class Load:
    """A client process's tables: their sockets, the seats that play them, and the tasks."""

    session: aiohttp.ClientSession
    links: list[Any]
    seats: list[SeatClient]
    tasks: list[asyncio.Task[None]]
    pids: list[int]
    """The server processes."""


async def start_load(arguments: argparse.Namespace, tally: Tally) -> Load:
    """Open the sockets, and set up the tables that the seats start playing."""
    ports = [int(port) for port in arguments.ports.split(",")]
    per_table = 1 if arguments.server_bots else 4
    count = per_table * arguments.tables
    # seat j of table group g goes to node (g + j) mod N: every table has people on every node
    nodes = [(index // per_table + index % per_table) % len(ports) for index in range(count)]
    tokens = []
    for node, port in enumerate(ports):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            for index in range(count):
                if nodes[index] == node:
                    name = f"m{index}"
                    tokens.append((index, await guest(http, name, index // per_table)))
    tokens.sort()
    # aiohttp's client reads and writes frames in C: the load takes less of the machine.
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    socket_ports = [int(port) for port in arguments.socket_ports.split(",")]
    links = [
        await connect(
            session, f"ws://127.0.0.1:{socket_ports[nodes[index]]}/ws", token, index // per_table
        )
        for index, token in tokens
    ]
    seats = [SeatClient(link, index, tally, arguments.think) for index, link in enumerate(links)]
    drawn = random.Random(1)
    for first in range(0, len(seats), per_table):
        # a table's seats played by the clients make per_table / 4 of its decisions
        length = arguments.game_length * per_table / 4
        spread = Spread(int(drawn.random() * length)) if length else None
        for seat in seats[first : first + per_table]:
            seat.bots_to_act = bool(arguments.server_bots)
            seat.spread = spread
    tasks = [asyncio.create_task(seat.listen()) for seat in seats]
    tasks += [
        asyncio.create_task(
            host_tables(
                seats[first : first + per_table],
                arguments.game,
                arguments.server_bots,
                # a room holds a hundred tables waiting for players: they start together
                rooms()[first // per_table % len(rooms())],
            )
        )
        for first in range(0, len(seats), per_table)
    ]
    pids = [int(pid) for pid in arguments.server_pids.split(",")]
    return Load(session, links, seats, tasks, pids)


async def warm_up(seats: list[SeatClient], tally: Tally, seconds: float) -> None:
    """The warm-up: ``seconds``, and with ``--spread`` until every table has played its drawn
    number of moves (see ``Spread``)."""
    await asyncio.sleep(seconds)
    deadline = time.perf_counter() + SPREAD_SECONDS
    while any(seat.spread is not None and seat.spread.left > 0 for seat in seats):
        if time.perf_counter() > deadline:
            raise RuntimeError(f"the tables were not spread over their games in {SPREAD_SECONDS} s")
        await asyncio.sleep(0.05)
    tally.warming = False


async def end_load(load: Load, tally: Tally, think: float) -> None:
    """Kill the server(s) (what was acknowledged must be in the log: no goodbye), then stop
    playing and close the sockets."""
    tally.stopped = True
    for pid in load.pids:
        os.kill(pid, signal.SIGKILL)
    await asyncio.sleep(2 * think)
    for task in load.tasks:
        if task.done() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
        task.cancel()
    await asyncio.gather(*load.tasks, return_exceptions=True)
    for link in load.links:
        await link.close()
    await load.session.close()


async def run_clients(arguments: argparse.Namespace) -> dict[str, Any]:
    """The client process: set up the tables, play, and report what it measured."""
    tally = Tally()
    load = await start_load(arguments, tally)
    seats, pids = load.seats, load.pids
    await warm_up(seats, tally, arguments.warmup)
    if arguments.server_bots:  # a busy machine may take longer than the warm-up
        await asyncio.wait_for(tally.bots_played.wait(), BOTS_START_SECONDS)
    window = arguments.seconds / arguments.rounds
    pings: list[float] = []
    cpu = [0.0] * 6
    for number in range(arguments.rounds):
        await peer(seats, tally, pings, window)
        tally.window = number
        cpu_before = (*cpu_seconds(pids), process_cpu(arguments.redis_pid), time.process_time())
        await asyncio.sleep(window)
        cpu_after = (*cpu_seconds(pids), process_cpu(arguments.redis_pid), time.process_time())
        tally.window = None
        cpu = [
            total + after - before
            for total, before, after in zip(cpu, cpu_before, cpu_after, strict=True)
        ]
    await end_load(load, tally, arguments.think)
    hub_cpu, loop_cpu, relay_cpu, workers_cpu, redis_cpu, client_cpu = (
        seconds / arguments.seconds for seconds in cpu
    )
    latencies = sorted(tally.latencies)
    return {
        "moves": len(latencies),
        "per_second": len(latencies) / arguments.seconds,
        "p50": quantile(latencies, 0.50),
        "p95": quantile(latencies, 0.95),
        "p99": quantile(latencies, 0.99),
        "hub_cpu": hub_cpu,
        "loop_cpu": loop_cpu,
        "relay_cpu": relay_cpu,
        "workers_cpu": workers_cpu,
        "redis_cpu": redis_cpu,
        "client_cpu": client_cpu,
        "acked": tally.acked,
        "bot_moves": tally.bot_moves / arguments.seconds,
        "pings_per_second": len(pings) / arguments.seconds,
    }


async def hold(seats: list[SeatClient], tally: Tally) -> None:
    """The clients hold their moves, and the moves in flight are answered (a second at most)."""
    tally.paused = True
    settled = time.perf_counter() + 1.0
    while any(seat.sent for seat in seats) and time.perf_counter() < settled:
        await asyncio.sleep(0.01)


def resume(tally: Tally) -> None:
    """The held moves are played, each after a thinking time of its own."""
    tally.paused = False
    for seat, move in tally.held:
        seat.play_later(move)
    tally.held.clear()


async def peer(seats: list[SeatClient], tally: Tally, pings: list[float], seconds: float) -> None:
    """The peer, for ``seconds``, between two windows of moves: the clients hold their moves
    (see ``hold``), then every socket pings, and pings again as soon as the answer comes; then
    the held moves are played."""
    await hold(seats, tally)
    pinging = [asyncio.create_task(seat.pings(pings)) for seat in seats]
    await asyncio.sleep(seconds)
    for task in pinging:
        if task.done() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]
        task.cancel()
    await asyncio.gather(*pinging, return_exceptions=True)
    resume(tally)


async def run_turns(arguments: argparse.Namespace) -> dict[str, Any]:
    """The client process of ``--interleave``: set up the tables, play the warm-up, hold the
    moves and say ``ready``; then for each line read (a number of seconds) play that long and
    print what was measured as a line of JSON, holding the moves again after; at the end of
    the input, kill the server and report the acknowledged moves."""
    tally = Tally()
    load = await start_load(arguments, tally)
    await warm_up(load.seats, tally, arguments.warmup)
    await hold(load.seats, tally)
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    number = 0
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        seconds, think = map(float, line.split())
        for seat in load.seats:
            seat.think = think
        first, ended = len(tally.latencies), tally.games_ended
        tally.window = number
        cpu_before = used(load.pids[0])
        resume(tally)
        await asyncio.sleep(seconds)
        tally.window = None
        cpu = used(load.pids[0]) - cpu_before
        await hold(load.seats, tally)
        latencies = sorted(tally.latencies[first:])
        moves = len(latencies) / seconds
        window = {
            "per_second": moves,
            "p50": quantile(latencies, 0.50),
            "p99": quantile(latencies, 0.99),
            "us_per_move": 1e6 * cpu / seconds / moves if moves else float("nan"),
            "games_ended": tally.games_ended - ended,
        }
        print(json.dumps(window), flush=True)
        number += 1
    await end_load(load, tally, arguments.think)
    return {"acked": tally.acked}


def used(process: int, thread: int | None = None) -> float:
    """CPU time a process has used (all its threads, or ``thread`` alone), from Linux's /proc."""
    fields = process_stat(process, thread)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU time process ``pid`` has used; NaN without one, or without /proc."""
    try:
        return used(pid) if pid else float("nan")
    except OSError:
        return float("nan")


def cpu_seconds(pids: list[int]) -> tuple[float, float, float, float]:
    """CPU time used by the server processes (all their threads), by their event loops
    (their main threads), by their relays and by their bot workers (their other children).

    Read from Linux's /proc; NaN elsewhere.
    """
    try:
        servers, loops, relays, workers = 0.0, 0.0, 0.0, 0.0
        for pid in pids:
            servers += used(pid)
            loops += used(pid, thread=pid)
            for child in children(pid):
                if is_relay(child):
                    relays += used(child)
                else:
                    workers += used(child)
        return servers, loops, relays, workers
    except OSError:
        return float("nan"), float("nan"), float("nan"), float("nan")


def per_move(cores: float, moves: dict[str, Any]) -> float:
    """Microseconds of CPU a move cost, from the cores busy and the moves a second."""
    return 1e6 * cores / moves["per_second"] if moves["per_second"] else float("nan")


def quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(q * len(values)))]


def client_command(servers: list[Server], tables: int, arguments: argparse.Namespace) -> list[str]:
    """The command of the clients' process for ``tables`` of ``arguments.game`` on ``servers``;
    it writes its report to ``clients.json`` beside the first server's log."""
    pids = [server.process.pid for server in servers if server.process is not None]
    report = servers[0].log.with_name("clients.json")
    command = [
        sys.executable, __file__, "--client", "--rounds", str(arguments.rounds),
        "--ports", ",".join(str(server.port) for server in servers),
        "--socket-ports", ",".join(str(server.ws_port) for server in servers),
        "--redis-pid", str(redis_pid(servers[0].settings.get("bus", ""))),
        "--server-pids", ",".join(map(str, pids)), "--report", str(report),
        "--tables", str(tables), "--seconds", str(arguments.seconds),
        "--warmup", str(arguments.warmup), "--game", arguments.game,
        "--think", str(arguments.think), "--server-bots", arguments.server_bots,
        "--interleave", str(arguments.interleave),
        "--game-length", str(game_length(arguments.game) if arguments.spread else 0),
    ]  # fmt: skip
    return command


def spread_says(arguments: argparse.Namespace, games: Sequence[str]) -> str:
    """What ``--spread`` does to the tables, in a line of the output."""
    if not arguments.spread:
        return "the tables are not spread over their games (--no-spread): they start together"
    lengths = ", ".join(f"{game} {game_length(game)}" for game in games)
    peer = "; the peer's, below a whole match's (416)" if arguments.peer else ""
    return (
        "the tables are spread over their games first: in the warm-up each plays a number of its"
        f" moves drawn uniformly below a whole game's ({lengths}{peer}), then holds until all have"
    )


@functools.cache
def game_length(game: str) -> int:
    """The decisions of a 4-player game of ``game``, the mean of random legal games'."""
    rules = tapisvert.load_game(game, 4)
    rng = random.Random(1)
    decisions = 0
    for _ in range(LENGTH_GAMES):
        state = rules.new_initial_state(rng.getrandbits(32))
        state.resolve_chance()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            state.resolve_chance()
            decisions += 1
    return round(decisions / LENGTH_GAMES)


def client_process(servers: list[Server], tables: int, arguments: argparse.Namespace) -> Any:
    """Run the clients in a process of their own; their report comes back in a file."""
    report = servers[0].log.with_name("clients.json")
    command = client_command(servers, tables, arguments)
    output = subprocess.run(command, capture_output=True, text=True, check=False)
    if output.returncode != 0:
        logs = "".join(
            f"\n{server.log.name}:\n{server.log.read_text()[-3000:]}" for server in servers
        )
        raise RuntimeError(output.stderr[-3000:] + logs)
    return json.loads(report.read_text())


def redis_pid(url: object) -> int:
    """The process id of the Redis server at ``url`` (0 without one): its CPU time is the
    bus's cost, counted beside the server's."""
    if not url:
        return 0
    import redis

    with redis.Redis.from_url(str(url)) as client:
        return int(client.info("server")["process_id"])


def logged_moves(database_url: str) -> set[tuple[int, int]]:
    query = "SELECT table_id, seq FROM actions WHERE actor >= 0"
    if database_url.startswith("sqlite:///"):
        with sqlite3.connect(database_url.removeprefix("sqlite:///")) as connection:
            return {(table, seq) for table, seq in connection.execute(query)}
    import psycopg

    with psycopg.connect(database_url) as connection:
        return {(table, seq) for table, seq in connection.execute(query)}


@contextlib.contextmanager
def database(base: str, folder: Path) -> Iterator[str]:
    """A new, empty database for one measurement: a SQLite file in ``folder``, or with
    ``base`` (a PostgreSQL server's URL) a database made there and dropped afterwards."""
    if not base:
        yield sqlite_url(folder)
        return
    with scratch_database(base) as url:
        yield url


@contextlib.contextmanager
def scraping(servers: list[Server]) -> Iterator[None]:
    """Scrape the metrics of the nodes that keep them, every ``SCRAPE_SECONDS``, meanwhile."""
    ports = [
        server.settings["metrics-port"] for server in servers if "metrics-port" in server.settings
    ]
    done = threading.Event()

    def scrape() -> None:
        while not done.wait(SCRAPE_SECONDS):
            for port in ports:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).raise_for_status()
                except httpx.TransportError:  # the node is killed at the end of the window
                    return

    scraper = threading.Thread(target=scrape, daemon=True)
    scraper.start()
    try:
        yield
    finally:
        done.set()
        scraper.join()


def forget_redis_keys(url: str) -> None:
    """Delete what a measurement left in Redis (its job stream and reply streams)."""
    import redis

    with redis.Redis.from_url(url) as client:
        keys = list(client.scan_iter(f"{os.environ[PREFIX_VARIABLE]}*"))
        if keys:
            client.delete(*keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[25, 100, 250])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window")
    parser.add_argument(
        "--warmup",
        type=float,
        default=5.0,
        help="seconds of play before the windows (with --spread, at least)",
    )
    parser.add_argument(
        "--spread",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="in the warm-up, each table first plays a number of its moves drawn uniformly"
        " below a whole game's, then holds: the windows find the tables at every stage of"
        " their games",
    )
    parser.add_argument("--game-length", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="windows of moves the measured seconds are split into, each after one of the peer's",
    )
    parser.add_argument(
        "--game",
        nargs="+",
        default=["all"],
        choices=[*GAMES, "all"],
        help="the games whose tables are measured, one after the other (default: all)",
    )
    parser.add_argument(
        "--think",
        type=float,
        help="mean seconds a client bot thinks before each move (0: as fast as possible);"
        " default: 0.14, and 0 with --interleave",
    )
    parser.add_argument(
        "--interleave",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="start every game's server (on each of --engines) at once, then measure them in"
        " turns of --window seconds, the others holding still, for ROUNDS rounds (--tables: one"
        " count)",
    )
    parser.add_argument(
        "--window", type=float, default=3.0, help="seconds of each turn with --interleave"
    )
    parser.add_argument(
        "--peer",
        action="store_true",
        help="with --interleave, boardgame.io's server and clients as a side of their own"
        " (Node.js; benchmarks/bgio_peer, installed with npm at the start)",
    )
    parser.add_argument(
        "--half-load",
        action="store_true",
        help="with --interleave, as many rounds again, each game's bots thinking so that its"
        " tables ask for half the moves a second it sustained: its p99 there",
    )
    parser.add_argument(
        "--engines",
        default="",
        help="with --interleave, a server per game on each of these engines (pure,compiled);"
        " default: one, on the engine `serve` picks by itself",
    )
    parser.add_argument(
        "--relays",
        type=int,
        default=0,
        help="relay processes of each node, holding the clients' sockets (see `serve`);"
        " they need --bus",
    )
    parser.add_argument(
        "--server-bots",
        default="",
        help="tables of one client seat and three of the server's bots of this level",
    )
    parser.add_argument(
        "--bot-workers", type=int, default=0, help="the server's bot processes (0: its default)"
    )
    parser.add_argument(
        "--bus",
        default="",
        help="a Redis URL: measure each setting without and with `serve --bus` on it",
    )
    parser.add_argument(
        "--metrics",
        action="store_true",
        help="measure each setting without and with the node's metrics (scraped every second)",
    )
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="server nodes, each with its relays; more than one needs --database-url and --bus",
    )
    parser.add_argument(
        "--database-url",
        default="",
        help="a PostgreSQL server's URL (a database is made there for each measurement);"
        " default: a SQLite file",
    )
    parser.add_argument("--ports", default="", help=argparse.SUPPRESS)
    parser.add_argument("--socket-ports", default="", help=argparse.SUPPRESS)
    parser.add_argument("--redis-pid", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--server-pids", default="", help=argparse.SUPPRESS)
    parser.add_argument("--report", default="", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.think is None:
        arguments.think = 0.0 if arguments.interleave else 0.14
    if arguments.client:
        import uvloop  # installed with uvicorn[standard]

        uvloop.install()
        gc.disable()  # the load's own pauses would count as latency; it lives a minute
        arguments.tables = arguments.tables[0]
        arguments.game = arguments.game[0]
        clients = run_turns if arguments.interleave else run_clients
        Path(arguments.report).write_text(json.dumps(asyncio.run(clients(arguments))))
        return
    if arguments.interleave:
        interleaved(parser, arguments)
        return
    if arguments.peer or arguments.half_load:
        parser.error("--peer and --half-load take their turns with --interleave ROUNDS")

    games = GAMES if "all" in arguments.game else tuple(arguments.game)
    print(f"relays: {arguments.relays}; bots think {arguments.think:g} s on average")
    print(spread_says(arguments, games))
    print(
        f"the per-socket rate limit is raised to {PEER_RATE:,.0f} messages a second for this run"
        f" (the server's default: {Settings.rate:g}; the people's and addresses' quotas grow with"
        " it), so that the peer's pings are not what it limits"
    )
    window = arguments.seconds / arguments.rounds
    print(
        f"the peer's pings and the moves alternate: {arguments.rounds} windows of {window:g} s"
        " each, pings then moves, on the same server and sockets"
    )
    if arguments.server_bots:
        workers = arguments.bot_workers or "the server's default"
        print(f"one client seat and three {arguments.server_bots} bots a table; workers: {workers}")
    if arguments.relays and not arguments.bus:
        parser.error("--relays needs --bus redis://…: relays talk to their node through it")
    if arguments.nodes > 1 and not (arguments.bus and arguments.database_url):
        parser.error("--nodes 2 or more needs --bus redis://… and --database-url postgresql://…")
    if arguments.bus:
        os.environ[PREFIX_VARIABLE] = f"benchmark-{os.getpid()}:"  # inherited by the servers
    print(
        (f"{'bus':<6} " if arguments.bus else "")
        + (f"{'metrics':<7} " if arguments.metrics else "")
        + f"{'nodes':>5} {'game':<9} {'tables':>6} {'sockets':>7} {'moves/s':>8} {'p50 ms':>7}"
        f" {'p95 ms':>7} {'p99 ms':>7} {'server cpu':>10} {'µs/move':>7} {'loop µs':>7}"
        f" {'relay cpu':>9}"
        + (f" {'redis cpu':>9}" if arguments.bus else "")
        + f" {'client cpu':>10}"
        f" {'pings/s':>8} {'moves/pings':>11} {'persisted':>9}"
        + (f" {'bot moves/s':>11} {'workers cpu':>11}" if arguments.server_bots else "")
    )
    side_by_side = arguments.bus and arguments.nodes == 1 and not arguments.relays
    buses = ["", arguments.bus] if side_by_side else [arguments.bus]
    kept = [False, True, True, False] if arguments.metrics else [False]
    measured: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
    for game, tables, bus, metrics in itertools.product(games, arguments.tables, buses, kept):
        arguments.game = game
        with (
            tempfile.TemporaryDirectory() as folder,
            database(arguments.database_url, Path(folder)) as url,
        ):
            path = Path(folder)
            settings: dict[str, Any] = (
                {"bot-workers": arguments.bot_workers} if arguments.bot_workers else {}
            )
            if bus:
                settings["bus"] = bus
            servers = [
                Server(
                    url,
                    path / f"node{node}.log",
                    rate=PEER_RATE,
                    **({"relays": arguments.relays} if bus else {}),
                    **({"metrics-port": free_port()} if metrics else {}),
                    **settings,
                )
                for node in range(arguments.nodes)
            ]
            try:
                for server in servers:
                    server.start()
                with scraping(servers):
                    moves = client_process(servers, tables, arguments)
            finally:
                for server in servers:
                    server.stop()
                if bus:
                    forget_redis_keys(bus)
            acked = {tuple(move) for move in moves["acked"]}
            persisted = acked <= logged_moves(url)
        print(
            (f"{'redis' if bus else 'local':<6} " if arguments.bus else "")
            + (f"{'on' if metrics else 'off':<7} " if arguments.metrics else "")
            + f"{arguments.nodes:>5} {game:<9} {tables:>6}"
            f" {(1 if arguments.server_bots else 4) * tables:>7}"
            f" {moves['per_second']:>8.0f}"
            f" {1000 * moves['p50']:>7.1f} {1000 * moves['p95']:>7.1f}"
            f" {1000 * moves['p99']:>7.1f}"
            f" {moves['hub_cpu']:>10.2f}"
            f" {per_move(moves['hub_cpu'], moves):>7.0f}"
            f" {per_move(moves['loop_cpu'], moves):>7.0f}"
            f" {moves['relay_cpu']:>9.2f}"
            + (f" {moves['redis_cpu']:>9.2f}" if arguments.bus else "")
            + f" {moves['client_cpu']:>10.2f}"
            f" {moves['pings_per_second']:>8.0f}"
            f" {moves['per_second'] / moves['pings_per_second']:>11.2f}"
            f" {'all' if persisted else 'NO':>9}"
            + (
                f" {moves['bot_moves']:>11.1f} {moves['workers_cpu']:>11.2f}"
                if arguments.server_bots
                else ""
            ),
            flush=True,
        )
        if not persisted:
            raise SystemExit("an acknowledged move is missing from the database")
        measured[metrics].append(moves)
        if arguments.metrics and len(measured[False]) == len(measured[True]) == 2:
            print_metrics_cost(measured[False], measured[True])
            measured = {False: [], True: []}


class PeerServer:
    """The peer's server: boardgame.io serving its Tricks game (``bgio_peer/server.js``)."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> PeerServer:
        environment = {**os.environ, "NODE_ENV": "production"}  # no log line a move
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [NODE, "server.js", str(self.port)],
                stdout=log, stderr=log, cwd=PEER_FOLDER, env=environment,
            )  # fmt: skip
        deadline = time.monotonic() + PEER_STARTING_SECONDS
        while "listening" not in self.log.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the peer's server did not start: {self.log.read_text()}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@dataclass
class Side:
    """One side of ``--interleave``: a game's server on an engine (or the peer's server), and
    its clients' process."""

    game: str
    engine: str
    """``pure`` or ``compiled``, or empty for the engine ``serve`` picks by itself; ``node``
    for the peer."""
    server: Server | PeerServer
    clients: subprocess.Popen[str] | None = None
    windows: list[dict[str, float]] = field(default_factory=list)
    """What each of its windows at capacity measured."""
    half: list[dict[str, float]] = field(default_factory=list)
    """What each of its windows at half its capacity measured (``--half-load``)."""
    persisted: bool | None = None
    """Whether every acknowledged move is in the database; ``None`` for the peer, which keeps
    its matches in memory."""

    def answer(self) -> str:
        """The clients' next line: ``ready``, or a window's figures."""
        assert self.clients is not None and self.clients.stdout is not None
        line = self.clients.stdout.readline()
        if not line:
            log = self.server.log.read_text()[-3000:]
            raise RuntimeError(f"the clients of {self.game} stopped: {self.clients.wait()}\n{log}")
        return line

    def measure(self, seconds: float, think: float = 0.0) -> dict[str, float]:
        """Let the clients play for ``seconds``, thinking ``think`` seconds on average before
        each move, the other sides holding still."""
        assert self.clients is not None and self.clients.stdin is not None
        self.clients.stdin.write(f"{seconds} {think}\n")
        self.clients.stdin.flush()
        measured = json.loads(self.answer())  # the peer's clients say null for not a number
        return {key: float("nan") if value is None else value for key, value in measured.items()}

    def half_think(self, tables: int) -> float:
        """The mean thinking time at which the tables ask for half the moves a second measured
        at capacity: a table asks for a move every thinking time (one seat acts at a time)."""
        return 2 * tables / median(self, "per_second")


def engine_said(server: Server) -> str:
    """The server's log line that says which engine it runs: the one after its address."""
    lines = server.log.read_text().splitlines()
    address = next(index for index, line in enumerate(lines) if server.url in line)
    return lines[address + 1].strip()


def interleave(arguments: argparse.Namespace, games: list[str], engines: list[str]) -> None:
    """Start a server and its clients for each game (on each engine), warmed, then measure them
    in turns of ``--window`` seconds, the others holding still, for ``--interleave`` rounds."""
    language = default_language()
    expected = {
        "pure": translate("cli.engine_pure_asked", language, variable=ENGINE_VARIABLE),
        "compiled": translate("cli.engine_compiled", language),
    }
    sides: list[Side] = []
    tables = arguments.tables[0]
    with tempfile.TemporaryDirectory() as folder:
        try:
            for game, engine in itertools.product(games, engines):
                path = Path(folder) / f"{game}-{engine or 'serve'}"
                path.mkdir()
                environment = engine_environment(engine) if engine else dict(os.environ)
                # one notice a line in the log, however long (Rich wraps at COLUMNS)
                environment["COLUMNS"] = "1000"
                server = Server(sqlite_url(path), path / "node.log", environment, rate=PEER_RATE)
                sides.append(Side(game, engine, server))
            if arguments.peer:
                sides.append(Side(PEER, "node", PeerServer(Path(folder) / "peer.log")))
            with ThreadPoolExecutor(len(sides)) as starting:  # they start while others import
                list(starting.map(lambda side: side.server.start(), sides))
            for side in sides:
                if isinstance(side.server, PeerServer):
                    continue
                said = engine_said(side.server)
                print(f"{side.game} server ({side.engine or 'the engine serve picks'}): {said}")
                if side.engine and said != expected[side.engine]:
                    raise SystemExit(f"{side.game}'s server does not run the {side.engine} engine")
            for side in sides:  # all warmed up together: no turn is measured before all are ready
                side.clients = subprocess.Popen(
                    clients_of(side, tables, arguments),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    cwd=PEER_FOLDER if isinstance(side.server, PeerServer) else None,
                )
            for side in sides:
                if side.answer().strip() != "ready":
                    raise RuntimeError(f"the clients of {side.game} did not get ready")
            for _ in range(arguments.interleave):
                for side in sides:
                    side.windows.append(side.measure(arguments.window, arguments.think))
            games_only = [side for side in sides if side.game != PEER]
            if arguments.half_load:
                # The peer takes no part in the rounds at half capacity: stopped, its sockets'
                # heartbeats and timers take nothing from the games' windows.
                for side in sides:
                    if side.game == PEER:
                        end_clients(side)
                        side.server.stop()
            for _ in range(arguments.interleave if arguments.half_load else 0):
                for side in games_only:
                    think = side.half_think(tables)
                    side.half.append({**side.measure(arguments.window, think), "think": think})
            for side in sides:
                end_clients(side)
        finally:
            for side in sides:
                if side.clients is not None and side.clients.poll() is None:
                    side.clients.kill()
                    side.clients.wait()
                side.server.stop()
    print_turns(sides, arguments.window, tables)
    if not all(side.persisted is not False for side in sides):
        raise SystemExit("an acknowledged move is missing from the database")


def end_clients(side: Side) -> None:
    """End a side's clients (their input closed), once, and read back its database: every
    move they saw acknowledged must be there (the peer keeps its matches in memory)."""
    assert side.clients is not None and side.clients.stdin is not None
    if side.clients.stdin.closed:
        return
    side.clients.stdin.close()
    if side.clients.wait() != 0:
        raise RuntimeError(f"the clients of {side.game} failed")
    if isinstance(side.server, Server):
        report = json.loads(side.server.log.with_name("clients.json").read_text())
        acked = {tuple(move) for move in report["acked"]}
        side.persisted = acked <= logged_moves(side.server.database_url)


def clients_of(side: Side, tables: int, arguments: argparse.Namespace) -> list[str]:
    """The command of a side's clients' process."""
    if isinstance(side.server, PeerServer):
        assert side.server.process is not None
        return [
            NODE, "clients.js", str(side.server.port), str(tables), str(arguments.warmup),
            str(side.server.process.pid), str(int(arguments.spread)),
        ]  # fmt: skip
    arguments.game = side.game
    return client_command([side.server], tables, arguments)


def install_peer() -> None:
    """Install the peer's packages from the npm registry (``npm install``: quick once done)."""
    if NODE is None or NPM is None:
        raise SystemExit("--peer needs Node.js: node and npm on the PATH")
    command = [NPM, "install", "--no-audit", "--no-fund", "--loglevel=error"]
    done = subprocess.run(command, cwd=PEER_FOLDER, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"npm install in {PEER_FOLDER} failed: {done.stderr[-2000:]}")


def spread(values: list[float]) -> str:
    """The median of ``values``, and their range."""
    return f"{statistics.median(values):.2f} [{min(values):.2f}–{max(values):.2f}]"


def print_turns(sides: list[Side], window: float, tables: int) -> None:
    """Each side's moves a second window by window, and its ratios to the first game's side on
    the same engine, to the peer's (``--peer``) and, on the compiled engine, to the same game's
    pure side, round by round: their median over the rounds, and their range; with
    ``--half-load``, the thinking time that asks for half the capacity and what came of it."""
    first = {side.engine: side for side in reversed(sides) if side.game != PEER}
    pure = {side.game: side for side in sides if side.engine == "pure"}
    peer = next((side for side in sides if side.game == PEER), None)
    half = any(side.half for side in sides)

    def ratios(side: Side, other: Side) -> list[float]:
        return [
            mine["per_second"] / theirs["per_second"]
            for mine, theirs in zip(side.windows, other.windows, strict=True)
        ]

    reference = sides[0].game
    both = len(first) > 1 and "pure" in first
    print(
        f"moves/s in windows of {window:g} s, taking turns; ratios: the median of the rounds'"
        f" [min–max]"
    )
    if half:
        print(
            "at half capacity: each game's bots think so that its tables ask for half the moves"
            " a second it sustained above (a table asks for a move every thinking time), for as"
            " many rounds; their median moves/s, and p99 ms (the median of the rounds' and the"
            " worst)"
        )
    print(
        f"{'game':<12} {'engine':<8} {'moves/s by window':<34} {'median':>7} {'p50 ms':>7}"
        f" {'p99 ms':>7} {'µs/move':>7} {f'/{reference}':>18}"
        + (f" {f'/{PEER}':>18}" if peer else "")
        + (f" {'compiled/pure':>18}" if both else "")
        + (f" {'half: think ms':>14} {'moves/s':>7} {'p99 ms':>7} {'worst':>6}" if half else "")
        + f" {'persisted':>9}"
    )
    for side in sides:
        rates = " ".join(f"{window['per_second']:.0f}" for window in side.windows)
        to_pure = (
            spread(ratios(side, pure[side.game])) if both and side.engine == "compiled" else "–"
        )
        to_reference = first.get(side.engine, sides[0])
        at_half = (
            f" {1000 * side.half[0]['think']:>14.0f}"
            f" {statistics.median(run['per_second'] for run in side.half):>7.0f}"
            f" {1000 * statistics.median(run['p99'] for run in side.half):>7.1f}"
            f" {1000 * max(run['p99'] for run in side.half):>6.1f}"
            if side.half
            else f" {'–':>14} {'–':>7} {'–':>7} {'–':>6}"
        )
        kept = {True: "all", False: "NO", None: "memory"}[side.persisted]
        print(
            f"{side.game:<12} {side.engine or 'serve':<8} {rates:<34}"
            f" {median(side, 'per_second'):>7.0f} {1000 * median(side, 'p50'):>7.1f}"
            f" {1000 * median(side, 'p99'):>7.1f} {median(side, 'us_per_move'):>7.0f}"
            f" {spread(ratios(side, to_reference)):>18}"
            + (f" {spread(ratios(side, peer)):>18}" if peer else "")
            + (f" {to_pure:>18}" if both else "")
            + (at_half if half else "")
            + f" {kept:>9}",
            flush=True,
        )
    ended = (
        f"{side.game} {side.engine or 'serve'}: {sum(w['games_ended'] for w in side.windows):.0f}"
        for side in sides
        if side.game != PEER
    )
    print(
        "games ended in the measured windows (a shorter game's tables end and start again more"
        " often): " + ", ".join(ended),
        flush=True,
    )
    if half:
        print("at half capacity, round by round: p99 ms (games that ended in the round)")
        for side in sides:
            if side.half:
                rounds = "  ".join(
                    f"{1000 * run['p99']:>6.1f} ({run['games_ended']:.0f})" for run in side.half
                )
                print(f"{side.game:<12} {side.engine or 'serve':<8} {rounds}", flush=True)


def median(side: Side, figure: str) -> float:
    """The median over a side's windows of one of their figures."""
    return statistics.median(window[figure] for window in side.windows)


def interleaved(parser: argparse.ArgumentParser, arguments: argparse.Namespace) -> None:
    """``--interleave``: check its arguments, say what is measured, and measure."""
    engines = [kind for kind in arguments.engines.split(",") if kind] or [""]
    if any(kind not in (*KINDS, "") for kind in engines):
        parser.error(f"--engines takes {','.join(KINDS)}, or one of them")
    missing = engines_to_measure()[1]
    if "compiled" in engines and missing is not None:
        raise SystemExit(f"the compiled engine cannot be measured: its build is {missing}")
    if len(arguments.tables) != 1:
        parser.error("--interleave measures one count of tables (--tables N)")
    if any(
        (arguments.bus, arguments.relays, arguments.nodes > 1, arguments.metrics,
         arguments.server_bots, arguments.database_url)
    ):  # fmt: skip
        parser.error(
            "--interleave measures one node on a SQLite file per side, with client bots alone:"
            " without --bus, --relays, --nodes, --metrics, --server-bots or --database-url"
        )
    games = [game for game in TURNS if "all" in arguments.game or game in arguments.game]
    print(f"command: {shlex.join(['benchmarks/server_load.py', *sys.argv[1:]])}")
    print(
        f"{arguments.tables[0]} tables of each game, bots thinking {arguments.think:g} s on"
        f" average; {arguments.interleave} rounds of a {arguments.window:g} s window for each"
        f" game in turn ({', '.join(games)}), after a warm-up of {arguments.warmup:g} s each;"
        f" the per-socket rate limit is raised to {PEER_RATE:,.0f} messages a second"
    )
    print(spread_says(arguments, games))
    if arguments.peer:
        install_peer()
        print(PEER_SAYS.format(tables=arguments.tables[0]))
    interleave(arguments, games, engines)


def print_metrics_cost(off: list[dict[str, Any]], on: list[dict[str, Any]]) -> None:
    """What keeping and serving the metrics cost, from the measurements without and with."""

    def mean(runs: list[dict[str, Any]], value: Callable[[dict[str, Any]], float]) -> float:
        return sum(value(run) for run in runs) / len(runs)

    def moves(run: dict[str, Any]) -> float:
        return float(run["per_second"])

    def cpu_per_move(run: dict[str, Any]) -> float:
        return per_move(run["hub_cpu"], run)

    capacity = mean(on, moves) / mean(off, moves)
    cpu = mean(on, cpu_per_move) / mean(off, cpu_per_move)
    print(
        f"metrics on/off: moves/s ×{capacity:.3f} (cost {100 * (1 - capacity):.1f}%),"
        f" server µs/move ×{cpu:.3f} (moves a core sustains: cost {100 * (1 - 1 / cpu):.1f}%)",
        flush=True,
    )


if __name__ == "__main__":
    main()
