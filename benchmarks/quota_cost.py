"""What counting quotas costs the server, side by side with the ``limits`` library's storage.

``--people`` people each hold the keys a server keeps for them (a connection counted over a
minute, three tables over an hour, all from one address's guests); then, for ``--seconds``
seconds, ``--rate`` chat lines a second, from ``--talkers`` of them taken in turn, are
counted against the chat quota (20 lines in 10 seconds: talkers beyond it are refused),
paced as they would come. Measured: the CPU time
of the whole process (every thread) over that window, per second, for the server's own
moving windows (``tapisvert.server.quotas.Quotas``) and for ``limits``' moving windows in
its memory storage, whose expiry thread walks every key every 10 ms while hits come in.
Both count the same hits at the same pace; the ``refused`` column shows they agree.

Run: ``.venv/bin/python benchmarks/quota_cost.py [--people 1000] [--rate 50]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from tapisvert.server.errors import ServerError
from tapisvert.server.quotas import Quotas, QuotaSettings

SETTINGS = QuotaSettings(guests="60000/minute", connections="30000/minute", tables="30000/hour")
"""Room for every person's set-up; chat keeps its real quota."""
QUOTAS = ("connections", "tables", "chat", "guests")


def ours() -> Callable[[str, str], bool]:
    quotas = Quotas(SETTINGS)

    def hit(quota: str, key: str) -> bool:
        try:
            quotas.take(quota, key)
        except ServerError:
            return False
        return True

    return hit


def theirs() -> Callable[[str, str], bool]:
    limiter = MovingWindowRateLimiter(MemoryStorage())
    items = {quota: parse(getattr(SETTINGS, quota)) for quota in QUOTAS}
    return lambda quota, key: limiter.hit(items[quota], quota, key)


def measure(
    hit: Callable[[str, str], bool], people: int, talkers: int, rate: float, seconds: float
) -> dict[str, float]:
    for person in range(people):
        hit("guests", "127.0.0.1")
        hit("connections", str(person))
        for _ in range(3):
            hit("tables", str(person))
    refused = 0
    lines = round(rate * seconds)  # the same lines on both sides, however busy the machine
    started = time.monotonic()
    cpu = time.process_time()
    for line in range(lines):
        due = started + line / rate
        if (now := time.monotonic()) < due:
            time.sleep(due - now)
        refused += not hit("chat", str(line % talkers))
    used = time.process_time() - cpu
    return {
        "lines": lines,
        "refused": refused,
        "cpu": used / max(seconds, time.monotonic() - started),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=50.0, help="chat lines a second")
    parser.add_argument("--talkers", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=5.0)
    arguments = parser.parse_args()
    print(
        f"{arguments.people} people's keys, {arguments.rate:g} chat lines/s from "
        f"{arguments.talkers} of them counted for "
        f"{arguments.seconds:g} s; cpu: cores busy (the whole process)"
    )
    print(f"{'counter':<34} {'lines':>7} {'refused':>8} {'cpu':>7}")
    figures = {}
    for name, make in (("tapisvert moving windows", ours), ("limits MemoryStorage", theirs)):
        figures[name] = measure(
            make(), arguments.people, arguments.talkers, arguments.rate, arguments.seconds
        )
        result = figures[name]
        print(f"{name:<34} {result['lines']:>7} {result['refused']:>8} {result['cpu']:>7.3f}")
    ours_cpu, theirs_cpu = (result["cpu"] for result in figures.values())
    print(f"limits / tapisvert cpu: {theirs_cpu / max(ours_cpu, 1e-9):.1f}")


if __name__ == "__main__":
    main()
