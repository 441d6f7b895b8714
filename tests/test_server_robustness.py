"""Bad input: malformed, hostile, out-of-turn, repeated and oversized messages, and floods.

Each one gets a clear error, to its sender alone, and changes nothing at the table.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tapisvert.server import protocol

from server_support import Server, serving

PEOPLE = ("ana", "bob", "cy", "dee")


@dataclass
class Arena:
    server: Server
    table: int
    other_table: int
    views: dict[str, str]
    links: dict[str, ClientConnection]
    """Connections of the people who may not move now, and of mallory, who does not sit."""
    tokens: dict[str, str]


def greet(link: ClientConnection, token: str) -> ClientConnection:
    link.send(json.dumps({"type": "hello", "version": 1, "token": token}))
    assert json.loads(link.recv(timeout=5))["type"] == "welcome"
    return link


def drain(link: ClientConnection) -> None:
    try:
        while True:
            link.recv(timeout=0.3)
    except TimeoutError:
        return


def views(server: Server, tokens: dict[str, str], table: int) -> dict[str, str]:
    return {
        name: server.call(token, "GET", f"/api/tables/{table}/view").text
        for name, token in tokens.items()
    }


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    stack = contextlib.ExitStack()
    server = stack.enter_context(serving(tmp_path_factory.mktemp("robustness"), rate=100000.0))
    tokens = {name: server.guest(name) for name in (*PEOPLE, "mallory")}
    table = server.call(tokens["ana"], "POST", "/api/tables", game="wizard", players=4)
    table_id = int(table.json()["table"])
    for seat, name in enumerate(PEOPLE[1:], start=1):
        server.call(tokens[name], "POST", f"/api/tables/{table_id}/join", seat=seat)
    server.call(tokens["ana"], "POST", f"/api/tables/{table_id}/start").raise_for_status()
    other = server.call(server.guest("owner"), "POST", "/api/tables", game="luz", players=3)
    seated = {name: tokens[name] for name in PEOPLE}
    snapshot = views(server, seated, table_id)
    to_act = json.loads(snapshot["ana"])["to_act"]
    # No keep-alive pings: the client draws their payloads from the ``random`` module in a
    # thread of its own, which Hypothesis takes for a strategy drawing from it.
    links = {
        name: greet(
            stack.enter_context(connect(server.ws_url, max_size=None, ping_interval=None)),
            tokens[name],
        )
        for name in (*PEOPLE, "mallory")
        if name != PEOPLE[to_act]
    }
    for link in links.values():
        drain(link)
    for link in links.values():
        link.send(json.dumps({"type": "who", "id": "dup-1", "table": table_id}))
        assert json.loads(link.recv(timeout=5))["type"] == "people"
    yield Arena(server, table_id, int(other.json()["table"]), snapshot, links, seated)
    stack.close()


def hostile_messages(table: int, other: int, seq: int) -> st.SearchStrategy[str]:
    tables = st.sampled_from([table, other, 999, 0, -1, "1", None])
    seqs = st.sampled_from([seq, seq - 1, seq + 1, 10**12, -5, "0", None])
    actions = st.one_of(
        st.sampled_from(["bid 0", "bid 1", "play B1", "trump R", "", "x" * 80]),
        st.text(max_size=70),
    )
    acts = st.fixed_dictionaries(
        {"type": st.just("act"), "table": tables, "seq": seqs, "action": actions}
    ).map(json.dumps)
    commands = st.sampled_from(
        ["/start", "/option rounds 3", "/bot add easy", "/bot add hal", "/join 99", "/frob", "/ x"]
    )
    chats = st.builds(
        lambda text, where: json.dumps({"type": "chat", "text": text, **where}),
        st.one_of(commands, st.just("x" * 600)),
        st.sampled_from([{"table": table}, {"table": 999}, {"room": "nowhere"}]),
    )
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=8), children, max_size=4)
        ),
        max_leaves=12,
    ).map(json.dumps)
    fixed = st.sampled_from(
        [
            json.dumps({"type": "hello", "version": 1, "token": "forged.token.value"}),
            json.dumps({"type": "who", "id": "dup-1", "table": table}),
            json.dumps({"type": "start", "table": table}),
            json.dumps({"type": "option", "table": table, "name": "rounds", "value": "3"}),
            json.dumps({"type": "bot", "table": other, "level": "easy"}),
            json.dumps({"type": "create", "room": "main", "game": "chess", "players": 2}),
            json.dumps({"type": "create", "room": "main", "game": "luz", "players": 9}),
            json.dumps({"type": "enter", "room": "nowhere"}),
            json.dumps({"type": "chat", "text": "hi"}),
            json.dumps({"type": "act", "table": table, "seq": seq, "action": "bid 0", "x": 1}),
            '{"type": "act", "table": ' + str(table) + ', "seq": ' + "9" * 5000 + "}",
            "x" * 100_000,
            "{" * 3000,
            "",
            "null",
            "\u0000\ud7ff",
        ]
    )
    return st.one_of(acts, chats, json_values, st.text(max_size=200), fixed).filter(
        lambda text: (
            not _valid(text)
            or json.loads(text).get("type") in {"act", "chat", "start", "option", "bot", "create"}
        )
    )


def _valid(text: str) -> bool:
    try:
        protocol.incoming.validate_json(text)
    except ValueError:
        return False
    return True


def current_seq(arena: Arena) -> int:
    return int(json.loads(arena.views["ana"])["seq"])


@pytest.mark.slow
@settings(
    max_examples=250,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_hostile_messages_get_an_error_and_change_nothing(
    arena: Arena, data: st.DataObject
) -> None:
    sender = data.draw(st.sampled_from(sorted(arena.links)))
    text = data.draw(hostile_messages(arena.table, arena.other_table, current_seq(arena)))
    link = arena.links[sender]
    link.send(text)
    answer = json.loads(link.recv(timeout=5))
    assert answer["type"] == "error", (text[:200], answer)
    assert answer["code"] and len(answer["message"]) > 10
    for name, other in arena.links.items():
        if name != sender:
            with pytest.raises(TimeoutError):
                leaked = other.recv(timeout=0.001)
                pytest.fail(f"{name} heard of {sender}'s {text[:80]!r}: {leaked!r}")
    assert views(arena.server, arena.tokens, arena.table) == arena.views


def test_too_big_a_frame_closes_that_connection_only(arena: Arena) -> None:
    with connect(arena.server.ws_url, max_size=None) as link:
        greet(link, arena.tokens["ana"])
        with pytest.raises(ConnectionClosed):
            link.send("x" * (2 << 20))
            while True:
                link.recv(timeout=5)
        # 1009, "message too big"; or an abnormal closure (1006, or no code yet) when the
        # close came while the rest of the frame was still on its way, so that the kernel
        # reset the connection before the close frame was read.
        assert link.close_code in {1009, 1006, None}
    assert views(arena.server, arena.tokens, arena.table) == arena.views


@pytest.mark.parametrize(
    "first",
    [
        {"type": "who"},
        {"type": "hello", "version": 1, "token": "not-a-token"},
        {"type": "hello", "version": 99, "token": "x"},
    ],
)
def test_a_connection_must_start_with_a_valid_hello(arena: Arena, first: dict[str, Any]) -> None:
    with connect(arena.server.ws_url) as link:
        link.send(json.dumps(first))
        answer = json.loads(link.recv(timeout=5))
        assert answer["type"] == "error" and answer["message"]
        with pytest.raises(ConnectionClosed):
            link.recv(timeout=5)


def test_http_refusals_say_what_is_wrong(arena: Arena) -> None:
    server, table = arena.server, arena.table
    anonymous = httpx.post(f"{server.url}/api/tables", json={"game": "luz", "players": 3})
    assert anonymous.status_code == 401 and "sign in" in anonymous.json()["message"]
    malformed = server.call(arena.tokens["ana"], "POST", "/api/tables", game="luz")
    assert malformed.status_code == 400 and "players" in malformed.json()["message"]
    seq = current_seq(arena)
    to_act = json.loads(arena.views["ana"])["to_act"]
    waiting = next(name for index, name in enumerate(PEOPLE) if index != to_act)
    out_of_turn = server.call(
        arena.tokens[waiting], "POST", f"/api/tables/{table}/actions", seq=seq, action="bid 0"
    )
    assert out_of_turn.status_code == 409 and out_of_turn.json()["code"] == "not_your_turn"
    french = httpx.post(
        f"{server.url}/api/login",
        json={"name": "ana", "password": "nope"},
        headers={"Accept-Language": "fr-FR"},
    )
    assert french.status_code == 401 and "mot de passe" in french.json()["message"]
    record = httpx.get(f"{server.url}/api/tables/{table}/record")
    assert record.status_code == 409 and record.json()["code"] == "not_finished"
    assert views(server, arena.tokens, table) == arena.views


def test_a_flood_is_slowed_down_and_the_connection_recovers(tmp_path: Path) -> None:
    with serving(tmp_path) as server, connect(server.ws_url) as link:
        flood(greet(link, server.guest("flood")))


def test_a_repeated_request_id_is_refused_while_it_is_among_the_last_64(tmp_path: Path) -> None:
    with serving(tmp_path, rate=1000) as server, connect(server.ws_url) as link:
        greet(link, server.guest("repeats"))

        def answer(request_id: str) -> dict[str, Any]:
            link.send(json.dumps({"type": "ping", "id": request_id}))
            return dict(json.loads(link.recv(timeout=5)))

        assert answer("r0")["type"] == "ack"
        refused = answer("r0")
        assert refused["type"] == "error" and refused["code"] == "duplicate"
        assert refused["id"] == "r0" and "r0" in refused["message"]
        for number in range(1, 65):
            assert answer(f"r{number}")["type"] == "ack"
        assert answer("r0")["type"] == "ack"  # 64 others since: forgotten
        assert answer("r64")["code"] == "duplicate"


def flood(link: ClientConnection) -> None:
    """Three hundred pings at once: most are refused, later ones are answered again."""
    for number in range(300):
        link.send(json.dumps({"type": "ping", "id": f"p{number}"}))
    answers = [json.loads(link.recv(timeout=5)) for _ in range(300)]
    refused = [answer for answer in answers if answer["type"] == "error"]
    assert len(refused) > 200
    assert {answer["code"] for answer in refused} == {"rate_limited"}
    time.sleep(1.5)  # the rate's allowance comes back with time: what is tested
    link.send(json.dumps({"type": "ping", "id": "after"}))
    assert json.loads(link.recv(timeout=5)) == {
        "type": "ack",
        "id": "after",
        "table": None,
        "seq": None,
    }


@pytest.mark.parametrize(
    ("method", "path", "body", "english", "french"),
    [
        ("POST", "/api/guest", {"name": ""}, "the name is empty", "le nom est vide"),
        (
            "POST",
            "/api/guest",
            {"name": "x" * 40},
            "the name is too long (32 characters at most)",
            "le nom dépasse 32 caractères",
        ),
        ("POST", "/api/guest", None, "the content of the request is missing", None),
        (
            "POST",
            "/api/tables",
            {"game": "luz", "players": 40},
            "the number of players must be at most 16",
            "le nombre de joueurs doit valoir au plus 16",
        ),
        (
            "POST",
            "/api/tables",
            {"game": "luz", "players": "many"},
            "the number of players must be a whole number",
            None,
        ),
        (
            "POST",
            "/api/tables",
            {"game": "luz", "players": 3, "clock": 0.5},
            "the time per move (in seconds: 86400 for a day) must be at least 1",
            "le temps par coup (en secondes : 86400 pour un jour) doit valoir au moins 1",
        ),
        (
            "POST",
            "/api/tables",
            {"game": "luz", "players": 3, "options": {"deals": [2]}},
            "the option deals must be a word, a number, true or false",
            None,
        ),
        ("POST", "/api/tables/x/join", {}, "the table number must be a whole number", None),
        (
            "GET",
            "/api/tables/1/record?format=pdf",
            None,
            "the format must be one of: 'json', 'text'",
            None,
        ),
    ],
)
def test_http_requests_that_do_not_fit_are_explained_in_words(
    arena: Arena,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    english: str,
    french: str | None,
) -> None:
    headers = {"Authorization": f"Bearer {arena.tokens['ana']}"}
    for language, text in (("en", english), ("fr", french)):
        answer = httpx.request(
            method,
            f"{arena.server.url}{path}",
            json=body,
            headers={**headers, "Accept-Language": language},
        )
        assert answer.status_code == 400
        assert answer.json()["code"] == "malformed"
        if text is not None:
            assert answer.json()["message"] == text


@pytest.mark.parametrize(
    ("message", "english", "french"),
    [
        (
            {"type": "chat", "text": "", "room": "main"},
            "the message is empty",
            "le message est vide",
        ),
        ({"type": "join", "table": 1, "seat": 16}, "the seat must be at most 15", None),
        (
            {"type": "act", "table": 1, "action": "bid 1"},
            "the position number (seq) is missing",
            None,
        ),
        (
            {"type": "who", "colour": "red"},
            "the field colour does not belong in this message",
            "le champ colour n'a pas sa place dans ce message",
        ),
        ({"type": "shout"}, "'shout' is not a type of message; the types are: 'hello'", None),
        ({"table": 1}, "the message does not say its type", "le message ne dit pas son type"),
        ([1, 2], "the message must be a JSON object", None),
    ],
)
def test_messages_that_do_not_fit_are_explained_in_words(
    arena: Arena, message: Any, english: str, french: str | None
) -> None:
    for language, text in (("en", english), ("fr", french)):
        with connect(arena.server.ws_url) as link:
            hello = {"type": "hello", "version": 1, "token": arena.tokens["ana"]}
            link.send(json.dumps({**hello, "language": language}))
            assert json.loads(link.recv(timeout=5))["type"] == "welcome"
            link.send(json.dumps(message))
            answer = json.loads(link.recv(timeout=5))
            while answer["type"] != "error":  # the views of ana's seat come first
                answer = json.loads(link.recv(timeout=5))
            assert answer["code"] == "malformed"
            if text is not None:
                assert answer["message"].startswith(text)
