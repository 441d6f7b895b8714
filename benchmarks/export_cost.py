"""What an export of the open database of games costs, side by side with the same games'
records taken one at a time as ``GET /api/tables/{id}/record`` takes them.

``--games`` finished games of 4-player Wizard (uniformly random legal moves, seeds 0, 1…,
four rated accounts) are stored through the storage layer in a new SQLite database. Then,
in the same run: the export of them all (``Export.gzipped``: read a page at a time, each
game replayed and converted, its lines compressed), and the peer, each game's record built
from its row and log as the record route does (``Records.record``'s work, without HTTP);
then the reader's side, ``load_export`` of the file with every game walked step by step
(``ExportedGame.steps``); and how long the read of one page holds the database's writer
(the live tables' moves wait meanwhile), the median over the pages. Times are wall-clock
seconds of one pass (the export works in threads), so run it on a machine otherwise idle.

Run: ``.venv/bin/python benchmarks/export_cost.py [--games 200]``
"""

from __future__ import annotations

import argparse
import asyncio
import io
import random
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from tapisvert.core.game import CHANCE
from tapisvert.core.registry import load_game
from tapisvert.records import load_export
from tapisvert.server.exports import PAGE_GAMES, Export
from tapisvert.server.ratings import Standing
from tapisvert.server.records import table_record
from tapisvert.server.storage import LoggedAction, SqlStorage, TableRow

PLAYERS = 4


async def store_games(storage: SqlStorage, games: int) -> list[int]:
    """``games`` finished, rated games of Wizard; their tables' numbers."""
    accounts = []
    for person in range(PLAYERS):
        account = await storage.accounts.create(f"p{person}", f"p{person}", None, False)
        assert account is not None
        accounts.append(account)
    seats = [
        {"kind": "human", "user_id": account, "name": f"p{index}"}
        for index, account in enumerate(accounts)
    ]
    tables = []
    for seed in range(games):
        choices = random.Random(seed)
        state = load_game("wizard", PLAYERS).new_initial_state()
        log: list[LoggedAction] = []
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.resolve_chance(random.Random(f"{seed}:{len(log)}"))
                drawn = state.history()[len(log) :]
                log += [LoggedAction(len(log) + n, CHANCE, a) for n, a in enumerate(drawn)]
                continue
            seat = state.current_player()
            legal = state.legal_actions()
            action = legal[choices.randrange(len(legal))]
            state.apply_action(action)
            log.append(LoggedAction(len(log), seat, action, took=choices.uniform(0.5, 20)))
        row = TableRow("main", "wizard", PLAYERS, {}, seed, None, "playing", seats)
        row.id = await storage.tables.create(row)
        ended = replace(row, status="finished", result=state.returns(), finished_at=time.time())
        winners = state.winners()
        standings = [
            Standing(seat, account, state.returns()[seat], seat in winners, False, True)
            for seat, account in enumerate(accounts)
        ]
        await storage.tables.finish(row.id, log, ended, standings)
        tables.append(row.id)
    return tables


async def measure(games: int, folder: Path) -> dict[str, float]:
    storage = SqlStorage(f"sqlite:///{folder / 'games.sqlite3'}")
    await storage.start()
    try:
        tables = await store_games(storage, games)
        asked = Export.asked("wizard", time.strftime("%Y-%m-%d", time.gmtime()))
        started = time.perf_counter()
        pieces = [piece async for piece in asked.gzipped(storage)]
        exporting = time.perf_counter() - started
        started = time.perf_counter()
        for table in tables:
            row = await storage.tables.load(table)
            assert row is not None
            log = await storage.tables.actions(table)
            table_record(row, log, [seat["name"] for seat in row.seats]).to_json()
        one_by_one = time.perf_counter() - started
        reads, after = [], 0
        while True:  # the pages again, each read alone: how long it holds the writer
            started = time.perf_counter()
            page = await storage.exports.finished("wizard", 0.0, after, PAGE_GAMES)
            reads.append(time.perf_counter() - started)
            if not page:
                break
            after = page[-1].table.id
    finally:
        await storage.close()
    exported = b"".join(pieces)
    started = time.perf_counter()
    read = 0
    for game in load_export(io.BytesIO(exported)):
        for _ in game.steps():
            pass
        read += 1
    reading = time.perf_counter() - started
    assert read == games
    return {
        "export": exporting,
        "records": one_by_one,
        "reading": reading,
        "bytes": len(exported) / games,
        "page": statistics.median(reads[:-1] or reads),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        figures = asyncio.run(measure(arguments.games, Path(folder)))
    games = arguments.games
    print(f"{games} games of 4-player Wizard, {figures['bytes']:.0f} bytes each compressed")
    print(f"export:               {1000 * figures['export'] / games:7.2f} ms a game")
    print(f"records one by one:   {1000 * figures['records'] / games:7.2f} ms a game")
    print(f"export / records:     {figures['export'] / figures['records']:7.2f}")
    print(f"reading, step by step:{1000 * figures['reading'] / games:7.2f} ms a game")
    print(f"a page's read:        {1000 * figures['page']:7.2f} ms (median, {PAGE_GAMES} games)")


if __name__ == "__main__":
    main()
