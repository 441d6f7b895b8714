"""What abuse costs everybody else: floods of messages, a burst of guests, a huge body, replays.

A fresh ``tapisvert serve`` (SQLite file, default settings: one process) is started; all
clients come from 127.0.0.1, and the server trusts ``X-Forwarded-For`` from its own machine
(uvicorn's proxy headers), so each client names the address it stands for: the ``--pingers``
others ping from 192.0.2.1, 192.0.2.2…, each from its own, and each abuser has its own too
(an address barred for flooding stays barred a while, and must not be the others'). Then:

1. **Flood.** ``--pingers`` clients (aiohttp, in this process) each send a ``ping``, wait for
   its answer and send the next after ``--pause`` seconds, for ``--seconds`` seconds: the
   peer, side by side. Then the same again while one more client (198.51.100.2), in another
   process, sends malformed 8 KB messages over a raw socket as fast as the kernel takes them
   and never reads what comes back (the worst client: the server's answers pile up unread),
   reconnecting as soon as it is cut off. The report gives the others' ping latencies in
   both runs and their ratio, and how many times the flooder was cut off.
2. **Flood from many sockets of one address.** The same two runs of the others' pings, the
   second while ``--flood-guests`` guests × ``--flood-sockets`` sockets (5 × 8 = 40), all of
   one address (198.51.100.1) and in another process, each greeted with its guest's token,
   send valid ``ping`` messages (each with an id of its own) as fast as they can while
   reading the answers, reconnecting 10 ms after being refused or cut off. The report gives
   the others' latencies alone and during the flood, with their ratio, the others' p99 beside
   its target (≤ 50 ms: the server bounds what one address may do across sockets and
   names), the connections greeted, refused (by the refusal's code) and cut off, and the
   flood's messages sent, got through (answered with anything but an error) and refused.
3. **A locked database.** Another process holds SQLite's exclusive lock for 8 s while the
   clients ping and one request that must write waits on the lock: the server's event loop
   must not wait with it.
4. **Memory.** The resident memory of the server before and after
   ``--guests`` guest requests (from one address: most are refused by the quota) and one
   64 MiB POST body, and again after a pause, to see whether it is given back.
5. **The replay race.** A Wizard game (4 seats: one client, 3 easy bots) is played to the end
   by a client playing random legal moves. Then, while a second Wizard game is played the
   same way (the client pausing ``--think`` seconds before each move: a person's pace, within
   the server's rate) and the others ping, ``--replayers`` clients in another process ask for
   the finished game's replay (``GET /api/tables/<id>/replay``) in a loop for ``--seconds``,
   half of them taking it compressed, half not (the server then decompresses it for each).
   The server keeps its default per-address replay quota (30 a minute): each replayer has an
   address of its own (203.0.113.1, 203.0.113.2…) rather than the server a large ``--rate``,
   which would lift every other quota and each socket's rate with it, so that the live game
   and the others would no longer run under the settings the other scenarios measure; the
   replays that pass race one another and the live game, and the refused ones show what
   refusals cost. The report gives the answers by status (200; 429: the quota; 503: too many
   replays being built; 500 must never appear), whether the live game finished with every
   move acknowledged and no error seen by its player, the others' pings meanwhile, and the
   resident memory of the server (and of its worker processes, where replays are built)
   before, after, and 5 s after.

``--only`` runs some of them (by name: flood, flood-sockets, locked, memory, replays).

Run: ``.venv/bin/python benchmarks/abuse.py [--seconds 10] [--pingers 20] [--only replays]``
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import multiprocessing
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_support import (  # noqa: E402
    Player,
    Server,
    children,
    masked_frame,
    raw_websocket,
    set_up_table,
    sqlite_url,
)

GARBAGE = b"x" * 8000
SCENARIOS = ("flood", "flood-sockets", "locked", "memory", "replays")
TARGET_P99_MS = 50.0
"""The others' ping p99 the server must keep while one address floods from many sockets."""
FLOODER = "198.51.100.1"
"""The address of the flood from many sockets."""
MALFORMED_FLOODER = "198.51.100.2"
"""The address of the client flooding malformed messages."""
PLAYER = "203.0.113.200"
"""The address the live game's guest is created from."""
WS_TIMEOUT = aiohttp.ClientWSTimeout(ws_receive=None, ws_close=1.0)


def other(index: int) -> str:
    """The address of the ``index``-th pinger, one of the others."""
    return f"192.0.2.{index % 250 + 1}"


def replayer(index: int) -> str:
    """The address of the ``index``-th replayer."""
    return f"203.0.113.{index % 150 + 1}"


def guest(server: Server, name: str, address: str) -> str:
    """A new guest's token, asked for from ``address``."""
    answer = server.http.post(
        f"{server.url}/api/guest", json={"name": name}, headers={"X-Forwarded-For": address}
    )
    answer.raise_for_status()
    return str(answer.json()["token"])


def flood(port: int, token: str, until: float, cuts: Any) -> None:
    """Greet, then send garbage without ever reading; start again when cut off."""
    garbage = masked_frame(GARBAGE) * 16
    while time.time() < until:
        try:
            with raw_websocket(port, token, headers={"X-Forwarded-For": MALFORMED_FLOODER}) as raw:
                raw.settimeout(max(0.1, until - time.time()))
                while time.time() < until:
                    raw.sendall(garbage)
        except OSError:
            with cuts.get_lock():
                cuts.value += 1
            time.sleep(0.01)


@dataclass
class FloodTally:
    """What the sockets of the flood from one address did, and what came of it."""

    greeted: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    """Connections that got no ``welcome``, by the refusal's code."""
    cut: int = 0
    """Greeted connections the server closed before the end."""
    sent: int = 0
    through: int = 0
    """Messages answered with anything but an error."""
    errors: Counter[str] = field(default_factory=Counter)
    """Messages answered with an error, by its code."""
    notices: Counter[str] = field(default_factory=Counter)
    """Errors that answer no message (a socket cut for flooding, an address barred)."""


async def send_pings(link: aiohttp.ClientWebSocketResponse, tally: FloodTally) -> None:
    """Valid pings, each with an id of its own, as fast as the socket takes them."""
    number = 0
    while True:
        for _ in range(16):
            await link.send_str(f'{{"type":"ping","id":"f{number}"}}')
            number += 1
            tally.sent += 1
        await asyncio.sleep(0)  # the writes may never block: let the other sockets go


async def flood_link(link: aiohttp.ClientWebSocketResponse, tally: FloodTally) -> None:
    """Flood a greeted socket and count its answers, until the server closes it."""
    sender = asyncio.create_task(send_pings(link, tally))
    try:
        async for message in link:
            if message.type is not aiohttp.WSMsgType.TEXT:
                continue
            answer = json.loads(message.data)
            ours = str(answer.get("id") or "").startswith("f")
            if answer.get("type") == "error":
                (tally.errors if ours else tally.notices)[str(answer.get("code"))] += 1
            elif ours:
                tally.through += 1
    finally:
        sender.cancel()
        await asyncio.gather(sender, return_exceptions=True)


async def flood_socket(
    session: aiohttp.ClientSession, port: int, token: str, until: float, tally: FloodTally
) -> None:
    """One socket of the flood, open again 10 ms after each refusal or cut, until ``until``."""
    headers = {"X-Forwarded-For": FLOODER}
    hello = json.dumps({"type": "hello", "version": 1, "token": token})
    while time.time() < until:
        try:
            async with asyncio.timeout(until - time.time()):
                async with session.ws_connect(
                    f"ws://127.0.0.1:{port}/ws", headers=headers, max_msg_size=0, timeout=WS_TIMEOUT
                ) as link:
                    await link.send_str(hello)
                    first = await link.receive()
                    greeting = (
                        json.loads(first.data) if first.type is aiohttp.WSMsgType.TEXT else {}
                    )
                    if greeting.get("type") != "welcome":
                        tally.refused[str(greeting.get("code", "closed"))] += 1
                    else:
                        tally.greeted += 1
                        await flood_link(link, tally)
                        tally.cut += 1
        except TimeoutError:  # the time is up
            return
        except aiohttp.WSServerHandshakeError as error:
            tally.refused[f"http {error.status}"] += 1
        except (aiohttp.ClientError, OSError) as error:
            tally.refused[type(error).__name__] += 1
        await asyncio.sleep(0.01)


def flood_sockets(port: int, tokens: list[str], sockets: int, until: float) -> FloodTally:
    """In a process of its own: ``sockets`` sockets for each of ``tokens``, flooding."""

    async def run() -> FloodTally:
        tally = FloodTally()
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as session:
            await asyncio.gather(
                *(
                    flood_socket(session, port, token, until, tally)
                    for token in tokens
                    for _ in range(sockets)
                )
            )
        return tally

    return asyncio.run(run())


def hold_lock(database: Path, seconds: float) -> None:
    """Hold SQLite's exclusive lock on ``database``, as another program might."""
    with sqlite3.connect(database, isolation_level=None) as connection:
        connection.execute("BEGIN EXCLUSIVE")
        time.sleep(seconds)
        connection.execute("ROLLBACK")


async def pings(
    port: int,
    tokens: list[str],
    seconds: float,
    pause: float,
    addresses: list[str] | None = None,
) -> list[float]:
    """Every ping's round trip, in milliseconds, from each of ``tokens``' sockets (the
    ``index``-th from ``addresses[index]``, if given)."""
    latencies: list[float] = []
    async with aiohttp.ClientSession() as session:

        async def pinger(token: str, address: str | None) -> None:
            headers = {"X-Forwarded-For": address} if address else None
            async with session.ws_connect(f"ws://127.0.0.1:{port}/ws", headers=headers) as link:
                await link.send_str(json.dumps({"type": "hello", "version": 1, "token": token}))
                assert json.loads((await link.receive()).data)["type"] == "welcome"
                until = time.perf_counter() + seconds
                number = 0
                while time.perf_counter() < until:
                    started = time.perf_counter()
                    await link.send_str(json.dumps({"type": "ping", "id": str(number)}))
                    answer = json.loads((await link.receive()).data)
                    assert answer["type"] == "ack", answer
                    latencies.append((time.perf_counter() - started) * 1000)
                    number += 1
                    await asyncio.sleep(pause)

        chosen = addresses or [None] * len(tokens)
        await asyncio.gather(*(pinger(token, chosen[index]) for index, token in enumerate(tokens)))
    return latencies


@dataclass
class Thinker(Player):
    """A player that pauses ``think`` seconds before each move: a person's pace."""

    think: float = 0.05

    async def _send_move(
        self,
        link: Any,
        pending: dict[str, tuple[int, int, int, str]],
        table: int,
        position: int,
        seat: int,
        action: str,
    ) -> None:
        await asyncio.sleep(self.think)
        await super()._send_move(link, pending, table, position, seat, action)


def replay_loops(port: int, table: int, replayers: int, until: float) -> dict[str, Any]:
    """In a process of its own: ``replayers`` clients asking for ``table``'s replay in a
    loop until ``until``, the even ones taking it compressed, the odd ones not."""

    async def run() -> dict[str, Any]:
        statuses: Counter[int] = Counter()
        failures: Counter[str] = Counter()
        received = [0]
        url = f"http://127.0.0.1:{port}/api/tables/{table}/replay"
        connector = aiohttp.TCPConnector(limit=0)
        timeout = aiohttp.ClientTimeout(total=60)
        async with aiohttp.ClientSession(
            connector=connector, timeout=timeout, auto_decompress=False
        ) as session:

            async def loop(index: int) -> None:
                headers = {"X-Forwarded-For": replayer(index)}
                headers["Accept-Encoding"] = "identity" if index % 2 else "gzip"
                while time.time() < until:
                    try:
                        async with session.get(url, headers=headers) as answer:
                            received[0] += len(await answer.read())
                            statuses[answer.status] += 1
                    except (aiohttp.ClientError, OSError, TimeoutError) as error:
                        failures[type(error).__name__] += 1
                        await asyncio.sleep(0.01)

            await asyncio.gather(*(loop(index) for index in range(replayers)))
        return {"statuses": dict(statuses), "failures": dict(failures), "bytes": received[0]}

    return asyncio.run(run())


def resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def workers_mib(pid: int) -> float:
    """The resident memory of ``pid``'s child processes together (0 when they are gone)."""
    total = 0.0
    for child in children(pid):
        with contextlib.suppress(OSError, RuntimeError):  # gone meanwhile
            total += resident_mib(child)
    return total


def summary(latencies: list[float]) -> str:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"{len(ordered):>6} pings  median {statistics.median(ordered):7.1f} ms  "
        f"p99 {p99:7.1f} ms  max {ordered[-1]:7.1f} ms"
    )


def p99(latencies: list[float]) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def by_count(counts: dict[Any, int]) -> str:
    """``counts`` as ``name n, name n`` (most first), or ``none``."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    return ", ".join(f"{name} {count:,}" for name, count in ordered) or "none"


@dataclass
class Bench:
    """The server under test, the others' tokens and addresses, and the settings."""

    server: Server
    folder: Path
    arguments: argparse.Namespace
    tokens: list[str]
    addresses: list[str]

    @property
    def hub(self) -> int:
        assert self.server.process is not None
        return self.server.process.pid

    def others_ping(self, seconds: float) -> list[float]:
        arguments = self.arguments
        return asyncio.run(
            pings(self.server.port, self.tokens, seconds, arguments.pause, self.addresses)
        )


def malformed_flood(bench: Bench) -> None:
    arguments, server = bench.arguments, bench.server
    flooder = guest(server, "flooder", MALFORMED_FLOODER)
    print(f"== flood: {arguments.pingers} clients ping, {arguments.seconds:g} s a run")
    quiet = bench.others_ping(arguments.seconds)
    print(f"peer, no flood   {summary(quiet)}")
    quiet_memory = resident_mib(bench.hub)
    cuts = multiprocessing.Value("i", 0)
    until = time.time() + arguments.seconds + 1
    attacker = multiprocessing.Process(target=flood, args=(server.port, flooder, until, cuts))
    attacker.start()
    time.sleep(0.5)
    loud = bench.others_ping(arguments.seconds)
    attacker.join()
    print(f"with the flood   {summary(loud)}")
    print(f"p99 ratio (flood / peer): {p99(loud) / p99(quiet):.2f}")
    print(f"the flooder was cut off {cuts.value} times")
    flooded_memory = resident_mib(bench.hub)
    print(
        f"server  before the flood {quiet_memory:6.1f} MiB  after {flooded_memory:6.1f} MiB"
        f"  ({flooded_memory - quiet_memory:+.1f})"
    )


def socket_flood(bench: Bench) -> None:
    arguments, server = bench.arguments, bench.server
    guests, each = arguments.flood_guests, arguments.flood_sockets
    flooders = [guest(server, f"swarm{index}", FLOODER) for index in range(guests)]
    print(
        f"== flood from one address: {guests} guests x {each} sockets = {guests * each} sockets,"
        f" {arguments.pingers} others ping, {arguments.seconds:g} s a run"
    )
    quiet = bench.others_ping(arguments.seconds)
    print(f"others alone       {summary(quiet)}")
    until = time.time() + arguments.seconds + 1
    with concurrent.futures.ProcessPoolExecutor(1) as attacker:
        flooding = attacker.submit(flood_sockets, server.port, flooders, each, until)
        time.sleep(0.5)
        loud = bench.others_ping(arguments.seconds)
        tally = flooding.result()
    print(f"during the flood   {summary(loud)}")
    print(f"p99 ratio (flood / alone): {p99(loud) / p99(quiet):.2f}")
    verdict = "pass" if p99(loud) <= TARGET_P99_MS else "fail"
    print(
        f"target: others' p99 <= {TARGET_P99_MS:g} ms during the flood;"
        f" measured {p99(loud):.1f} ms: {verdict}"
    )
    refused = sum(tally.refused.values())
    print(
        f"flood connections: {tally.greeted + refused:,} opened, {tally.greeted:,} greeted,"
        f" {tally.cut:,} of them cut off; {refused:,} refused ({by_count(tally.refused)})"
    )
    errors = sum(tally.errors.values())
    unanswered = tally.sent - tally.through - errors
    print(
        f"flood messages: {tally.sent:,} sent, {tally.through:,} got through,"
        f" {errors:,} refused ({by_count(tally.errors)}), {unanswered:,} never answered"
        f" (their socket cut or no longer read); notices: {by_count(tally.notices)}"
    )


def locked_database(bench: Bench) -> None:
    server = bench.server
    writer_token = guest(server, "writer", "198.51.100.3")
    print("== the database locked by another process for 8 s")
    database = bench.folder / "tapisvert.sqlite3"
    locker = multiprocessing.Process(target=hold_lock, args=(database, 8.0))
    locker.start()
    time.sleep(0.5)
    with concurrent.futures.ThreadPoolExecutor(1) as writer:
        waiting = writer.submit(  # a request that must write, waiting on the lock
            server.call, writer_token, "POST", "/api/tables", game="luz", players=3
        )
        locked = bench.others_ping(7.0)
        answer = waiting.result()
    locker.join()
    print(f"while locked     {summary(locked)}")
    print(
        f"the write waiting on the lock: {answer.status_code} {answer.json().get('code', 'done')}"
    )


def memory(bench: Bench) -> None:
    arguments, server = bench.arguments, bench.server
    print(f"== memory: {arguments.guests} guest requests and a 64 MiB body")
    before = resident_mib(bench.hub)
    statuses: dict[int, int] = {}
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for index in range(arguments.guests):
            answer = http.post("/api/guest", json={"name": f"burst{index}"})
            statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1
        try:
            huge = http.post("/api/guest", content=b"{" + b" " * (64 << 20) + b"}")
            statuses[huge.status_code] = statuses.get(huge.status_code, 0) + 1
        except httpx.HTTPError as error:
            print(f"the 64 MiB body: {type(error).__name__} (the server hung up)")
    after = resident_mib(bench.hub)
    time.sleep(5)
    later = resident_mib(bench.hub)
    print(f"answers by status: {dict(sorted(statuses.items()))}")
    print(
        f"server  before {before:6.1f} MiB  after {after:6.1f} MiB"
        f"  ({after - before:+.1f})  5 s later {later:6.1f} MiB  ({later - before:+.1f})"
    )


def replay_race(bench: Bench) -> None:
    arguments, server = bench.arguments, bench.server
    print(
        f"== replays: {arguments.replayers} clients ask for a finished game's replay for"
        f" {arguments.seconds:g} s while a Wizard game is played and {arguments.pingers}"
        " others ping"
    )
    token = guest(server, "player", PLAYER)
    finished = set_up_table(server, [token], "wizard", 4)
    started = time.perf_counter()
    asyncio.run(asyncio.wait_for(Player(server, token, seed=1).play({finished}), 300))
    print(f"game {finished} played to the end in {time.perf_counter() - started:.1f} s")
    live = set_up_table(server, [token], "wizard", 4)
    player = Thinker(server, token, seed=2, think=arguments.think)
    before, workers_before = resident_mib(bench.hub), workers_mib(bench.hub)

    async def play_and_ping() -> list[float]:
        game = asyncio.ensure_future(asyncio.wait_for(player.play({live}), 300))
        latencies = await pings(
            server.port, bench.tokens, arguments.seconds, arguments.pause, bench.addresses
        )
        with contextlib.suppress(TimeoutError):  # reported below: the game did not finish
            await game
        return latencies

    until = time.time() + arguments.seconds
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(1) as replayers:
        asking = replayers.submit(replay_loops, server.port, finished, arguments.replayers, until)
        latencies = asyncio.run(play_and_ping())
        replays = asking.result()
    elapsed = time.perf_counter() - started
    after, workers_after = resident_mib(bench.hub), workers_mib(bench.hub)
    time.sleep(5)
    later, workers_later = resident_mib(bench.hub), workers_mib(bench.hub)

    statuses: dict[int, int] = replays["statuses"]
    print(
        f"replay answers by status: {dict(sorted(statuses.items()))}"
        f"  (500: {statuses.get(500, 0)})  failed requests: {by_count(replays['failures'])}"
    )
    print(f"replay bytes received: {replays['bytes'] / 2**20:,.1f} MiB")
    done = live in player.finished
    acknowledged = len(player.acked) == len(player.requests)
    errors = Counter(str(error.get("code")) for error in player.errors)
    print(
        f"the live game {live}: {'finished' if done else 'NOT finished'} in {elapsed:.1f} s;"
        f" {len(player.acked)} of {len(player.requests)} moves acknowledged"
        f" ({'all' if acknowledged else 'not all'}); errors seen: {by_count(errors)}"
    )
    print(f"others meanwhile   {summary(latencies)}")
    print(
        f"server  before {before:6.1f} MiB  after {after:6.1f} MiB  ({after - before:+.1f})"
        f"  5 s later {later:6.1f} MiB  ({later - before:+.1f})"
    )
    print(
        f"workers before {workers_before:6.1f} MiB  after {workers_after:6.1f} MiB"
        f"  ({workers_after - workers_before:+.1f})  5 s later {workers_later:6.1f} MiB"
        f"  ({workers_later - workers_before:+.1f})"
    )


RUNS = {
    "flood": malformed_flood,
    "flood-sockets": socket_flood,
    "locked": locked_database,
    "memory": memory,
    "replays": replay_race,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pingers", type=int, default=20)
    parser.add_argument("--pause", type=float, default=0.05)
    parser.add_argument("--guests", type=int, default=2000)
    parser.add_argument("--flood-guests", type=int, default=5)
    parser.add_argument("--flood-sockets", type=int, default=8, help="sockets per flood guest")
    parser.add_argument("--replayers", type=int, default=6)
    parser.add_argument(
        "--think", type=float, default=0.05, help="the live game's pause before each move"
    )
    parser.add_argument(
        "--only", nargs="+", choices=SCENARIOS, default=list(SCENARIOS), metavar="SCENARIO"
    )
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        server = Server(sqlite_url(folder), folder / "server.log").start()
        try:
            addresses = [other(index) for index in range(arguments.pingers)]
            tokens = [
                guest(server, f"pinger{index}", address) for index, address in enumerate(addresses)
            ]
            bench = Bench(server, folder, arguments, tokens, addresses)
            for scenario in SCENARIOS:
                if scenario in arguments.only:
                    RUNS[scenario](bench)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
