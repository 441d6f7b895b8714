"""The node's metrics: served on their own port and not by the public one, each series with the
node's name, and moved by what happens — moves, refusals, bots, frames, commits, collections."""

from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from redis_support import REDIS_URL, redis_share  # noqa: F401  (a fixture)
from tapisvert.bots.search import BUDGET_SCALE_VARIABLE
from tapisvert.cli.main import app
from tapisvert.server.bot_queue import BotQueue
from tapisvert.server.metrics import Metrics, WorkerMetrics
from tapisvert.server.presence import Presence
from tapisvert.server.pubsub import LocalPubSub
from tapisvert.server.registry import TableRegistry
from tapisvert.server.thinking import BotJob
from test_bot_workers import SCALE, decisions

from server_support import Player, Server, free_port, link, of_type, serving, until

ROOT = Path(__file__).resolve().parent.parent
DASHBOARD = ROOT / "deploy" / "grafana" / "tapisvert.json"
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
METRIC_NAME = re.compile(r"\b(?:tapisvert|process)_[a-z_]+\b")
SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
}

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {"metrics-port": free_port()}
    with serving(tmp_path_factory.mktemp("metrics"), **settings) as running:
        yield running


def metrics_url(server: Server) -> str:
    return f"http://127.0.0.1:{server.settings['metrics-port']}/metrics"


def scrape(server: Server) -> Samples:
    """Every sample the node's metrics port shows, by name and labels."""
    return scraped(metrics_url(server))


def scraped(url: str) -> Samples:
    """Every sample the metrics at ``url`` show, by name and labels."""
    response = httpx.get(url, timeout=10)
    response.raise_for_status()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of the samples named ``name`` whose labels include ``labels`` (0 if none)."""
    wanted = set(labels.items())
    return sum(found for (each, have), found in samples.items() if each == name and wanted <= have)


def exported_names() -> set[str]:
    """The names of every sample a node that keeps metrics, or a bot worker, may export."""
    metrics = Metrics("a-node", kept=True)
    metrics.watch(TableRegistry(), Presence("a-node", LocalPubSub(), ["main"]))
    text = generate_latest(metrics.registry).decode()
    text += generate_latest(WorkerMetrics("a-worker").registry).decode()
    return {
        family.name + suffix
        for family in text_string_to_metric_families(text)
        for suffix in SUFFIXES.get(family.type, ("",))
    }


def test_the_public_port_does_not_serve_the_metrics(server: Server) -> None:
    public = server.http.get(f"{server.url}/metrics")
    assert public.status_code == 404
    assert "tapisvert_" not in public.text
    assert "tapisvert_moves_accepted_total" in httpx.get(metrics_url(server), timeout=10).text


def test_the_metrics_port_listens_on_loopback_only_by_default(server: Server) -> None:
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # no packet leaves: the address of the way out
            address = probe.getsockname()[0]
    except OSError:
        address = "127.0.0.1"
    if address.startswith("127."):
        pytest.skip("this machine has no address but loopback")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((address, server.settings["metrics-port"]), timeout=5).close()


def test_every_series_carries_the_node(server: Server) -> None:
    samples = scrape(server)
    nodes = {dict(labels).get("node") for name, labels in samples if name.startswith("tapisvert_")}
    assert len(nodes) == 1
    (node,) = nodes
    assert node is not None
    assert node.split(":")[1] == str(server.process.pid if server.process else None)


def test_a_game_moves_the_counters_by_what_was_played(server: Server) -> None:
    token = server.guest("metered")
    created = server.call(
        token, "POST", "/api/tables", game="wizard", players=3, options={"rounds": "1"}
    )
    table = int(created.json()["table"])
    for _ in range(2):
        server.call(token, "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    before = scrape(server)
    assert value(before, "tapisvert_tables", game="wizard", status="open") == 1
    assert value(before, "tapisvert_leases_held") >= 1
    server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()
    player = Player(server, token, seed=3)
    asyncio.run(asyncio.wait_for(player.play({table}), 60))
    after = scrape(server)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    played = len(player.acked)
    assert played > 0
    assert moved("tapisvert_moves_accepted_total", game="wizard") == played
    assert moved("tapisvert_move_seconds_count") == played
    assert moved("tapisvert_move_seconds_bucket", le="+Inf") == played
    assert 0 < moved("tapisvert_move_seconds_sum") < 60
    record = server.record(table)
    state, by_bots = record.new_game().new_initial_state(), 0
    for text in record.actions:
        by_bots += state.current_player() in (1, 2)
        state.apply_string(text)
    assert moved("tapisvert_bot_decision_seconds_count", level="easy") == by_bots
    assert moved("tapisvert_frames_sent_total") >= len(player.frames)
    assert moved("tapisvert_storage_group_writes_sum") >= played + by_bots
    assert moved("tapisvert_storage_commit_seconds_count") == moved(
        "tapisvert_storage_group_writes_count"
    )
    assert value(after, "tapisvert_tables", game="wizard", status="playing") == 0
    assert value(after, "tapisvert_bot_decisions_waiting") == 0


def test_a_refused_move_is_counted_with_its_reason(server: Server) -> None:
    token = server.guest("refused")
    created = server.call(token, "POST", "/api/tables", game="luz", players=3)
    table = int(created.json()["table"])
    before = scrape(server)

    async def refused_move() -> None:
        # the sockets of the tests before may take a moment to close on the server's side
        await until(lambda: value(scrape(server), "tapisvert_sockets") == 0, seconds=10)
        async with link(server, token) as mine:
            answer = await mine.answer(type="act", table=table, seq=0, action="x")
            assert answer["code"] == "not_playing"
            during = scrape(server)
            assert value(during, "tapisvert_sockets") == 1
            assert value(during, "tapisvert_people") == 1
            await mine.send(type="ping")
            await mine.expect(of_type("ack"))

    asyncio.run(refused_move())
    after = scrape(server)
    name = "tapisvert_moves_refused_total"
    assert value(after, name, game="luz", reason="not_playing") == 1 + value(
        before, name, game="luz", reason="not_playing"
    )
    assert value(after, "tapisvert_moves_accepted_total", game="luz") == value(
        before, "tapisvert_moves_accepted_total", game="luz"
    )


def test_the_labels_name_no_card(server: Server) -> None:
    """Games, statuses, levels, refusal codes, generations and buckets: nothing of a seat."""
    labels = {
        (name, value)
        for sample, have in scrape(server)
        if sample.startswith("tapisvert_")
        for name, value in have
    }
    assert {name for name, _ in labels} <= {
        "node",
        "game",
        "status",
        "reason",
        "level",
        "generation",
        "le",
    }
    words = re.compile(r"[a-z_]+")
    assert all(
        words.fullmatch(value)
        for name, value in labels
        if name in {"game", "status", "reason", "level"}
    )


def test_the_event_loop_and_the_collections_are_measured(server: Server) -> None:
    samples = scrape(server)
    assert value(samples, "tapisvert_event_loop_lag_seconds_count") > 0
    assert value(samples, "tapisvert_gc_pause_seconds_count", generation="0") > 0


def test_a_node_without_the_metrics_port_keeps_none() -> None:
    metrics = Metrics("quiet-node")
    metrics.accepted("luz")
    metrics.committed(3, 0.01, failed=False)
    assert generate_latest(metrics.registry) == b""


def test_the_metrics_port_may_not_be_the_public_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAPISVERT_LANG", "en")
    refused = CliRunner().invoke(app, ["serve", "--port", "8123", "--metrics-port", "8123"])
    assert refused.exit_code != 0
    assert "--metrics-port 8123 is a public port of this server" in refused.output


def test_the_dashboard_queries_only_exported_metrics() -> None:
    exported = exported_names()
    queried = set(METRIC_NAME.findall(DASHBOARD.read_text()))
    assert len(queried) >= 15
    assert queried <= exported, queried - exported


def test_the_alerts_watch_only_exported_metrics() -> None:
    exported = exported_names()
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    watched: set[str] = set()
    for rule in rules:
        queried = set(METRIC_NAME.findall(rule["expr"]))
        assert queried <= exported, (rule["alert"], queried - exported)
        watched |= queried
    assert len(watched) >= 10


@pytest.mark.usefixtures("redis_share")
def test_a_bot_worker_counts_its_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUDGET_SCALE_VARIABLE, SCALE)  # the worker inherits it: a quick search
    port = free_port()
    command = [sys.executable, "-m", "tapisvert", "bot-worker", "--bus", REDIS_URL]
    worker = subprocess.Popen([*command, "--metrics-port", str(port)])
    ((observation, legal, seed),) = decisions("luz", 1)

    async def ask() -> int:
        queue = BotQueue(REDIS_URL, workers=0)
        await queue.start()
        try:
            job = BotJob("luz", 4, {}, "medium", observation, legal, seed)  # type: ignore[arg-type]
            return await queue.choose(job)
        finally:
            await queue.close()

    try:
        assert asyncio.run(ask()) in legal
        # counted before it answers, and serving its metrics before it takes a job
        samples = scraped(f"http://127.0.0.1:{port}/metrics")
        assert value(samples, "tapisvert_worker_jobs_total", outcome="decided") == 1
        assert value(samples, "tapisvert_worker_decision_seconds_count", level="medium") == 1
        nodes = {dict(labels).get("node") for name, labels in samples if "tapisvert_" in name}
        assert nodes == {f"{socket.gethostname()}:{worker.pid}"}
    finally:
        worker.terminate()
        worker.wait(10)
