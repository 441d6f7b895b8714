"""A game in one request: a table of the person and bots of a chosen level, started at once,
from HTTP, the WebSocket and the chat's ``/play``; a wrong game or level opens nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import websockets

from server_support import Server, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("play_now"), **{"bot-delay": 0.05}) as running:
        yield running


def seats_of(server: Server, table: int) -> list[dict[str, Any]]:
    info = server.http.get(f"{server.url}/api/tables/{table}").json()
    assert info["status"] == "playing"
    return list(info["seats"])


def test_play_now_opens_a_started_table_of_the_person_and_bots(server: Server) -> None:
    games = {game["name"]: game for game in server.http.get(f"{server.url}/api/games").json()}
    ana = server.guest("quick-ana")
    made = server.call(ana, "POST", "/api/tables/play-now", game="luz", level="medium")
    assert made.status_code == 200, made.text
    seats = seats_of(server, made.json()["table"])
    expected = max(games["luz"]["min_players"], min(4, games["luz"]["max_players"]))
    assert len(seats) == expected
    assert seats[0]["name"] == "quick-ana"
    assert [seat["level"] for seat in seats[1:]] == ["medium"] * (expected - 1)

    bob = server.guest("quick-bob")
    said = server.call(bob, "POST", "/api/chat", text="/play Fzzzt", room="main")
    assert said.status_code == 200 and said.json()["type"] == "ack", said.text
    seats = seats_of(server, said.json()["table"])
    assert seats[0]["name"] == "quick-bob" and {seat["level"] for seat in seats[1:]} == {"easy"}

    async def by_socket() -> dict[str, Any]:
        cat = await asyncio.to_thread(server.guest, "quick-cat")
        async with websockets.connect(server.ws_url) as link:
            await link.send(json.dumps({"type": "hello", "version": 1, "token": cat}))
            message = {"type": "play_now", "id": "p1", "room": "main", "game": "wizard"}
            await link.send(json.dumps({**message, "level": "hard"}))
            while True:
                frame = json.loads(await link.recv())
                if frame.get("id") == "p1":
                    return dict(frame)

    acked = asyncio.run(by_socket())
    assert acked["type"] == "ack"
    assert {seat["level"] for seat in seats_of(server, acked["table"])[1:]} == {"hard"}


def test_a_wrong_game_or_level_opens_no_table(server: Server) -> None:
    dan = server.guest("quick-dan")
    listed = server.http.get(f"{server.url}/api/rooms/main").json()
    before = len(listed["tables"])
    for body, code in (
        ({"game": "chess"}, "no_such_game"),
        ({"game": "wizard", "level": "genius"}, "bad_bot"),
    ):
        refused = server.call(dan, "POST", "/api/tables/play-now", **body)
        assert refused.status_code == 400 and refused.json()["code"] == code, refused.text
    usage = server.call(dan, "POST", "/api/chat", text="/play", room="main")
    assert usage.json()["code"] == "command_usage" and "/play GAME" in usage.json()["message"]
    assert len(server.http.get(f"{server.url}/api/rooms/main").json()["tables"]) == before


def test_play_with_friends_opens_a_table_whose_other_seats_wait(server: Server) -> None:
    eve = server.guest("quick-eve")
    made = server.call(eve, "POST", "/api/tables/play-now", game="abluxxen", friends=True)
    assert made.status_code == 200, made.text
    info = server.http.get(f"{server.url}/api/tables/{made.json()['table']}").json()
    assert info["status"] == "open"
    assert info["seats"][0]["name"] == "quick-eve"
    assert [seat["kind"] for seat in info["seats"][1:]] == ["empty"] * (len(info["seats"]) - 1)
    fay = server.guest("quick-fay")  # whoever follows the invitation sits down
    joined = server.call(fay, "POST", f"/api/tables/{info['table']}/join")
    assert joined.status_code == 200, joined.text
    seats = server.http.get(f"{server.url}/api/tables/{info['table']}").json()["seats"]
    assert [seat["name"] for seat in seats[:2]] == ["quick-eve", "quick-fay"]
