"""What abuse costs everybody else: a flood of malformed messages, a burst of guests, a huge body.

A fresh ``tapisvert serve`` (SQLite file, default settings: one process) is started. Then:

1. **Flood.** ``--pingers`` clients (aiohttp, in this process) each send a ``ping``, wait for
   its answer and send the next after ``--pause`` seconds, for ``--seconds`` seconds: the
   peer, side by side. Then the same again while one more client, in another process, sends
   malformed 8 KB messages over a raw socket as fast as the kernel takes them and never reads
   what comes back (the worst client: the server's answers pile up unread), reconnecting as
   soon as it is cut off. The report gives the others' ping latencies in both runs and their
   ratio, and how many times the flooder was cut off.
2. **A locked database.** Another process holds SQLite's exclusive lock for 8 s while the
   clients ping and one request that must write waits on the lock: the server's event loop
   must not wait with it.
3. **Memory.** The resident memory of the server before and after
   ``--guests`` guest requests (from one address: most are refused by the quota) and one
   64 MiB POST body, and again after a pause, to see whether it is given back.

Run: ``.venv/bin/python benchmarks/abuse.py [--seconds 10] [--pingers 20]``
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from server_support import Server, masked_frame, raw_websocket, sqlite_url  # noqa: E402

GARBAGE = b"x" * 8000


def flood(port: int, token: str, until: float, cuts: Any) -> None:
    """Greet, then send garbage without ever reading; start again when cut off."""
    garbage = masked_frame(GARBAGE) * 16
    while time.time() < until:
        try:
            with raw_websocket(port, token) as raw:
                raw.settimeout(max(0.1, until - time.time()))
                while time.time() < until:
                    raw.sendall(garbage)
        except OSError:
            with cuts.get_lock():
                cuts.value += 1
            time.sleep(0.01)


def hold_lock(database: Path, seconds: float) -> None:
    """Hold SQLite's exclusive lock on ``database``, as another program might."""
    with sqlite3.connect(database, isolation_level=None) as connection:
        connection.execute("BEGIN EXCLUSIVE")
        time.sleep(seconds)
        connection.execute("ROLLBACK")


async def pings(port: int, tokens: list[str], seconds: float, pause: float) -> list[float]:
    """Every ping's round trip, in milliseconds, from each of ``tokens``' sockets."""
    latencies: list[float] = []
    async with aiohttp.ClientSession() as session:

        async def pinger(token: str) -> None:
            async with session.ws_connect(f"ws://127.0.0.1:{port}/ws") as link:
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

        await asyncio.gather(*(pinger(token) for token in tokens))
    return latencies


def resident_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--pingers", type=int, default=20)
    parser.add_argument("--pause", type=float, default=0.05)
    parser.add_argument("--guests", type=int, default=2000)
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        server = Server(sqlite_url(Path(folder)), Path(folder) / "server.log").start()
        try:
            assert server.process is not None
            hub = server.process.pid
            tokens = [server.guest(f"pinger{index}") for index in range(arguments.pingers)]
            flooder = server.guest("flooder")

            print(f"== flood: {arguments.pingers} clients ping, {arguments.seconds:g} s a run")
            quiet = asyncio.run(pings(server.port, tokens, arguments.seconds, arguments.pause))
            print(f"peer, no flood   {summary(quiet)}")
            quiet_memory = resident_mib(hub)
            cuts = multiprocessing.Value("i", 0)
            until = time.time() + arguments.seconds + 1
            attacker = multiprocessing.Process(
                target=flood, args=(server.port, flooder, until, cuts)
            )
            attacker.start()
            time.sleep(0.5)
            loud = asyncio.run(pings(server.port, tokens, arguments.seconds, arguments.pause))
            attacker.join()
            print(f"with the flood   {summary(loud)}")
            print(f"p99 ratio (flood / peer): {p99(loud) / p99(quiet):.2f}")
            print(f"the flooder was cut off {cuts.value} times")
            flooded_memory = resident_mib(hub)
            print(
                f"server  before the flood {quiet_memory:6.1f} MiB  after {flooded_memory:6.1f} MiB"
                f"  ({flooded_memory - quiet_memory:+.1f})"
            )

            print("== the database locked by another process for 8 s")
            database = Path(folder) / "tapisvert.sqlite3"
            locker = multiprocessing.Process(target=hold_lock, args=(database, 8.0))
            locker.start()
            time.sleep(0.5)
            with concurrent.futures.ThreadPoolExecutor(1) as writer:
                waiting = writer.submit(  # a request that must write, waiting on the lock
                    server.call, flooder, "POST", "/api/tables", game="luz", players=3
                )
                locked = asyncio.run(pings(server.port, tokens, 7.0, arguments.pause))
                answer = waiting.result()
            locker.join()
            print(f"while locked     {summary(locked)}")
            print(f"the write waiting on the lock: {answer.status_code} {answer.json()['code']}")

            print(f"== memory: {arguments.guests} guest requests and a 64 MiB body")
            before = resident_mib(hub)
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
            after = resident_mib(hub)
            time.sleep(5)
            later = resident_mib(hub)
            print(f"answers by status: {dict(sorted(statuses.items()))}")
            print(
                f"server  before {before:6.1f} MiB  after {after:6.1f} MiB"
                f"  ({after - before:+.1f})  5 s later {later:6.1f} MiB  ({later - before:+.1f})"
            )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
