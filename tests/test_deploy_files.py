"""The deployment files of ``deploy/``, checked by the tools this machine has (systemd's,
nginx's, docker compose's without an engine) and against the command line they run: every
command they start parses as ``tapisvert`` parses it, and the nodes listen where nginx
sends the requests and the sockets."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.core import TyperGroup
from typer.main import get_command

from tapisvert.cli.main import app
from tapisvert.server.config import load_config

from server_support import DEPLOY, NGINX_CONFIG, nginx_config, nginx_or_skip

UNITS = sorted((DEPLOY / "systemd").glob("*.service"))
INSTALLED = "/opt/tapisvert/.venv/bin/tapisvert"
"""Where the units expect tapisvert (a virtual environment in /opt/tapisvert)."""
COMPOSE = DEPLOY / "compose.yaml"


def parsed(words: list[str]) -> dict[str, Any]:
    """The options ``tapisvert WORDS`` would run with; unknown or wrong ones fail."""
    group = get_command(app)
    assert isinstance(group, TyperGroup)
    command = group.commands[words[0]]
    return command.make_context(words[0], words[1:]).params


def upstreams() -> dict[str, set[int]]:
    """The ports of each upstream of the nginx configuration."""
    found = {}
    for name, body in re.findall(r"upstream (\w+) \{([^}]*)\}", NGINX_CONFIG.read_text()):
        found[name] = {int(port) for port in re.findall(r"server 127\.0\.0\.1:(\d+);", body)}
    return found


def exec_start(unit: Path) -> str:
    return next(
        line.removeprefix("ExecStart=")
        for line in unit.read_text().splitlines()
        if line.startswith("ExecStart=")
    )


@pytest.mark.parametrize("unit", UNITS, ids=[unit.name for unit in UNITS])
def test_systemd_verifies_the_unit(unit: Path, tmp_path: Path) -> None:
    """``systemd-analyze verify`` (no root needed) finds nothing to say, the unit's
    tapisvert taken from this environment (verify checks that the program is there)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's package systemd)")
    tapisvert = Path(sys.executable).with_name("tapisvert")
    assert exec_start(unit).startswith(INSTALLED)
    copy = tmp_path / unit.name
    copy.write_text(unit.read_text().replace(INSTALLED, str(tapisvert)))
    verified = subprocess.run(
        [analyze, "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    assert verified.returncode == 0 and not verified.stderr.strip(), verified.stderr


def test_the_units_run_what_the_cli_takes_where_nginx_sends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nodes 1 and 2 listen on the ports of nginx's upstreams; each unit's command parses;
    the environment file's settings are settings, and give the bus (read from the
    environment: a URL with a password stays off the command line, which anyone sees)."""
    settings = dict(
        line.split("=", 1)
        for line in (DEPLOY / "systemd" / "tapisvert.env").read_text().splitlines()
        if line and not line.startswith("#")
    )
    for variable, value in settings.items():
        monkeypatch.setenv(variable, value)
    loaded = load_config({}, None)
    assert loaded.config.bus == settings["TAPISVERT_BUS"]
    assert loaded.config.database_url == settings["TAPISVERT_DATABASE_URL"]
    ports, sockets = set(), set()
    for unit in UNITS:
        command = exec_start(unit)
        assert "$" not in command
        for instance in ("1", "2"):
            options = parsed(shlex.split(command.replace("%i", instance))[1:])
            if "port" in options:
                ports.add(options["port"])
                sockets.add(options["socket_port"])
    assert {"tapisvert": ports, "tapisvert_sockets": sockets} == upstreams()


def test_nginx_accepts_the_configuration(tmp_path: Path) -> None:
    """``nginx -t`` on the file as it is, without root (a prefix of its own)."""
    nginx = nginx_or_skip()
    config = nginx_config(tmp_path, NGINX_CONFIG.read_text())
    tested = subprocess.run(
        [nginx, "-t", "-e", "stderr", "-c", str(config), "-p", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert tested.returncode == 0, tested.stderr
    assert "test is successful" in tested.stderr


def compose_program() -> list[str]:
    """Docker's compose plugin, or Debian's docker-compose, or the test is skipped."""
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    standalone = shutil.which("docker-compose")
    if standalone is None:
        pytest.skip(
            "neither docker compose nor docker-compose is installed "
            "(scripts/setup --test installs Debian's docker-compose)"
        )
    return [standalone]


def test_docker_compose_accepts_the_file() -> None:
    """``docker compose config`` (which needs no engine) finds the file well made, and refuses
    it without the database's password."""
    command = [*compose_program(), "-f", str(COMPOSE), "config", "-q"]
    environment = {**os.environ, "TAPISVERT_DB_PASSWORD": "checked"}
    checked = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)
    assert checked.returncode == 0, checked.stderr
    del environment["TAPISVERT_DB_PASSWORD"]
    refused = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)
    assert refused.returncode != 0 and "set TAPISVERT_DB_PASSWORD" in refused.stderr


def test_the_compose_file_runs_what_the_cli_takes_where_nginx_sends() -> None:
    """Read as compose reads it (without docker here): the services, their commands as the
    command line parses them, the nodes' ports those of nginx's upstreams, in nginx's
    network, on the compose file's PostgreSQL and Redis, the files it names present."""
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "nginx", "node1", "node2", "bot-worker"}
    assert services["nginx"]["ports"] == ["80:80"] and "listen 80;" in NGINX_CONFIG.read_text()
    mounted = services["nginx"]["volumes"][0].split(":")[0]
    assert (DEPLOY / mounted).resolve() == NGINX_CONFIG
    ports, sockets = set(), set()
    for name in ("node1", "node2", "bot-worker"):
        service = services[name]
        build = service["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).is_file()
        assert service["depends_on"].keys() == {"postgres", "redis"}
        options = parsed(service["command"])
        assert options["bus"] == "redis://redis:6379"
        if name != "bot-worker":
            assert service["network_mode"] == "service:nginx"
            url = service["environment"]["TAPISVERT_DATABASE_URL"]
            user = services["postgres"]["environment"]["POSTGRES_USER"]
            assert url.startswith(f"postgresql://{user}:") and "@postgres/" in url
            ports.add(options["port"])
            sockets.add(options["socket_port"])
    assert {"tapisvert": ports, "tapisvert_sockets": sockets} == upstreams()


def test_the_containerfile_copies_what_is_there_and_runs_the_cli() -> None:
    lines = (DEPLOY / "Containerfile").read_text().splitlines()
    root = DEPLOY.parent
    for line in lines:
        if line.startswith("COPY "):
            *sources, _ = line.split()[1:]
            assert all((root / source).exists() for source in sources), line
    entrypoint = json.loads(next(line for line in lines if line.startswith("ENTRYPOINT "))[11:])
    command = json.loads(next(line for line in lines if line.startswith("CMD "))[4:])
    assert entrypoint == ["tapisvert"]
    assert parsed(command)["host"] == "0.0.0.0"
