"""A node stopped gently (SIGTERM): it says it is not ready, tells its clients to reconnect,
hands its tables over to another node or, alone, stops with every write done; the games go
on with every acknowledged move, none twice."""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from redis_support import redis_share  # noqa: F401  (a fixture)
from test_server_nodes import postgres, two_nodes  # noqa: F401  (fixtures)

from server_support import (
    Player,
    Server,
    raw_websocket,
    serving,
    set_up_table,
    sqlite_url,
    until,
)

pytestmark = pytest.mark.slow

SHORT_GAME = {"rounds": "15"}
"""Rounds enough that the game is not over when its node is stopped after six moves (six
rounds were played out, on a quiet machine, before the signal came)."""


def stopped_gently(server: Server) -> int:
    """SIGTERM the server and wait for it to exit; its exit status."""
    assert server.process is not None
    server.process.send_signal(signal.SIGTERM)
    code = server.process.wait(60)
    server.process = None
    return code


def assert_every_acknowledged_move_once(server: Server, table: int, players: list[Player]) -> None:
    """The game ended as its log replays, with each acknowledged move at its position, and
    no move acknowledged twice."""
    record = server.record(table, "text")
    final = record.replay()
    assert final.is_terminal() and record.result == final.returns()
    acked = [move for player in players for move in player.acked]
    assert len(acked) > 6
    assert len({(move.table, move.position) for move in acked}) == len(acked)
    for move in acked:
        assert record.actions[move.position] == move.action, move
    for player in players:
        assert player.views[table]["result"] == record.result


def test_health_and_readiness_answer_without_a_session(tmp_path: Path) -> None:
    with serving(tmp_path) as server:
        alive = server.http.get(f"{server.url}/healthz")
        assert (alive.status_code, alive.json()) == (200, {"alive": True})
        ready = server.http.get(f"{server.url}/readyz")
        assert ready.status_code == 200
        assert ready.json() == {
            "ready": True,
            "draining": False,
            "checks": {"storage": "ok", "bots": "ok"},
        }


def test_a_restart_costs_each_client_one_reconnection(tmp_path: Path) -> None:
    """One node, SIGTERM in mid-game, then started again: each player is told to reconnect
    once, is greeted again once the node is back, and the game ends with every move."""
    server = Server(sqlite_url(tmp_path), tmp_path / "server.log").start()
    tokens = [server.guest("ana"), server.guest("bob")]
    table = set_up_table(server, tokens, "wizard", 3, bots="random", options=SHORT_GAME)
    players = [Player(server, token, seed) for seed, token in enumerate(tokens)]

    async def run() -> int:
        playing = asyncio.gather(*(player.play({table}, reconnect=True) for player in players))
        # both connected (on a busy machine one may connect late), and the game under way
        await until(
            lambda: (
                all(player.welcomes for player in players)
                and sum(len(player.acked) for player in players) >= 6
            ),
            60,
        )
        code = await asyncio.to_thread(stopped_gently, server)
        await asyncio.to_thread(server.start)
        await asyncio.wait_for(playing, 120)
        return code

    try:
        code = asyncio.run(run())
        assert_every_acknowledged_move_once(server, table, players)
    finally:
        server.stop()
    assert code == 0
    # one reconnection each; the frame that asks for it is read by at least one (a socket
    # may close before its client reads it: that client reconnects all the same)
    assert [player.welcomes for player in players] == [2, 2]
    assert all(player.reconnects <= 1 for player in players)
    assert sum(player.reconnects for player in players) >= 1
    assert "it let 1 tables go" in server.log.read_text()


def greeted(port: int, token: str) -> socket.socket:
    """A client that reads nothing once greeted: its node cannot see it go until it closes."""
    raw = raw_websocket(port, token)
    heard = b""
    while b'"welcome"' not in heard:
        heard += raw.recv(4096)
    return raw


def test_a_draining_node_hands_its_game_over(two_nodes: list[Server]) -> None:  # noqa: F811
    """The node serving a game is stopped gently in the middle of it: it answers /readyz
    with 503 while it drains, its players are told to reconnect and do so to the other
    node, which takes the table over from the lease let go, and the game ends there with
    every acknowledged move once."""
    first, second = two_nodes
    tokens = [first.guest(name) for name in ("ana", "bob")]
    table = set_up_table(first, tokens, "wizard", 4, bots="random", options=SHORT_GAME)
    players = [Player(first, token, seed) for seed, token in enumerate(tokens)]
    readiness: list[Any] = []

    async def run() -> int:
        playing = asyncio.gather(*(player.play({table}, reconnect=True) for player in players))
        await until(lambda: sum(len(player.acked) for player in players) >= 6, 60)
        holder = await asyncio.to_thread(greeted, first.port, tokens[0])
        assert first.process is not None
        first.process.send_signal(signal.SIGTERM)
        for player in players:  # as a load balancer would, once /readyz says so
            player.server = second

        def refuses() -> bool:
            answer = first.http.get(f"{first.url}/readyz")
            readiness.append((answer.status_code, answer.json()))
            return answer.status_code == 503

        while not await asyncio.to_thread(refuses):
            await asyncio.sleep(0.01)
        holder.close()
        assert first.process is not None
        code = await asyncio.to_thread(first.process.wait, 60)
        first.process = None
        await asyncio.wait_for(playing, 120)
        return code

    assert asyncio.run(run()) == 0
    assert readiness[-1] == (
        503,
        {"ready": False, "draining": True, "checks": {"storage": "ok", "bus": "ok", "bots": "ok"}},
    )
    assert_every_acknowledged_move_once(second, table, players)
    assert all(player.reconnects == 1 for player in players)
    assert "it let 1 tables go" in first.log.read_text()
    assert f"table {table} was left by its node" in second.log.read_text()
    ready = second.http.get(f"{second.url}/readyz").json()
    assert ready == {
        "ready": True,
        "draining": False,
        "checks": {"storage": "ok", "bus": "ok", "bots": "ok"},
    }
