"""What open tables over days cost a node: its memory with 10,000 of them against 10, side by
side with the same tables awake (as live ones are kept), all in one run.

A SQLite database is made once by the server (``tapisvert serve``, migrations and two
accounts, ana and bob); each case starts from a copy of it, filled directly with tables of
3-player Wizard at a day a move, each dealt and a few moves in (uniformly random legal moves,
seeds 0, 1…), stored as the server stores a table over days that nobody is at: asleep, with
the deadline of the person to act. Ana and bob sit at the first ten; the others are people who
do not come (accounts that exist only in the seats). The server is started on it, and once it
answers, its resident memory (VmRSS) is read; then ana asks for her list (``GET
/api/turns``), the person to act at the first table opens it and plays (the table wakes), and
the memory is read again. The awake case stores the same tables not asleep, so that the server
brings them all into memory at start, as it does live tables: the difference per table is what
sleeping saves.

Run: ``.venv/bin/python benchmarks/days_memory.py [--tables 10000] [--awake 1000]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, insert, select

from server_load import free_port  # puts tests/ on the path
from tapisvert.core.game import CHANCE
from tapisvert.core.registry import load_game
from tapisvert.server.storage.schema import actions_table, tables_table, users_table

DAY = 86400.0
MOVES_IN = 2
"""Moves of people made at each table after the deal (the bids of the first seats)."""
PASSWORD = "secret-enough"


class Node:
    """``tapisvert serve`` on a SQLite file, in a process of its own."""

    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.port = free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> float:
        """Start it; the seconds until it answers."""
        command = [sys.executable, "-m", "tapisvert", "serve", "--port", str(self.port)]
        command += ["--database-url", self.url, "--rate", "1000"]
        environment = {**os.environ, "TAPISVERT_ENGINE": "pure"}
        started = time.perf_counter()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log, env=environment)
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(self.log.read_text()[-2000:])
            try:
                httpx.get(f"{self.http}/api/games", timeout=1).raise_for_status()
                return time.perf_counter() - started
            except httpx.HTTPError:
                time.sleep(0.05)

    def resident_bytes(self) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(30)
            self.process = None


def fill(url: str, tables: int, asleep: bool, people: dict[str, int]) -> None:
    """``tables`` dealt tables of Wizard over days, a few moves in, straight into the database."""
    game = load_game("wizard", 3)
    rows, actions = [], []
    for seed in range(tables):
        choices = random.Random(seed)
        if seed < 10:
            sitting = [(people["ana"], "ana"), (people["bob"], "bob")]
        else:
            sitting = [(1_000_000 + 2 * seed, f"p{2 * seed}"), (1_000_001 + 2 * seed, f"q{seed}")]
        seats = [
            {"kind": "human", "user_id": user, "name": name, "level": None, "replaced": False}
            for user, name in sitting
        ] + [{"kind": "bot", "user_id": None, "name": "bot easy", "level": "easy"}]
        state = game.new_initial_state()
        log: list[tuple[int, int]] = []
        while len([actor for actor, _ in log if actor >= 0]) < MOVES_IN or (
            state.current_player() in (CHANCE, 2)
        ):
            if state.current_player() == CHANCE:
                state.resolve_chance(random.Random(f"{seed}:{len(log)}"))
                log += [(CHANCE, action) for action in state.history()[len(log) :]]
                continue
            legal = state.legal_actions()
            action = legal[choices.randrange(len(legal))]
            log.append((state.current_player(), action))
            state.apply_action(action)
        to_act = seats[state.current_player()]["user_id"]
        table_id = seed + 1
        rows.append(
            {
                "id": table_id,
                "room": "main",
                "game": "wizard",
                "players": 3,
                "options": "{}",
                "seed": seed,
                "clock": DAY,
                "status": "playing",
                "seats": json.dumps(seats),
                "rated": True,
                "timeout": "bot",
                "deadline": time.time() + DAY - choices.uniform(0, DAY / 2),
                "to_act": to_act,
                "asleep": asleep,
            }
        )
        actions += [
            {"table_id": table_id, "seq": seq, "actor": actor, "action": action}
            for seq, (actor, action) in enumerate(log)
        ]
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(insert(tables_table), rows)
        connection.execute(insert(actions_table), actions)
    engine.dispose()


def prepare(folder: Path) -> tuple[Path, dict[str, str], dict[str, int]]:
    """A database made by the server, with ana's and bob's accounts: each case starts from a
    copy of it. Their tokens, and their ids."""
    made_at = folder / "accounts.sqlite3"
    url = f"sqlite:///{made_at}"
    node = Node(url, folder / "server.log")
    node.start()
    tokens = {}
    for name in ("ana", "bob"):
        made = httpx.post(f"{node.http}/api/register", json={"name": name, "password": PASSWORD})
        made.raise_for_status()
        tokens[name] = made.json()["token"]
    node.stop()
    engine = create_engine(url)
    with engine.connect() as connection:
        people = dict(connection.execute(select(users_table.c.name, users_table.c.id)).all())
    engine.dispose()
    return made_at, tokens, people


def measure(
    folder: Path,
    prepared: tuple[Path, dict[str, str], dict[str, int]],
    tables: int,
    asleep: bool,
    settle: float,
) -> dict[str, Any]:
    made_at, tokens, people = prepared
    database = folder / "days.sqlite3"
    shutil.copyfile(made_at, database)
    url = f"sqlite:///{database}"
    node = Node(url, folder / "server.log")
    fill(url, tables, asleep, people)
    starting = node.start()
    time.sleep(settle)  # what the start left behind is collected, its tasks settled
    resident = node.resident_bytes()
    headers = {name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()}
    asked = time.perf_counter()
    turns = httpx.get(f"{node.http}/api/turns", headers=headers["ana"], timeout=30).json()
    listing = time.perf_counter() - asked
    to_act = "ana" if any(row["table"] == 1 for row in turns["your_turn"]) else "bob"
    asked = time.perf_counter()
    view = httpx.get(f"{node.http}/api/tables/1/view", headers=headers[to_act], timeout=30).json()
    played = httpx.post(
        f"{node.http}/api/tables/1/actions",
        json={"seq": view["seq"], "action": view["legal"][0]},
        headers=headers[to_act],
        timeout=30,
    )
    played.raise_for_status()
    waking = time.perf_counter() - asked
    awake = node.resident_bytes()
    node.stop()
    return {
        "tables": tables,
        "asleep": asleep,
        "start": starting,
        "resident": resident,
        "after_move": awake,
        "listing": listing,
        "turns": len(turns["your_turn"]),
        "waking": waking,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--awake", type=int, default=1_000, help="tables in the awake case")
    parser.add_argument(
        "--settle", type=float, default=2.0, help="seconds between a start and the reading"
    )
    arguments = parser.parse_args()
    cases = [(10, True), (arguments.tables, True), (10, False), (arguments.awake, False)]
    results = []
    with tempfile.TemporaryDirectory() as accounts:
        prepared = prepare(Path(accounts))
        for tables, asleep in cases:
            with tempfile.TemporaryDirectory() as folder:
                results.append(measure(Path(folder), prepared, tables, asleep, arguments.settle))
    megabyte = 1024 * 1024
    print("tables  stored  server start  memory (RSS)  after a move  /api/turns  wake + move")
    for row in results:
        print(
            f"{row['tables']:6,}  {'asleep' if row['asleep'] else 'awake':6}"
            f"  {row['start']:10.2f} s  {row['resident'] / megabyte:9.1f} MB"
            f"  {row['after_move'] / megabyte:9.1f} MB  {1000 * row['listing']:7.1f} ms"
            f"  {1000 * row['waking']:8.1f} ms"
        )
    few, many, few_awake, many_awake = results
    print(
        f"{many['tables']:,} tables asleep / 10 asleep, memory: "
        f"{many['resident'] / few['resident']:.3f}"
        f" (+{(many['resident'] - few['resident']) / megabyte:.1f} MB)"
    )
    per_table = (many_awake["resident"] - few_awake["resident"]) / (many_awake["tables"] - 10)
    print(
        f"a table awake costs {per_table / 1024:.1f} KB: {many['tables']:,} awake would take "
        f"about {per_table * many['tables'] / megabyte:,.0f} MB more"
    )


if __name__ == "__main__":
    main()
