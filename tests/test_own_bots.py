"""Bot accounts of one's own: made by their owner, given a token, connected by
``tapisvert.client``, invited by people, rated, cut off when their token is revoked, and
replaced for the game when they stop answering."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redis_support import redis_share  # noqa: F401  (a fixture)
from tapisvert.client import Client, ClientError, deciding, request_json
from tapisvert.core.game import Observation
from test_server_nodes import postgres, steady_nodes  # noqa: F401  (fixtures)

from server_support import (
    PASSWORD,
    Player,
    Server,
    admin_command,
    raw_websocket,
    serving,
    until,
)

SHORT = {"rounds": "2", "first_dealer": "P1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {"bot-delay": 0.0, "rate": 300.0, "leaderboard-min-games": 1}
    with serving(tmp_path_factory.mktemp("own_bots"), **settings) as running:
        yield running


def bot_of(server: Server, owner: str, name: str) -> str:
    """A new bot account of ``owner``'s, and its token."""
    server.call(owner, "POST", "/api/bots", name=name).raise_for_status()
    made = server.call(owner, "POST", f"/api/bots/{name}/token")
    made.raise_for_status()
    return str(made.json()["token"])


def open_table(server: Server, token: str, bots: int = 0, **body: Any) -> int:
    """An open Wizard table of three, the person in seat 1, a seat for the bot account in
    seat 2, and ``bots`` random bots after it."""
    created = server.call(
        token, "POST", "/api/tables", game="wizard", players=3, options=SHORT, **body
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    for _ in range(bots):
        server.call(token, "POST", f"/api/tables/{table}/bots", level="random", seat=2)
    return table


def online(server: Server, name: str) -> bool:
    return bool(server.http.get(f"{server.url}/api/players/{name}").json()["online"])


async def connected(server: Server, name: str) -> None:
    await until(lambda: online(server, name), 30)


def test_a_bot_of_ones_own_plays_a_rated_game_against_a_person(server: Server) -> None:
    """A person invites a connected bot account as they would add a built-in bot; the client
    plays its seat with a tapisvert bot to the end; the game is rated for both, the bot is
    marked with its owner at the table, on its profile and on the bots' leaderboard."""
    owner = server.register("maker")
    token = bot_of(server, owner, "robo")
    ana = server.register("anabel")
    table = open_table(server, ana)
    client = Client(server.url, token, "easy", games=1)

    async def run() -> None:
        bot = asyncio.create_task(client.run())
        await connected(server, "robo")
        invited = server.call(ana, "POST", f"/api/tables/{table}/invite", name="robo")
        assert invited.status_code == 200, invited.text
        server.call(ana, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()
        server.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()
        await asyncio.wait_for(asyncio.gather(Player(server, ana, 3).play({table}), bot), 120)

    asyncio.run(run())
    assert client.played.finished == [table] and client.played.moves > 0
    info = server.http.get(f"{server.url}/api/tables/{table}").json()
    assert info["status"] == "finished"
    seats = {seat["name"]: seat for seat in info["seats"]}
    assert seats["robo"]["owner"] == "maker" and seats["robo"]["kind"] == "human"
    assert not seats["robo"]["replaced"]  # it played every move itself
    assert seats["anabel"]["owner"] is None
    assert all(rating is not None for rating in info["ratings"][:2])  # both rated
    record = server.record(table)
    assert record.replay().returns() == info["result"]
    profile = server.http.get(f"{server.url}/api/players/robo").json()
    assert (profile["bot"], profile["owner"], profile["level"]) == (True, "maker", None)
    assert [rating["game"] for rating in profile["ratings"]] == ["wizard"]
    assert server.http.get(f"{server.url}/api/players/maker").json()["bots"] == ["robo"]
    board = f"{server.url}/api/leaderboards/wizard"
    bots = [row["name"] for row in server.http.get(board, params={"who": "bots"}).json()["players"]]
    people = [
        row["name"] for row in server.http.get(board, params={"who": "people"}).json()["players"]
    ]
    assert "robo" in bots and "anabel" not in bots
    assert "anabel" in people and "robo" not in people


def test_a_function_of_ones_own_plays_and_a_revoked_token_cuts_it_off(server: Server) -> None:
    """A plain function from the observation and the legal moves chooses; it sees its
    seat's observation; once the owner revokes the token, the client is refused and stops."""
    owner = server.register("coder")
    token = bot_of(server, owner, "lambda")
    seen: list[Observation] = []

    def first_legal(observation: Observation, legal: list[str]) -> str:
        seen.append(observation)
        return legal[0]

    ana = server.register("anna")
    table = open_table(server, ana, bots=1)
    client = Client(server.url, token, deciding(first_legal))

    async def run() -> None:
        bot = asyncio.create_task(client.run())
        await connected(server, "lambda")
        server.call(ana, "POST", f"/api/tables/{table}/invite", name="lambda").raise_for_status()
        server.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()
        await asyncio.wait_for(Player(server, ana, 4).play({table}), 120)
        await until(lambda: table in client.played.finished, 30)
        server.call(owner, "DELETE", "/api/bots/lambda/token").raise_for_status()
        with pytest.raises(ClientError, match="the server refuses"):
            await asyncio.wait_for(bot, 30)

    asyncio.run(run())
    assert seen and all(observation.seat == 1 for observation in seen)
    assert not online(server, "lambda")
    refused = server.call(token, "GET", "/api/bots")
    assert refused.status_code == 401


def test_what_owners_and_inviters_are_refused(tmp_path: Path) -> None:
    """Guests own no bots; an owner owns a bounded number; an offline or unknown bot cannot be
    invited; the bots of one owner sit at a bounded number of tables; each refusal says why."""
    settings = {"bots-per-owner": 1, "bot-tables-per-owner": 1, "rate": 300.0}
    with serving(tmp_path, **settings) as server:
        guest = server.guest("visitor")
        refused = server.call(guest, "POST", "/api/bots", name="mine")
        assert refused.status_code == 403 and "register first" in refused.json()["message"]
        owner = server.register("owner")
        token = bot_of(server, owner, "solo")
        second = server.call(owner, "POST", "/api/bots", name="duo")
        assert second.status_code == 409 and "1 bot accounts" in second.json()["message"]
        level = server.call(owner, "POST", "/api/bots", name="Hard")
        assert level.status_code == 409
        other = server.register("other")
        assert server.call(other, "POST", "/api/bots/solo/token").status_code == 404
        first, last = open_table(server, other), open_table(server, owner)
        offline = server.call(other, "POST", f"/api/tables/{first}/invite", name="solo")
        assert offline.status_code == 409 and "not connected" in offline.json()["message"]
        unknown = server.call(other, "POST", f"/api/tables/{first}/invite", name="other")
        assert unknown.status_code == 404  # a person, not a bot account
        for invites, status in (("nobody", 403), ("friends", 403), ("anyone", 409)):
            allowed = server.call(owner, "PUT", "/api/bots/solo/invites", invites=invites)
            assert allowed.status_code == 204, allowed.text
            asked = server.call(other, "POST", f"/api/tables/{first}/invite", name="solo")
            assert asked.status_code == status, (invites, asked.text)  # 409: not connected
        wrong = server.call(owner, "PUT", "/api/bots/solo/invites", invites="everyone")
        assert wrong.status_code == 400 and "anyone, friends, nobody" in wrong.json()["message"]
        holder = raw_websocket(server.port, token)
        try:
            asyncio.run(connected(server, "solo"))
            invited = server.call(other, "POST", f"/api/tables/{first}/invite", name="solo")
            assert invited.status_code == 200, invited.text
            again = server.call(owner, "POST", f"/api/tables/{last}/invite", name="solo")
            assert again.status_code == 429 and "1 tables" in again.json()["message"]
        finally:
            holder.close()
        french = server.http.post(
            f"{server.url}/api/tables/{first}/invite",
            json={"name": "nobody"},
            headers={"Authorization": f"Bearer {other}", "Accept-Language": "fr"},
        )
        assert french.json()["message"] == "il n'y a pas de compte de robot nommé nobody"


def test_a_bot_account_that_stops_answering_is_replaced_for_the_game(server: Server) -> None:
    """Connected but silent, its clock runs out: a built-in bot plays its seat to the end,
    and the bot account cannot take the seat back in that game."""
    owner = server.register("sleepy")
    token = bot_of(server, owner, "dozer")
    ana = server.register("anouk")
    table = open_table(server, ana, bots=1, clock=1.0)
    holder = raw_websocket(server.port, token)  # greeted, then reads and answers nothing
    try:
        asyncio.run(connected(server, "dozer"))
        server.call(ana, "POST", f"/api/tables/{table}/invite", name="dozer").raise_for_status()
        server.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()
        asyncio.run(asyncio.wait_for(Player(server, ana, 5).play({table}), 120))
    finally:
        holder.close()
    info = server.http.get(f"{server.url}/api/tables/{table}").json()
    assert info["status"] == "finished"
    assert [seat["replaced"] for seat in info["seats"]] == [False, True, False]
    back = server.call(token, "POST", f"/api/tables/{table}/actions", seq=0, action="0")
    assert back.status_code == 409 and "for the rest of the game" in back.json()["message"]


def test_connect_and_bot_token_from_the_command_line(server: Server, tmp_path: Path) -> None:
    """``tapisvert bot-token --create`` makes the account and prints its token, and
    ``tapisvert connect`` plays with it; a wrong password is refused with the server's words."""
    server.register("operator")
    environment = {**os.environ, "TAPISVERT_PASSWORD": PASSWORD, "TAPISVERT_LANG": "en"}
    command = [sys.executable, "-m", "tapisvert", "bot-token", "clibot", "--owner", "operator"]
    made = subprocess.run(
        [*command, "--server", server.url, "--create"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip().splitlines()[-1]
    wrong = subprocess.run(
        [*command, "--server", server.url],
        capture_output=True,
        text=True,
        env={**environment, "TAPISVERT_PASSWORD": "not-the-one"},
        timeout=60,
    )
    assert wrong.returncode == 2 and "the server refuses" in wrong.stderr
    ana = server.register("anton")
    table = open_table(server, ana, bots=1)
    connecting = subprocess.Popen(
        [sys.executable, "-m", "tapisvert", "connect", "--server", server.url, "--games", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**environment, "TAPISVERT_BOT_TOKEN": token},
    )
    try:
        asyncio.run(connected(server, "clibot"))
        server.call(ana, "POST", f"/api/tables/{table}/invite", name="clibot").raise_for_status()
        server.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()
        asyncio.run(asyncio.wait_for(Player(server, ana, 6).play({table}), 120))
        out, err = connecting.communicate(timeout=60)
    finally:
        connecting.kill()
    assert connecting.returncode == 0, err
    assert "1 games finished" in out


def test_an_account_deleted_takes_its_bots_with_it(server: Server) -> None:
    owner = server.register("leaving")
    token = bot_of(server, owner, "orphan")
    deleted = server.call(owner, "POST", "/api/account/delete", password=PASSWORD)
    assert deleted.status_code == 204, deleted.text
    assert server.http.get(f"{server.url}/api/players/orphan").status_code == 404
    assert server.call(token, "GET", "/api/bots").status_code == 401


@pytest.mark.slow
def test_a_bot_connected_to_one_node_plays_at_a_table_of_the_other(
    steady_nodes: list[Server],  # noqa: F811
) -> None:
    """The bot's program is connected to the second node; a person on the first invites it
    to a table the first serves; it plays there to the end through the bus."""
    first, second = steady_nodes
    owner = first.register("nodeowner")
    token = bot_of(first, owner, "nodebot")
    ana = first.register("annika")
    table = open_table(first, ana)
    client = Client(second.url, token, "random", games=1)

    async def run() -> None:
        bot = asyncio.create_task(client.run())
        await connected(first, "nodebot")
        first.call(ana, "POST", f"/api/tables/{table}/invite", name="nodebot").raise_for_status()
        first.call(ana, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()
        first.call(ana, "POST", f"/api/tables/{table}/start").raise_for_status()
        await asyncio.wait_for(asyncio.gather(Player(first, ana, 7).play({table}), bot), 120)

    asyncio.run(run())
    assert client.played.finished == [table]
    info = first.http.get(f"{first.url}/api/tables/{table}").json()
    assert info["status"] == "finished" and not info["seats"][1]["replaced"]
    assert info["seats"][1]["owner"] == "nodeowner"


def test_the_client_reads_a_bot_or_a_function_by_name() -> None:
    from tapisvert.client import Deciding, player_named

    assert player_named("hard") == "hard"
    assert isinstance(player_named("tapisvert.bots:RandomBot"), type)
    with pytest.raises(ClientError, match="chooses no moves"):
        player_named("tapisvert.bots:nothing_here")
    with pytest.raises(ClientError, match="cannot be reached"):
        request_json("GET", "http://127.0.0.1:9/api/tables/1")
    assert isinstance(deciding(lambda observation, legal: legal[0]), Deciding)


def test_a_banned_owner_takes_their_bots_out_with_them(server: Server) -> None:
    owner = server.register("rascal")
    token = bot_of(server, owner, "sidekick")
    moderator = server.register("keeper")
    granted = admin_command(server, "grant", "keeper", "moderator")
    assert granted.returncode == 0, granted.stderr
    banned = server.call(
        moderator, "POST", "/api/chat", text="/ban rascal forever spam", room="main"
    )
    assert banned.status_code == 200, banned.text
    refused = server.call(token, "GET", "/api/bots")
    assert refused.status_code == 403 and refused.json()["code"] == "banned"
