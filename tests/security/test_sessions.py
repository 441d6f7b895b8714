"""Finding 12: the signing key, stored in clear in the database, let whoever read the
database sign a session token for anyone. Given from the environment, it is not stored."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from itsdangerous import URLSafeTimedSerializer

from server_support import serving

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
        assert signed == {"user": 1}
        database = server.database_url.removeprefix("sqlite:///")
        with sqlite3.connect(database) as con:
            stored = [value for (value,) in con.execute("SELECT value FROM settings")]
        assert KEY not in stored
        mine = server.call(token, "POST", "/api/tables", game="luz", players=3)
        assert mine.status_code == 200
