"""Relays: processes holding a node's clients' sockets, talking to it over Redis."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import orjson
import pytest
import websockets
from hypothesis import given
from hypothesis import strategies as st

from redis_support import REDIS_URL, redis_share  # noqa: F401  (a fixture)
from tapisvert.server.relay import CLOSE, FRAME, MESSAGE, Relay, read_message

from server_support import Player, Server, running, set_up_table, sqlite_url

records = st.lists(
    st.tuples(st.sampled_from([MESSAGE, FRAME, CLOSE]), st.integers(0, 2**32 - 1), st.text()),
    max_size=20,
)


@given(st.text(), records)
def test_a_message_of_the_bus_reads_back_as_written(
    sender: str, sent: list[tuple[int, int, str]]
) -> None:
    assert read_message(orjson.dumps([sender, *sent]).decode()) == (sender, sent)


@pytest.mark.parametrize(
    "frame", [{"a": 1}, '[1, [0, 0, "x"]]', '["relay", [0, 0]]', '["relay", 3]', "not json"]
)
def test_what_is_not_a_message_of_the_bus_is_refused(frame: object) -> None:
    with pytest.raises(ValueError):
        read_message(frame)


def test_a_relay_answers_sockets_only_and_says_so_in_the_callers_language() -> None:
    relay = Relay(REDIS_URL, "node", unread_limit=1 << 20, rate=30)

    async def ask(language: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=relay)
        async with httpx.AsyncClient(transport=transport, base_url="http://relay") as client:
            return await client.get("/api/rooms", headers={"accept-language": language})

    answer = asyncio.run(ask("fr-FR,fr;q=0.9"))
    assert answer.status_code == 404
    assert answer.json() == {
        "code": "sockets_only",
        "message": "ce port ne tient que les sockets du jeu (/ws) ; les pages sont sur le port "
        "du serveur",
    }
    assert asyncio.run(ask("de")).json()["message"].startswith("this port holds the game's")


def test_relays_need_a_bus(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tapisvert", "serve", "--relays", "1",
               "--database-url", sqlite_url(tmp_path)]  # fmt: skip
    finished = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert finished.returncode != 0
    assert "--relays needs --bus" in finished.stdout + finished.stderr


def relayed_server(tmp_path: Path) -> Server:
    return Server(sqlite_url(tmp_path), tmp_path / "server.log", relays=2, bus=REDIS_URL)


@pytest.mark.slow
@pytest.mark.usefixtures("redis_share")
def test_a_game_played_through_relays_keeps_every_acknowledged_move(tmp_path: Path) -> None:
    server = relayed_server(tmp_path).start()
    try:
        assert len(server.relays()) == 2
        tokens = [server.guest("ana"), server.guest("bob")]
        table = set_up_table(server, tokens, "wizard", 3)
        players = [Player(server, token, seed) for seed, token in enumerate(tokens)]

        async def play() -> None:
            await asyncio.gather(*(player.play({table}) for player in players))

        asyncio.run(asyncio.wait_for(play(), 120))
        record = server.record(table, "text")
    finally:
        server.stop()
    final = record.replay()
    assert final.is_terminal()
    acked = [move for player in players for move in player.acked]
    assert acked
    for move in acked:
        assert record.actions[move.position] == move.action


@pytest.mark.usefixtures("redis_share")
def test_relays_go_with_their_killed_node_and_close_their_clients(tmp_path: Path) -> None:
    server = relayed_server(tmp_path).start()
    try:
        relays = server.relays()
        token = server.guest("ana")

        async def connected_then_killed() -> None:
            async with websockets.connect(server.ws_url) as socket_:
                await socket_.send(json.dumps({"type": "hello", "version": 1, "token": token}))
                welcome = json.loads(await socket_.recv())
                assert welcome["type"] == "welcome"
                server.kill()
                with pytest.raises(websockets.ConnectionClosed):
                    while True:
                        await asyncio.wait_for(socket_.recv(), 10)

        asyncio.run(connected_then_killed())
        deadline = time.monotonic() + 10
        while living := [pid for pid in relays if running(pid)]:
            assert time.monotonic() < deadline, f"relays {living} outlived their node"
            time.sleep(0.02)
    finally:
        server.stop()


@pytest.mark.usefixtures("redis_share")
def test_a_node_whose_relays_port_is_taken_stops_and_says_why(tmp_path: Path) -> None:
    # Bound, not listening: the port is taken, yet a connection to it is refused, so nothing
    # but the relays' own socket could make the server look ready.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        server = relayed_server(tmp_path)
        server.socket_port = taken.getsockname()[1]
        server.settings["socket-port"] = server.socket_port
        with pytest.raises(RuntimeError, match="the server stopped"):
            server.start()
    assert "a relay stopped" in (tmp_path / "server.log").read_text()
