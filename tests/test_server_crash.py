"""kill -9 the server at random moments of running games, restart it, reconnect.

No acknowledged move may be lost, and each game must end exactly as a replay of its log,
chance included: the chance outcomes come from the table's secret seed and the move
number, so a restored table draws what it would have drawn without the crash.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import pytest

from tapisvert.core.game import CHANCE
from tapisvert.core.records import Record

from server_support import Player, Server, set_up_table, sqlite_url

pytestmark = pytest.mark.slow

KILLS = 8
ROUND_GAMES = [("wizard", 4), ("wizard", 3), ("luz", 4), ("abluxxen", 4), ("fzzzt", 4)]


def table_seeds(server: Server) -> dict[int, int]:
    with sqlite3.connect(server.database_url.removeprefix("sqlite:///")) as database:
        return dict(database.execute("SELECT id, seed FROM game_tables").fetchall())


def assert_chance_follows_the_seed(record: Record, seed: int) -> None:
    state = record.new_game().new_initial_state()
    seq = 0
    while seq < len(record.actions):
        if state.current_player() != CHANCE:
            state.apply_string(record.actions[seq])
            seq += 1
            continue
        drawn = state.clone()
        drawn.resolve_chance(random.Random(f"{seed}:{seq}"))
        for action in drawn.history()[seq:]:
            assert state.action_to_string(action) == record.actions[seq]
            state.apply_action(action)
            seq += 1


def test_killed_server_loses_no_acknowledged_move(tmp_path: Path) -> None:
    server = Server(sqlite_url(tmp_path), tmp_path / "server.log", **{"absence-grace": 60.0})
    server.start()
    rng = random.Random(20261129)
    tokens = [server.guest("ana"), server.guest("bob")]
    players = [Player(server, token, seed) for seed, token in enumerate(tokens)]
    tables: list[int] = []
    kills = 0

    async def run() -> None:
        nonlocal kills
        while kills < KILLS:
            round_tables = {
                set_up_table(server, tokens, game, seats) for game, seats in ROUND_GAMES
            }
            tables.extend(round_tables)
            playing = asyncio.gather(
                *(player.play(round_tables, reconnect=True) for player in players)
            )
            while not playing.done():
                await asyncio.wait([playing], timeout=rng.uniform(0.1, 0.7))
                if playing.done() or kills >= KILLS:
                    break
                server.kill()
                kills += 1
                await asyncio.to_thread(server.start)
            await playing

    try:
        asyncio.run(asyncio.wait_for(run(), 600))
        seeds = table_seeds(server)
        records = {table: server.record(table, "text") for table in tables}
    finally:
        server.stop()

    assert kills >= KILLS
    for table, record in records.items():
        final = record.replay()
        assert final.is_terminal() and record.result == final.returns()
        assert_chance_follows_the_seed(record, seeds[table])
        for player in players:
            assert player.views[table]["result"] == final.returns()
    acked = [move for player in players for move in player.acked]
    assert len(acked) > 100
    for move in acked:
        record = records[move.table]
        assert record.actions[move.position] == move.action, move
        assert record.actors is not None and record.actors[move.position] == f"P{move.seat + 1}"
