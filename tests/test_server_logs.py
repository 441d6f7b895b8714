"""The server's logs as JSON lines (``--log-format json``), at the debug level, over a whole
game: an account made, signed in, its password changed and reset, a game played through
the real server, signed out. Every line is a JSON object; the lines about a table, a person
or the node name them; no password, token, session, signing key or reset key is in any."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from tapisvert.server.logs import FORMATTERS, USER, Context, about_table
from tapisvert.server.storage.engine import make_engine

from server_support import Server, admin_command, one_round_game, serving, sqlite_url

KEY = secrets.token_urlsafe(32)
PASSWORDS = ["first-" + secrets.token_hex(6), "second-" + secrets.token_hex(6)]
RESET_PASSWORD = "third-" + secrets.token_hex(6)
WRONG_PASSWORD = "wrong-" + secrets.token_hex(6)


@dataclass
class Logged:
    lines: list[str]
    table: int
    secrets: dict[str, str]
    """What must not be logged, by what it is."""


def session_of(token: str) -> str:
    """The session a token carries (the database keeps only its hash)."""
    signed = URLSafeTimedSerializer(KEY, salt="tapisvert-session").loads(token)
    return str(signed["session"])


def sign_in(server: Server, password: str) -> str:
    answer = server.http.post(f"{server.url}/api/login", json={"name": "ana", "password": password})
    answer.raise_for_status()
    return str(answer.json()["token"])


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logged]:
    folder = tmp_path_factory.mktemp("logs")
    (folder / "key").write_text(KEY)
    found: dict[str, str] = {"signing key": KEY, "wrong password": WRONG_PASSWORD}
    settings = {"log-format": "json", "log-level": "debug", "secret-key-file": str(folder / "key")}
    with serving(folder, **settings) as server:
        made = server.http.post(
            f"{server.url}/api/register", json={"name": "ana", "password": PASSWORDS[0]}
        )
        made.raise_for_status()
        tokens = [str(made.json()["token"]), sign_in(server, PASSWORDS[0])]
        refused = server.http.post(
            f"{server.url}/api/login", json={"name": "ana", "password": WRONG_PASSWORD}
        )
        assert refused.status_code == 401
        changed = server.call(
            tokens[1], "POST", "/api/password", old=PASSWORDS[0], new=PASSWORDS[1]
        )
        assert changed.status_code == 204
        link = admin_command(server, "reset-link", "ana")
        assert link.returncode == 0, link.stderr
        reset_key = link.stdout.split("#reset=")[1].split()[0]
        reset = server.http.post(
            f"{server.url}/api/password-reset", json={"key": reset_key, "password": RESET_PASSWORD}
        )
        reset.raise_for_status()
        tokens.append(sign_in(server, RESET_PASSWORD))
        table = one_round_game(server, tokens[-1])
        assert server.call(tokens[-1], "POST", "/api/logout").status_code == 204
        found |= {"reset key": reset_key, "reset password": RESET_PASSWORD}
        for number, password in enumerate(PASSWORDS):
            found[f"password {number}"] = password
        for number, token in enumerate(tokens):
            found[f"token {number}"] = token
            found[f"session {number}"] = session_of(token)
    yield Logged((folder / "server.log").read_text().splitlines(), table, found)


def records(logged: Logged) -> list[dict[str, Any]]:
    return [json.loads(line) for line in logged.lines if line]


def test_every_line_is_a_json_object_with_time_level_logger_and_message(logged: Logged) -> None:
    lines = [line for line in logged.lines if line]
    assert len(lines) > 20
    for line in lines:
        record = json.loads(line)
        assert {"time", "level", "logger", "message"} <= record.keys(), line
    levels = {record["level"] for record in records(logged)}
    assert "DEBUG" in levels and "INFO" in levels


def test_the_lines_about_a_table_a_person_or_the_node_name_them(logged: Logged) -> None:
    every = records(logged)
    about_the_game = [record for record in every if record.get("table") == logged.table]
    assert any(record["message"] == "the game starts" for record in about_the_game)
    assert any(record["message"] == "the game is over" for record in about_the_game)
    # a person's moves name them; the bots' moves name nobody
    moves = [record for record in about_the_game if record["message"].startswith("position")]
    assert {record.get("user") for record in moves} == {"ana", None}
    assert all(record.get("node") for record in about_the_game)
    sessions = [record for record in every if "session" in record["message"]]
    assert sessions and all(record.get("user") == "ana" for record in sessions)
    assert any(record["message"] == "a session ends: signed out" for record in sessions)
    # uvicorn's own lines: every request names the node, an authenticated one its person
    requests = [record for record in every if record["logger"] == "uvicorn.access"]
    assert requests and all(record.get("node") for record in requests)
    logout = [record for record in requests if "/api/logout" in record["message"]]
    assert logout and logout[0].get("user") == "ana"
    assert any("table" not in record for record in every)  # only where it applies


def test_no_secret_nor_frame_is_logged(logged: Logged) -> None:
    """Not a secret, nor a piece of one (12 characters in a row), nor a frame sent or
    received (a seat's view shows its hidden cards; the hello carries a token)."""
    text = "\n".join(logged.lines)
    leaked = [
        what
        for what, value in logged.secrets.items()
        if any(value[start : start + 12] in text for start in range(len(value) - 11))
    ]
    assert not leaked
    assert not [record for record in records(logged) if '"type":' in record["message"]]


def test_a_refused_statement_keeps_its_values_out_of_its_error(tmp_path: Path) -> None:
    """What the storage logs of a refused write names no value of it (a signing key, say)."""
    engine = make_engine(sqlite_url(tmp_path))
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE kept (value TEXT UNIQUE)"))
        connection.execute(text("INSERT INTO kept VALUES (:value)"), {"value": KEY})
    with pytest.raises(IntegrityError) as refused, engine.begin() as connection:
        connection.execute(text("INSERT INTO kept VALUES (:value)"), {"value": KEY})
    assert "UNIQUE" in str(refused.value) and KEY not in str(refused.value)


@pytest.mark.parametrize("form", ["text", "json"])
def test_a_line_names_the_table_and_the_person_only_where_they_apply(form: str) -> None:
    line = FORMATTERS[form]()
    context = Context()

    def logged(message: str) -> str:
        record = logging.LogRecord("tapisvert.test", logging.INFO, __file__, 1, message, (), None)
        context.filter(record)
        return line.format(record)

    async def handled() -> tuple[str, str]:
        USER.set("ana")
        with about_table(7):
            inside = logged("at the table")
        return inside, logged("after")

    inside, after = asyncio.run(handled())  # a task: what it sets stays in it
    outside = logged("elsewhere")
    if form == "json":
        assert json.loads(inside) | {"time": None} == {
            "level": "INFO", "logger": "tapisvert.test", "message": "at the table",
            "table": 7, "user": "ana", "time": None,
        }  # fmt: skip
        assert "table" not in json.loads(after) and json.loads(after)["user"] == "ana"
        assert {"table", "user"}.isdisjoint(json.loads(outside))
    else:
        assert inside.endswith("INFO tapisvert.test [table=7 user=ana]: at the table")
        assert after.endswith("INFO tapisvert.test [user=ana]: after")
        assert outside.endswith("INFO tapisvert.test: elsewhere")
