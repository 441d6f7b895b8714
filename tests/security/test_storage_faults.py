"""The database fails under a running server: a write refused, the file locked by another
process. Nothing is swallowed: the request is refused with a ``storage`` error, memory and
database stay as they were, a bot plays again once the database answers, and the event
loop goes on answering everyone meanwhile.

The faults are real: a trigger that another connection adds to the server's SQLite file
refuses the writes, and a transaction held open by another connection locks the file.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import ClientConnection, connect

from server_support import Server, serving, set_up_table

WAIT = 30.0


def database(server: Server) -> Path:
    return Path(server.database_url.removeprefix("sqlite:///"))


@contextlib.contextmanager
def refusing(server: Server, statement: str, table: str) -> Iterator[None]:
    """While inside, the database refuses every ``statement`` (INSERT, UPDATE) on ``table``."""
    with sqlite3.connect(database(server), isolation_level=None) as con:
        con.execute(
            f"CREATE TRIGGER refuse_{table} BEFORE {statement} ON {table} "
            "BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    try:
        yield
    finally:
        with sqlite3.connect(database(server), isolation_level=None) as con:
            con.execute(f"DROP TRIGGER refuse_{table}")


@contextlib.contextmanager
def locked(server: Server) -> Iterator[None]:
    """While inside, another process holds the database's write lock."""
    con = sqlite3.connect(database(server), isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        yield
    finally:
        con.execute("ROLLBACK")
        con.close()


@contextlib.contextmanager
def greet(server: Server, token: str) -> Iterator[ClientConnection]:
    with connect(server.ws_url) as link:
        link.send(json.dumps({"type": "hello", "version": 1, "token": token}))
        assert json.loads(link.recv(timeout=5))["type"] == "welcome"
        yield link


def answer_to(link: ClientConnection, request: str, timeout: float = WAIT) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while True:
        frame = json.loads(link.recv(timeout=max(0.0, deadline - time.monotonic())))
        if frame.get("id") == request or frame.get("ack") == request:
            return dict(frame)


def seq_of(server: Server, token: str, table: int) -> int:
    return int(server.call(token, "GET", f"/api/tables/{table}/view").json()["seq"])


def rows(server: Server, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(database(server)) as con:
        return list(con.execute(query))


def test_a_bot_move_the_database_refuses_is_played_again_once_it_answers(
    tmp_path: Path,
) -> None:
    """Mended: the bot's refused move was swallowed and its table hung for good."""
    with serving(tmp_path, **{"bot-delay": 0.3}) as server:
        token = server.guest("ana")
        table = set_up_table(server, [token], "wizard", 3)
        with refusing(server, "INSERT", "actions"):
            server.call(token, "POST", f"/api/tables/{table}/leave").raise_for_status()
            stuck = seq_of(server, token, table)
            time.sleep(1.5)
            assert seq_of(server, token, table) == stuck
        deadline = time.monotonic() + WAIT
        while seq_of(server, token, table) < stuck + 3:
            assert time.monotonic() < deadline, "the bots did not play again"
            time.sleep(0.2)
        logged = rows(server, f"SELECT COUNT(*) FROM actions WHERE table_id = {table}")
        assert logged[0][0] >= stuck + 3


def test_a_move_the_database_refuses_gets_a_storage_error_and_changes_nothing(
    tmp_path: Path,
) -> None:
    with serving(tmp_path) as server:
        tokens = [server.guest("ana"), server.guest("bob")]
        table = set_up_table(server, tokens, "luz", 3)
        view = server.call(tokens[0], "GET", f"/api/tables/{table}/view").json()
        mover = tokens[0] if view["to_act"] == 0 else tokens[1]
        view = server.call(mover, "GET", f"/api/tables/{table}/view").json()
        move = {"type": "act", "table": table, "seq": view["seq"], "action": view["legal"][0]}
        with greet(server, mover) as link, refusing(server, "INSERT", "actions"):
            link.send(json.dumps({**move, "id": "m1"}))
            refusal = answer_to(link, "m1")
            assert refusal["type"] == "error" and refusal["code"] == "storage"
            assert seq_of(server, mover, table) == view["seq"]
        with greet(server, mover) as link:
            link.send(json.dumps({**move, "id": "m2"}))
            assert answer_to(link, "m2")["type"] != "error"


def test_table_commands_the_database_refuses_change_neither_memory_nor_database(
    tmp_path: Path,
) -> None:
    """Mended: '/bot add' and '/start' dropped the connection and left a table 'playing'
    with no game."""
    with serving(tmp_path) as server:
        token = server.guest("ana")
        table = int(
            server.call(token, "POST", "/api/tables", game="luz", players=3).json()["table"]
        )
        with refusing(server, "UPDATE", "game_tables"), greet(server, token) as link:
            link.send(json.dumps({"type": "bot", "table": table, "level": "easy", "id": "b"}))
            refusal = answer_to(link, "b")
            assert refusal["type"] == "error" and refusal["code"] == "storage"
            response = server.call(token, "POST", f"/api/tables/{table}/bots", level="easy")
            assert response.status_code == 503 and response.json()["code"] == "storage", (
                response.text
            )
        info = server.call(token, "GET", f"/api/tables/{table}").json()
        assert [seat["kind"] for seat in info["seats"]] == ["human", "empty", "empty"]
        for _ in range(2):
            server.call(token, "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
        with refusing(server, "INSERT", "actions"), greet(server, token) as link:
            link.send(json.dumps({"type": "start", "table": table, "id": "s"}))
            refusal = answer_to(link, "s")
            assert refusal["type"] == "error" and refusal["code"] == "storage"
        assert server.call(token, "GET", f"/api/tables/{table}").json()["status"] == "open"
        assert rows(server, f"SELECT status FROM game_tables WHERE id = {table}") == [("open",)]
        server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()
        assert server.call(token, "GET", f"/api/tables/{table}").json()["status"] == "playing"


def test_a_guest_the_database_refuses_gets_a_storage_error(tmp_path: Path) -> None:
    """Mended: ``/api/guest`` answered 500."""
    with serving(tmp_path) as server, refusing(server, "INSERT", "users"):
        response = server.http.post(f"{server.url}/api/guest", json={"name": "ana"})
        assert response.status_code == 503
        assert response.json()["code"] == "storage"


@pytest.mark.slow
def test_a_request_waiting_on_a_locked_database_gets_the_servers_own_answer(
    tmp_path: Path,
) -> None:
    """The relay gave up on the server after 5 s, as long as SQLite waits on a lock, and
    answered 502 ("the server is not answering") for what the server refused with 503."""
    with serving(tmp_path) as server:
        token = server.guest("ana")
        with locked(server):
            response = server.call(token, "POST", "/api/tables", game="luz", players=3)
        assert response.status_code == 503 and response.json()["code"] == "storage"
        retried = server.call(token, "POST", "/api/tables", game="luz", players=3)
        assert retried.status_code == 200


def test_pings_are_answered_while_another_process_locks_the_database(tmp_path: Path) -> None:
    """Mended: commits ran on the event loop and waited out the busy timeout, so every
    client waited too. A move waits for the lock; pings do not."""
    with serving(tmp_path) as server:
        tokens = [server.guest("ana"), server.guest("bob")]
        table = set_up_table(server, tokens, "luz", 3)
        view = server.call(tokens[0], "GET", f"/api/tables/{table}/view").json()
        mover = tokens[0] if view["to_act"] == 0 else tokens[1]
        other = tokens[1] if mover == tokens[0] else tokens[0]
        view = server.call(mover, "GET", f"/api/tables/{table}/view").json()
        with greet(server, mover) as moving, greet(server, other) as pinging:
            with locked(server):
                moving.send(
                    json.dumps(
                        {
                            "type": "act",
                            "table": table,
                            "seq": view["seq"],
                            "action": view["legal"][0],
                            "id": "m",
                        }
                    )
                )
                time.sleep(0.2)
                slowest = 0.0
                for number in range(10):
                    sent = time.monotonic()
                    pinging.send(json.dumps({"type": "ping", "id": f"p{number}"}))
                    answer_to(pinging, f"p{number}")
                    slowest = max(slowest, time.monotonic() - sent)
                    time.sleep(0.1)
            assert slowest < 0.5, f"a ping waited {slowest:.2f} s for the database"
            answer = answer_to(moving, "m")
            assert answer.get("type") == "view" or answer.get("code") == "storage"
