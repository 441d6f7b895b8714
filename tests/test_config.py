"""One configuration for ``tapisvert serve`` and ``bot-worker``: flags over ``TAPISVERT_…``
variables over the file of ``--config`` over the defaults; ``--print-config`` shows it with
the secrets hidden; a wrong or unknown setting is refused at start with its name."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner, Result

from tapisvert.cli.main import app
from tapisvert.server.config import NodeConfig, masked_url
from tapisvert.server.settings import Settings

KEY = "k" * 24 + "0123456789abcdef"


def run(*arguments: str) -> Result:
    return CliRunner().invoke(app, list(arguments))


def said(result: Result, words: str) -> bool:
    """Whether the command printed ``words``, whatever its spaces and line breaks (Rich
    wraps the lines, a long path within itself)."""
    return "".join(words.split()) in "".join(result.output.split())


def printed(result: Result) -> dict[str, tuple[str, str]]:
    """``--print-config``'s lines: each setting's value and where it came from."""
    assert result.exit_code == 0, result.output
    settings = {}
    for line in result.output.splitlines():
        setting, _, origin = line.partition("  # ")
        name, _, value = setting.removeprefix("# ").partition(" = ")
        settings[name] = (value, origin)
    return settings


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "node.toml"
    path.write_text('bot_delay = 1.5\nrate = 10\nport = 9000\nlog_format = "json"\n')
    return path


def test_flags_come_before_the_environment_before_the_file_before_the_defaults(
    config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAPISVERT_RATE", "20")
    monkeypatch.setenv("TAPISVERT_PORT", "9100")
    settings = printed(
        run("serve", "--config", str(config_file), "--port", "9200", "--print-config")
    )
    assert settings["port"] == ("9200", "flag --port")
    assert settings["rate"] == ("20.0", "environment TAPISVERT_RATE")
    assert settings["bot_delay"] == ("1.5", f"file {config_file}")
    assert settings["log_format"] == ('"json"', f"file {config_file}")
    assert settings["host"] == ('"127.0.0.1"', "default")
    assert settings["bot_workers"] == ("(not set)", "default")


def test_a_flag_left_at_its_default_does_not_hide_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TAPISVERT_BOT_DELAY", "2")
    settings = printed(run("serve", "--bot-delay", "0.6", "--print-config"))
    assert settings["bot_delay"] == ("0.6", "flag --bot-delay")
    assert printed(run("serve", "--print-config"))["bot_delay"][0] == "2.0"
    monkeypatch.setenv("TAPISVERT_SECRET_KEY", "")  # empty: not set
    assert printed(run("serve", "--print-config"))["secret_key"] == ("(not set)", "default")


def test_the_defaults_are_the_nodes_own_and_the_flags_say_so() -> None:
    assert NodeConfig().node_settings() == Settings()
    given = NodeConfig(bot_delay=2, lease_seconds=3, secret_key=KEY).node_settings()
    assert (given.bot_delay, given.lease_seconds, given.secret_key) == (2.0, 3.0, KEY)
    assert KEY not in repr(given)
    for command in ("serve", "bot-worker"):
        options = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
        shown = {option.name: option.default for option in options}
        # every flag of serve is a setting (a new one too), with the same default
        assert shown.keys() - {"config_file", "show"} <= NodeConfig.model_fields.keys()
        for name, default in shown.items():
            if name in NodeConfig.model_fields:
                assert NodeConfig.model_fields[name].default == default, name


def test_print_config_hides_the_key_and_the_passwords_in_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "node.toml"
    path.write_text('database_url = "postgresql+psycopg://app:db-secret@db:5432/tapisvert"\n')
    monkeypatch.setenv("TAPISVERT_SECRET_KEY", KEY)
    result = run(
        "serve", "--config", str(path), "--bus", "redis://:bus-secret@127.0.0.1:6379/0",
        "--print-config",
    )  # fmt: skip
    settings = printed(result)
    for secret in (KEY, "db-secret", "bus-secret"):
        assert secret not in result.output
    assert settings["secret_key"] == ('"********"', "environment TAPISVERT_SECRET_KEY")
    assert settings["database_url"][0] == '"postgresql+psycopg://app:********@db:5432/tapisvert"'
    assert settings["bus"] == ('"redis://:********@127.0.0.1:6379/0"', "flag --bus")
    assert (
        masked_url("sqlite:////var/lib/tapisvert.sqlite3") == "sqlite:////var/lib/tapisvert.sqlite3"
    )


def test_an_unknown_setting_in_the_file_is_refused_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "node.toml"
    path.write_text("bot_delai = 1\n")
    result = run("serve", "--config", str(path))
    assert result.exit_code == 2
    assert said(result, f"bot_delai in {path} is no setting")


def test_an_unknown_variable_is_refused_but_those_read_elsewhere_are_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TAPISVERT_BOT_DELAI", "1")
    result = run("serve", "--print-config")
    assert result.exit_code == 2
    assert said(result, "the environment variable TAPISVERT_BOT_DELAI is no setting")
    monkeypatch.delenv("TAPISVERT_BOT_DELAI")
    for variable in ("TAPISVERT_TEST_ANYTHING", "TAPISVERT_SQLITE_SYNC", "TAPISVERT_LANG"):
        monkeypatch.setenv(variable, "en" if variable.endswith("LANG") else "FULL")
    assert run("serve", "--print-config").exit_code == 0


@pytest.mark.parametrize(
    ("where", "name", "origin"),
    [
        ("environment", "bot_delay", "environment TAPISVERT_BOT_DELAY"),
        ("file", "bot_delay", "file"),
        ("environment", "log_level", "environment TAPISVERT_LOG_LEVEL"),
        ("flag", "log_format", "flag --log-format"),
        ("environment", "secret_key", "environment TAPISVERT_SECRET_KEY"),
        ("flag", "secret_key_file", "flag --secret-key-file"),
    ],
)
def test_a_wrong_value_is_refused_with_its_name_and_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, name: str, origin: str
) -> None:
    wrong = {"bot_delay": "soon", "log_level": "loud", "log_format": "xml", "secret_key": "short"}
    arguments = ["serve"]
    if where == "environment":
        monkeypatch.setenv(f"TAPISVERT_{name.upper()}", wrong[name])
    elif where == "file":
        (tmp_path / "node.toml").write_text(f'{name} = "{wrong[name]}"\n')
        arguments += ["--config", str(tmp_path / "node.toml")]
    elif name == "secret_key_file":
        (tmp_path / "key").write_text("too short\n")
        arguments += ["--secret-key-file", str(tmp_path / "key")]
    else:
        arguments += [f"--{name.replace('_', '-')}", wrong[name]]
    result = run(*arguments)
    assert result.exit_code == 2
    assert said(result, f"the setting {name} ({origin}")


def test_refusals_are_in_the_readers_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAPISVERT_LANG", "fr")
    monkeypatch.setenv("TAPISVERT_RATE", "vite")
    result = run("serve")
    assert result.exit_code == 2
    assert said(result, "le réglage rate (environnement TAPISVERT_RATE) est erroné")


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    result = run("serve", "--config", str(tmp_path / "nowhere.toml"))
    assert result.exit_code == 2
    assert said(result, "cannot read the file of settings")


def test_the_bot_worker_takes_its_bus_from_the_configuration_and_hides_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handlers = list(logging.root.handlers)
    result = run("bot-worker")
    assert result.exit_code == 2 and said(result, "the bot worker needs a bus")
    path = tmp_path / "node.toml"
    path.write_text('bus = "http://:bus-secret@127.0.0.1:6379"\n')
    result = run("bot-worker", "--config", str(path))
    assert result.exit_code == 2
    assert said(result, "not http://:********@127.0.0.1:6379")
    assert "bus-secret" not in result.output
    # refused before logging was set up: setting it up replaces (and closes) every handler
    assert logging.root.handlers == handlers
