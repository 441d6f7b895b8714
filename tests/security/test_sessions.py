"""Mended: sessions. The signing key, stored in clear in the database, let whoever read
the database sign a session token for anyone; given from the environment, it is not stored,
and a token must also name an open session, of which the database keeps only a hash. A
30-day token that signing out could not revoke: signing out and changing a password now
close sessions on the server."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy import inspect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server_support import Server, engine_for, migrate, serving

KEY = "k" * 24 + "0123456789abcdef"


@pytest.mark.parametrize("source", ["variable", "file"])
def test_a_signing_key_from_the_environment_is_used_and_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    if source == "variable":
        monkeypatch.setenv("TAPISVERT_SECRET_KEY", KEY)
    else:
        (tmp_path / "key").write_text(KEY + "\n")
        monkeypatch.setenv("TAPISVERT_SECRET_KEY_FILE", str(tmp_path / "key"))
    with serving(tmp_path) as server:
        token = server.guest("ana")
        signed = URLSafeTimedSerializer(KEY, salt="tapisvert-session").loads(token)
        assert isinstance(signed["user"], int) and isinstance(signed["session"], str)
        database = server.database_url.removeprefix("sqlite:///")
        with sqlite3.connect(database) as con:
            stored = [value for (value,) in con.execute("SELECT value FROM settings")]
        assert KEY not in stored
        mine = server.call(token, "POST", "/api/tables", game="luz", players=3)
        assert mine.status_code == 200


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("sessions")) as running:
        yield running


def account(server: Server, name: str, password: str = "secret1") -> str:
    answer = server.http.post(
        f"{server.url}/api/register", json={"name": name, "password": password}
    )
    answer.raise_for_status()
    return str(answer.json()["token"])


def sign_in(server: Server, name: str, password: str = "secret1") -> str:
    answer = server.http.post(f"{server.url}/api/login", json={"name": name, "password": password})
    answer.raise_for_status()
    return str(answer.json()["token"])


def may_create_a_table(server: Server, token: str) -> bool:
    answer = server.call(token, "POST", "/api/tables", game="wizard", players=3)
    assert answer.status_code in {200, 401}, answer.text
    return answer.status_code == 200


def test_signing_out_closes_that_session_and_its_sockets_only(server: Server) -> None:
    laptop = account(server, "bea")
    phone = sign_in(server, "bea")
    with connect(server.ws_url) as link:
        link.send(json.dumps({"type": "hello", "version": 1, "token": laptop}))
        assert json.loads(link.recv(timeout=5))["type"] == "welcome"
        assert server.call(laptop, "POST", "/api/logout").status_code == 204
        frames = []
        with pytest.raises(ConnectionClosed):
            while True:
                frames.append(json.loads(link.recv(timeout=5)))
    assert frames[-1]["code"] == "signed_out"
    assert not may_create_a_table(server, laptop)
    assert may_create_a_table(server, phone)
    with connect(server.ws_url) as link:
        link.send(json.dumps({"type": "hello", "version": 1, "token": laptop}))
        assert json.loads(link.recv(timeout=5))["code"] == "bad_token"


def test_a_new_password_ends_every_other_session(server: Server) -> None:
    this, other = account(server, "cid"), sign_in(server, "cid")
    wrong = server.call(this, "POST", "/api/password", old="not it", new="another1")
    assert wrong.status_code == 401 and wrong.json()["code"] == "bad_login"
    assert may_create_a_table(server, other)
    with connect(server.ws_url) as link:
        link.send(json.dumps({"type": "hello", "version": 1, "token": other}))
        assert json.loads(link.recv(timeout=5))["type"] == "welcome"
        changed = server.call(this, "POST", "/api/password", old="secret1", new="another1")
        assert changed.status_code == 204
        frames = []
        with pytest.raises(ConnectionClosed):
            while True:
                frames.append(json.loads(link.recv(timeout=5)))
        assert frames[-1]["code"] == "signed_out"
    assert not may_create_a_table(server, other)
    assert may_create_a_table(server, this)
    assert may_create_a_table(server, sign_in(server, "cid", "another1"))
    refused = server.http.post(
        f"{server.url}/api/login", json={"name": "cid", "password": "secret1"}
    )
    assert refused.status_code == 401


def test_a_guest_has_no_password_to_change(server: Server) -> None:
    guest = server.guest("dan")
    refused = server.call(guest, "POST", "/api/password", old="", new="whatever1")
    assert refused.status_code == 403 and refused.json()["code"] == "guest_password"


def test_a_token_signed_with_the_key_still_needs_an_open_session(server: Server) -> None:
    """Whoever reads the database gets the generated key, and the sessions' hashes only."""
    token, other = server.guest("eve"), server.guest("fay")
    database = server.database_url.removeprefix("sqlite:///")
    with sqlite3.connect(database) as con:
        (key,) = con.execute("SELECT value FROM settings WHERE name = 'secret'").fetchone()
        hashes = [value for (value,) in con.execute("SELECT id FROM sessions")]
    signer = URLSafeTimedSerializer(key, salt="tapisvert-session")
    session = signer.loads(token)["session"]
    fay = signer.loads(other)["user"]
    assert session not in hashes
    for forged in (
        signer.dumps({"user": fay}),
        *(signer.dumps({"user": fay, "session": stored}) for stored in hashes),
        signer.dumps({"user": fay, "session": session}),  # eve's session, for fay
    ):
        assert not may_create_a_table(server, forged)
    assert may_create_a_table(server, token)


def test_migration_0004_adds_and_removes_the_sessions(database_url: str) -> None:
    migrate(database_url, "head")
    engine = engine_for(database_url)
    assert "sessions" in inspect(engine).get_table_names()
    migrate(database_url, "0003", down=True)
    assert "sessions" not in inspect(engine).get_table_names()
    migrate(database_url, "head")
    assert {column["name"] for column in inspect(engine).get_columns("sessions")} == {
        "id",
        "user_id",
        "opened_at",
    }
    engine.dispose()
