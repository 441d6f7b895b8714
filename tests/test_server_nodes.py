"""Several nodes on one database: each table served by one node at a time, under a lease
with a fencing token; a node that stops renewing loses its tables to another, and can
store nothing more of them."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from redis_support import REDIS_URL, redis_share  # noqa: F401  (a fixture)
from tapisvert.server.errors import ServerError, TableMoved
from tapisvert.server.lobby import Lobby, Settings, User
from tapisvert.server.storage import LoggedAction, SqlStorage, TableRow

from server_support import Player, Server, postgres_database, set_up_table

LEASE = 1.0


def new_row() -> TableRow:
    return TableRow("main", "wizard", 3, {}, 12345, None, "playing", [{"kind": "empty"}] * 3)


def test_a_lease_fences_off_the_node_that_lost_it(database_url: str) -> None:
    async def run() -> None:
        first, second = SqlStorage(database_url), SqlStorage(database_url)
        await first.start()
        await second.start()
        try:
            table = await first.create_table(new_row(), "a", LEASE)
            assert await second.take_leases("b", 10, [table]) == {}  # a's lease runs
            await first.append(table, [LoggedAction(0, -1, 7)], fence=1)
            await asyncio.sleep(LEASE + 0.2)
            assert await second.take_leases("b", 10) == {table: 2}
            with pytest.raises(TableMoved) as refused:
                await first.append(table, [LoggedAction(1, 0, 3)], fence=1)
            assert refused.value.code == "table_moved"
            row = replace(new_row(), id=table, status="finished")
            with pytest.raises(TableMoved):
                await first.save_table(row, fence=1)
            assert await first.renew_leases("a", 10) == set()
            assert await second.renew_leases("b", 10) == {table}
            await second.append(table, [LoggedAction(1, 0, 4)], fence=2)
            assert await second.actions(table) == [
                LoggedAction(0, -1, 7),
                LoggedAction(1, 0, 4),
            ]
            stored = await second.table(table)
            assert stored is not None and stored.status == "playing"
            assert await first.take_leases("a", 10, [table], force=True) == {table: 3}
            with pytest.raises(TableMoved):
                await second.append(table, [LoggedAction(2, 1, 5)], fence=2)
        finally:
            await first.close()
            await second.close()

    asyncio.run(run())


async def play_moves(lobby: Lobby, users: list[User], table_id: int, count: int) -> int:
    """Play ``count`` random legal moves (fewer if the game ends); the moves played."""
    rng = random.Random(table_id)
    played = 0
    table = lobby.table(table_id)
    while played < count and table.status == "playing":
        assert table.state is not None
        seat = table.state.current_player()
        action = rng.choice(table.state.legal_actions())
        text = table.state.action_to_string(action)
        await lobby.act(users[seat], table_id, text, table.seq)
        played += 1
    return played


def test_a_paused_node_can_store_nothing_of_a_table_taken_over(database_url: str) -> None:
    """The node serving a table stops renewing (paused); another takes the table over from
    the log once the lease has run out; the paused node's next move is refused and it lets
    the table go; the game ends on the other node with every move logged once."""
    settings = Settings(bot_delay=0.0, lease_seconds=LEASE)

    async def run() -> None:
        paused = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await paused.start()
        users = [(await paused.guest(name, "127.0.0.1"))[1] for name in ("ana", "bob", "cat")]
        table = await paused.create_table(users[0], "main", "wizard", 3, {"rounds": "2"}, None)
        for seat, user in enumerate(users[1:], start=1):
            await paused.join(user, table.id, seat)
        await table.start(users[0].id)
        assert await play_moves(paused, users, table.id, 5) == 5
        assert paused.keeper is not None
        paused.keeper.cancel()  # no more renewals, as from a stopped process
        await asyncio.sleep(LEASE + 0.2)
        other = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await other.start()
        try:
            taken = other.table(table.id)
            assert taken.seq == table.seq and taken.fence == 2
            state = table.state
            assert state is not None
            move = state.action_to_string(state.legal_actions()[0])
            seat = state.current_player()
            with pytest.raises(ServerError) as refused:
                await paused.act(users[seat], table.id, move, table.seq)
            assert refused.value.code == "table_moved"
            with pytest.raises(ServerError) as gone:
                paused.table(table.id)
            assert gone.value.code == "no_such_table"
            played = await play_moves(other, users, table.id, 10_000)
            assert taken.status == "finished" and played > 0
            logged = await other.storage.actions(table.id)
            assert [entry.seq for entry in logged] == list(range(taken.seq))
        finally:
            await other.stop()
            await paused.stop()

    asyncio.run(run())


@pytest.fixture
def postgres() -> Iterator[str]:
    yield from postgres_database()


async def kill_in_mid_game(nodes: list[Server], players: list[Player], table: int) -> None:
    """Play on the first node; after six acknowledged moves, kill it and send the players
    to the second; wait for the end."""
    playing = asyncio.gather(*(player.play({table}, reconnect=True) for player in players))
    while sum(len(player.acked) for player in players) < 6:
        await asyncio.sleep(0.02)
    nodes[0].kill()
    for player in players:
        player.server = nodes[1]
    await asyncio.wait_for(playing, 120)


@pytest.mark.usefixtures("redis_share")
def test_a_game_goes_on_after_its_node_is_killed(tmp_path: Path, postgres: str) -> None:
    """Two nodes on PostgreSQL and Redis; the node serving a game is killed (kill -9) in
    the middle of it; its players reconnect to the other node, which takes the table over
    once the lease has run out, and the game ends there with every acknowledged move."""
    settings: dict[str, Any] = {"bus": REDIS_URL, "lease-seconds": LEASE}
    nodes = [Server(postgres, tmp_path / f"node{index}.log", **settings) for index in (1, 2)]
    for node in nodes:
        node.start()
    try:
        tokens = [nodes[0].guest(name) for name in ("ana", "bob")]
        table = set_up_table(nodes[0], tokens, "wizard", 4, bots="random")
        players = [Player(nodes[0], token, seed) for seed, token in enumerate(tokens)]
        asyncio.run(kill_in_mid_game(nodes, players, table))
        record = nodes[1].record(table, "text")
    finally:
        for node in nodes:
            node.stop()
    final = record.replay()
    assert final.is_terminal() and record.result == final.returns()
    acked = [move for player in players for move in player.acked]
    assert len(acked) > 6
    for move in acked:
        assert record.actions[move.position] == move.action, move
    assert "served here now" in (tmp_path / "node2.log").read_text()
