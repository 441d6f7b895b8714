"""An account's end and its data, through a running server: a person downloads what the
server keeps of them, then deletes their account; their games stay for the others, with a
placeholder where their name was, and replay to the same end."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
import websockets

from tapisvert.server.storage import ERASED_NAME

from server_support import Player, Server, admin_command, serving

PASSWORD = "secret-enough"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("account_life")) as running:
        yield running


def register(server: Server, name: str) -> str:
    response = server.http.post(
        f"{server.url}/api/register", json={"name": name, "password": PASSWORD}
    )
    response.raise_for_status()
    return str(response.json()["token"])


def finished_game(server: Server, tokens: list[str]) -> int:
    """A one-round Wizard game of the two people and an easy bot, played to its end."""
    created = server.call(
        tokens[0], "POST", "/api/tables", game="wizard", players=3, options={"rounds": "1"}
    )
    table = int(created.json()["table"])
    server.call(tokens[1], "POST", f"/api/tables/{table}/join", seat=1).raise_for_status()
    server.call(tokens[0], "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    server.call(tokens[0], "POST", f"/api/tables/{table}/start").raise_for_status()
    players = [Player(server, token, seed) for seed, token in enumerate(tokens)]

    async def play() -> None:
        await asyncio.gather(*(player.play({table}) for player in players))

    asyncio.run(asyncio.wait_for(play(), 60))
    return table


def test_a_deleted_account_leaves_its_games_to_the_others_under_a_placeholder(
    server: Server,
) -> None:
    ana, bob = register(server, "ana"), register(server, "bob")
    table = finished_game(server, [ana, bob])
    before = server.record(table)
    assert before.seats[:2] == ["ana", "bob"]

    told = server.call(bob, "POST", "/api/messages", to="ana", text="well played")
    assert told.status_code == 200, told.text
    server.call(bob, "POST", "/api/friends", name="ana").raise_for_status()
    data = server.call(ana, "GET", "/api/account/data")
    assert data.status_code == 200
    assert "attachment" in data.headers["content-disposition"]
    downloaded = data.json()
    assert downloaded["name"] == "ana" and not downloaded["guest"]
    [game] = downloaded["games"]
    assert game["table"] == table and game["players"][:2] == ["ana", "bob"]
    assert game["seat"] == 1 and game["record"] == f"/api/tables/{table}/record"
    assert [rating["game"] for rating in downloaded["ratings"]] == ["wizard"]
    [message] = downloaded["messages"]
    assert (message["from"], message["to"], message["text"]) == ("bob", "ana", "well played")

    wrong = server.call(ana, "POST", "/api/account/delete", password="not-it")
    assert wrong.status_code == 401 and wrong.json()["code"] == "bad_login"
    waiting = int(server.call(ana, "POST", "/api/tables", game="luz", players=3).json()["table"])
    seated = server.call(ana, "POST", "/api/account/delete", password=PASSWORD)
    assert seated.status_code == 409 and seated.json()["code"] == "leave_tables_first"
    assert str(waiting) in seated.json()["message"]
    server.call(ana, "POST", f"/api/tables/{waiting}/leave").raise_for_status()

    async def delete_while_connected() -> dict[str, object]:
        async with websockets.connect(server.ws_url) as link:
            await link.send(json.dumps({"type": "hello", "version": 1, "token": ana}))
            await link.recv()
            deleted = await asyncio.to_thread(
                server.call, ana, "POST", "/api/account/delete", password=PASSWORD
            )
            assert deleted.status_code == 204
            while True:  # the connection is told, then closed
                frame = json.loads(await link.recv())
                if frame["type"] == "error":
                    return dict(frame)

    assert asyncio.run(delete_while_connected())["code"] == "signed_out"

    gone = server.call(ana, "GET", "/api/account/data")
    assert gone.status_code == 401 and gone.json()["code"] == "bad_token"
    login = server.http.post(f"{server.url}/api/login", json={"name": "ana", "password": PASSWORD})
    assert login.status_code == 401
    assert server.http.get(f"{server.url}/api/players/ana").status_code == 404

    after = server.record(table)
    assert after.seats[:2] == [ERASED_NAME, "bob"]
    assert after.actions == before.actions and after.result == before.result
    assert after.replay().returns() == before.result
    seen_by_anyone = [
        server.http.get(f"{server.url}/api/tables/{table}").text,
        server.http.get(f"{server.url}/api/tables/{table}/record").text,
        server.http.get(f"{server.url}/api/players/bob").text,
        server.http.get(f"{server.url}/api/leaderboards/wizard", params={"minimum": 0}).text,
        replay_text(server.http.get(f"{server.url}/api/tables/{table}/replay")),
    ]
    for text in seen_by_anyone:
        assert '"ana"' not in text and "ana\n" not in text
    assert ERASED_NAME in seen_by_anyone[0] and ERASED_NAME in seen_by_anyone[2]
    assert server.call(bob, "GET", "/api/messages").json() == []  # the conversation went
    ties = server.call(bob, "GET", "/api/social").text
    assert "ana" not in ties and "deleted" not in ties  # and the request to be friends
    assert register(server, "ana")  # the name is free again


def test_a_guest_deletes_without_a_password_and_bad_requests_change_nothing(
    server: Server,
) -> None:
    guest = server.guest("passing")
    assert server.call(guest, "GET", "/api/account/data").json()["games"] == []
    refused = server.http.post(f"{server.url}/api/account/delete", json={"password": ""})
    assert refused.status_code == 401
    malformed = server.call(guest, "POST", "/api/account/delete", password=["x"])
    assert malformed.status_code == 400 and "password" in malformed.json()["message"]
    assert server.call(guest, "GET", "/api/account/data").status_code == 200
    assert server.call(guest, "POST", "/api/account/delete").status_code == 204
    assert server.call(guest, "GET", "/api/account/data").status_code == 401
    spent = server.http.post(
        f"{server.url}/api/password-reset", json={"key": "made-up", "password": PASSWORD}
    )
    assert spent.status_code == 404 and spent.json()["code"] == "bad_reset_link"


def test_an_administrators_link_sets_a_new_password_once(server: Server) -> None:
    carl, bob, root = (
        register(server, "carl"),
        register(server, "bob-reset"),
        register(server, "root"),
    )
    bot = server.call(bob, "POST", "/api/moderation/reset-links", name="carl")
    assert bot.status_code == 403 and bot.json()["code"] == "not_administrator"
    by_console = admin_command(server, "reset-link", "carl", "--url", "https://cards.example")
    assert by_console.returncode == 0, by_console.stderr
    first = by_console.stdout.split("#reset=")[1].split()[0]
    assert "https://cards.example/#reset=" in by_console.stdout

    assert admin_command(server, "grant", "root", "administrator").returncode == 0
    for nobody in ("bot easy", "nobody-here", "passing-by"):  # a bot, no one, a guest
        made = server.call(root, "POST", "/api/moderation/reset-links", name=nobody)
        assert made.status_code == 404 and made.json()["code"] == "no_such_account"
    made = server.call(root, "POST", "/api/moderation/reset-links", name="carl")
    assert made.status_code == 200
    key = made.json()["link"].removeprefix("/#reset=")

    def spend(key: str, password: str) -> httpx.Response:
        return server.http.post(
            f"{server.url}/api/password-reset", json={"key": key, "password": password}
        )

    assert spend(first, "a-new-one").json()["code"] == "bad_reset_link"  # replaced
    assert spend(key, "short").json()["code"] == "short_password"  # and the link still works
    done = spend(key, "a-new-one")
    assert done.status_code == 200 and done.json() == {"user": "carl"}
    assert spend(key, "another-one").json()["code"] == "bad_reset_link"  # once only
    assert server.call(carl, "GET", "/api/account/data").status_code == 401  # sessions ended
    login = "/api/login"
    old = server.http.post(f"{server.url}{login}", json={"name": "carl", "password": PASSWORD})
    new = server.http.post(f"{server.url}{login}", json={"name": "carl", "password": "a-new-one"})
    assert old.status_code == 401 and new.status_code == 200
    audit = server.call(root, "GET", "/api/moderation").json()["audit"]
    made_links = [(row["actor"], row["target"]) for row in audit if row["action"] == "reset_link"]
    assert sorted(made_links) == [("(console)", "carl"), ("root", "carl")]


def replay_text(response: httpx.Response) -> str:
    response.raise_for_status()
    return response.text
