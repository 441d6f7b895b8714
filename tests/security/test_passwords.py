"""Passwords are argon2id hashes at the cost a node is set to (``password_memory``); a hash
names its own parameters, so a node set otherwise still checks those made before. The
suite's servers hash at a low cost (``server_support.TEST_PASSWORD_MEMORY``); these tests
check the default's."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text
from typer.testing import CliRunner

from tapisvert.cli.main import app
from tapisvert.server.auth import MIN_PASSWORD_MEMORY, PASSWORD_MEMORY, Passwords

from server_support import PASSWORD, TEST_PASSWORD_MEMORY, Server, engine_for, serving


def test_the_default_hash_is_rfc_9106s_second_choice() -> None:
    made = Passwords().hash("secret1")
    assert made.startswith(f"$argon2id$v=19$m={PASSWORD_MEMORY},t=3,p=4$")
    assert PASSWORD_MEMORY == 64 * 1024


def test_a_hash_made_at_another_cost_is_still_checked() -> None:
    cheap, default = Passwords(TEST_PASSWORD_MEMORY), Passwords()
    made = cheap.hash("secret1")
    assert f"m={TEST_PASSWORD_MEMORY}," in made
    assert default.matches(made, "secret1")
    assert not default.matches(made, "secret2")
    assert not default.matches("not a hash", "secret1")
    assert cheap.matches(default.unknown, "anything") is False


def test_a_cost_below_the_least_is_refused_with_its_name() -> None:
    result = CliRunner().invoke(
        app, ["serve", "--password-memory", str(MIN_PASSWORD_MEMORY - 1), "--print-config"]
    )
    assert result.exit_code != 0
    assert "password-memory" in result.output


def stored_hash(server: Server, name: str) -> str:
    with engine_for(server.database_url).connect() as connection:
        found = connection.execute(
            text("SELECT password_hash FROM users WHERE name = :name"), {"name": name}
        )
        return str(found.scalar_one())


def test_accounts_made_at_the_default_cost_sign_in_on_a_node_set_lower(tmp_path: Path) -> None:
    with serving(tmp_path, **{"password-memory": PASSWORD_MEMORY}) as server:
        server.register("ada")
    assert f"$m={PASSWORD_MEMORY},t=3,p=4$" in stored_hash(server, "ada")
    with serving(tmp_path) as server:
        login = f"{server.url}/api/login"
        signed_in = server.http.post(login, json={"name": "ada", "password": PASSWORD})
        assert signed_in.status_code == 200, signed_in.text
        wrong = server.http.post(login, json={"name": "ada", "password": PASSWORD + "x"})
        assert wrong.status_code == 401
        server.register("bea")
    assert f"$m={TEST_PASSWORD_MEMORY},t=3,p=4$" in stored_hash(server, "bea")
    assert f"$m={PASSWORD_MEMORY}," in stored_hash(server, "ada")  # not made again
