"""``tapisvert serve`` and the processes it works with: a node of the platform, a bot worker
(``bot-worker``) and the relays a node starts (``relay``, hidden)."""

from __future__ import annotations

import gc
import logging.config
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tapisvert.cli.config import ConfigOption, configuration, print_config, start_logging
from tapisvert.cli.options import DatabaseOption, fail, help_text
from tapisvert.compiled import engine_words
from tapisvert.core.errors import OptionError, TapisvertError
from tapisvert.i18n import default_language, translate

if TYPE_CHECKING:
    from tapisvert.server.config import Loaded, NodeConfig

serving = typer.Typer()
console = Console(highlight=False)

LogFormatOption = Annotated[str, typer.Option(metavar="text|json", help=help_text("log_format"))]
LogLevelOption = Annotated[
    str, typer.Option(metavar="debug|info|warning|error", help=help_text("log_level"))
]

SERVER_GC_THRESHOLDS = (10_000, 10, 10)
"""A relay's collections: a young one every 10,000 new objects that survive.

The default 700 collects ten times as often for nothing. The hub's collections are its
event loop's (``tapisvert.server.collector``).
"""


MetricsPort = Annotated[int | None, typer.Option(min=1, max=65535, help=help_text("metrics_port"))]
MetricsHost = Annotated[str, typer.Option(help=help_text("metrics_host"))]


def metrics_address(config: NodeConfig) -> tuple[str, int] | None:
    """Where the metrics are served (``metrics_host``, ``metrics_port``), said at start;
    ``None`` without a port."""
    if config.metrics_port is None:
        return None
    url = f"http://{config.metrics_host}:{config.metrics_port}/metrics"
    say(config, translate("cli.metrics_at", default_language(), url=url))
    return config.metrics_host, config.metrics_port


@serving.command(help=help_text("serve"))
def serve(
    context: typer.Context,
    host: Annotated[str, typer.Option(help=help_text("host"))] = "127.0.0.1",
    port: Annotated[int, typer.Option(help=help_text("port"))] = 8000,
    database_url: DatabaseOption = "",
    bot_delay: Annotated[float, typer.Option(help=help_text("bot_delay"))] = 0.6,
    absence_grace: Annotated[float, typer.Option(help=help_text("absence_grace"))] = 60.0,
    rate: Annotated[float, typer.Option(help=help_text("rate"))] = 30.0,
    unread_limit: Annotated[int, typer.Option(min=1, help=help_text("unread_limit"))] = 1 << 20,
    abandoned_after: Annotated[float, typer.Option(help=help_text("abandoned_after"))] = 300.0,
    asleep_after: Annotated[float, typer.Option(help=help_text("asleep_after"))] = 60.0,
    relays: Annotated[int, typer.Option(min=0, help=help_text("relays"))] = 0,
    socket_port: Annotated[int | None, typer.Option(help=help_text("socket_port"))] = None,
    api_docs: Annotated[bool, typer.Option(help=help_text("api_docs"))] = False,
    bot_workers: Annotated[int | None, typer.Option(min=0, help=help_text("bot_workers"))] = None,
    leaderboard_min_games: Annotated[
        int, typer.Option(min=0, help=help_text("leaderboard_min_games"))
    ] = 5,
    bots_per_owner: Annotated[int, typer.Option(min=0, help=help_text("bots_per_owner"))] = 3,
    bot_tables_per_owner: Annotated[
        int, typer.Option(min=0, help=help_text("bot_tables_per_owner"))
    ] = 10,
    tournaments_by_moderators: Annotated[
        bool, typer.Option(help=help_text("tournaments_by_moderators"))
    ] = False,
    bus: Annotated[str, typer.Option(help=help_text("bus"))] = "",
    lease_seconds: Annotated[float, typer.Option(min=0.5, help=help_text("lease_seconds"))] = 10.0,
    secret_key_file: Annotated[
        Path | None, typer.Option(metavar="PATH", help=help_text("secret_key_file"))
    ] = None,
    log_format: LogFormatOption = "text",
    log_level: LogLevelOption = "warning",
    config_file: ConfigOption = None,
    show: Annotated[bool, typer.Option("--print-config", help=help_text("print_config"))] = False,
    drain_seconds: Annotated[float, typer.Option(min=1.0, help=help_text("drain_seconds"))] = 30.0,
    password_memory: Annotated[
        int, typer.Option(min=1024, help=help_text("password_memory"))
    ] = 65536,
    metrics_port: MetricsPort = None,
    metrics_host: MetricsHost = "127.0.0.1",
) -> None:
    import uvicorn

    from tapisvert.server.app import create_app
    from tapisvert.server.collector import Collector
    from tapisvert.server.draining import DrainingServer
    from tapisvert.server.links import PUBLIC_OPTIONS, allow_open_files
    from tapisvert.server.storage import default_database_url

    language = default_language()
    loaded = configured(context, config_file)
    if show:
        print_config(loaded, config_file, language)
        return
    config = loaded.config
    host, port = config.host, config.port
    # what is refused is refused before logging is set up (which replaces every handler)
    if config.bus:
        check_bus(config.bus)
    elif config.bot_workers == 0:
        raise fail(OptionError("cli.workers_need_bus"), language)
    elif config.relays:
        raise fail(OptionError("cli.relays_need_bus"), language)
    public = {port, *([config.socket_port or port + 1] if config.relays else [])}
    if config.metrics_port in public:
        raise fail(OptionError("cli.metrics_port_public", port=config.metrics_port), language)
    logs = start_logging(config)
    # A thread (the storage's writer) gets the interpreter within half a millisecond of
    # asking, instead of five; the event loop gets it back as quickly.
    sys.setswitchinterval(0.0005)
    allow_open_files()
    url = config.database_url or default_database_url()
    say(config, translate("cli.serving", language, url=f"http://{host}:{port}"))
    engine, words = engine_words()
    say(config, translate(engine, language, **words))
    metrics = metrics_address(config)
    node = secrets.token_hex(8) if config.relays else None
    # made first: it loads every game's texts, which the relays' watchers may then read
    server = create_app(
        url,
        config.node_settings(),
        api_docs=config.api_docs,
        redis_url=config.bus or None,
        collector=Collector(),
        relays=node,
        metrics_address=metrics,
    )
    started: list[subprocess.Popen[bytes]] = []
    stopping = _Stopping()
    if node is not None:
        relay_port = port + 1 if config.socket_port is None else config.socket_port
        relaying = translate(
            "cli.relaying", language, relays=config.relays, url=f"ws://{host}:{relay_port}/ws"
        )
        say(config, relaying)
        command = [
            sys.executable, "-m", "tapisvert", "relay", "--bus", config.bus, "--node", node,
            "--host", host, "--port", str(relay_port),
            "--unread-limit", str(config.unread_limit), "--rate", str(config.rate),
            "--log-format", config.log_format, "--log-level", config.log_level,
        ]  # fmt: skip
        # Relays get no terminal signals (Ctrl+C): the server stops them, or they see it go.
        started = [subprocess.Popen(command, start_new_session=True) for _ in range(config.relays)]
        for process in started:
            threading.Thread(
                target=_stop_without, args=(process, stopping, config), daemon=True
            ).start()
    try:
        listening = uvicorn.Config(
            server,
            host=host,
            port=port,
            log_config=logs,
            log_level=config.log_level,
            timeout_graceful_shutdown=int(config.drain_seconds / 4) or 1,
            **PUBLIC_OPTIONS,
        )
        DrainingServer(listening, server.state.lobby).run()
    finally:
        stopping.stop()
        for process in started:
            process.terminate()
            process.wait()


def configured(context: typer.Context, path: Path | None) -> Loaded:
    """The command's settings (see ``cli.config``), or an exit saying what is wrong."""
    try:
        return configuration(context, path)
    except TapisvertError as error:
        raise fail(error, default_language()) from None


def say(config: NodeConfig, notice: str, style: str | None = None) -> None:
    """A notice for whoever runs the server: printed, or with JSON logs a log line, so
    that all the process writes is JSON (logged at the level of a warning: shown unless
    the logs are set to errors only)."""
    if config.log_format == "json":
        logging.getLogger("tapisvert.cli").warning(notice)
    else:
        console.print(notice, style=style)


def check_bus(url: str) -> None:
    """A Redis URL whose server answers, or a clear error before anything starts."""
    import redis

    from tapisvert.server.config import masked_url

    language = default_language()
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise fail(OptionError("cli.bad_bus", url=masked_url(url)), language)
    try:
        with redis.Redis.from_url(url, socket_connect_timeout=5) as client:
            client.ping()
    except (redis.RedisError, OSError) as error:
        raise fail(
            OptionError("cli.bus_unreachable", url=masked_url(url), reason=error), language
        ) from None


@serving.command(name="bot-worker", help=help_text("bot_worker"))
def bot_worker(
    context: typer.Context,
    tournaments_by_moderators: Annotated[
        bool, typer.Option(help=help_text("tournaments_by_moderators"))
    ] = False,
    bus: Annotated[str, typer.Option(help=help_text("bus"))] = "",
    log_format: LogFormatOption = "text",
    log_level: LogLevelOption = "warning",
    config_file: ConfigOption = None,
    metrics_port: MetricsPort = None,
    metrics_host: MetricsHost = "127.0.0.1",
) -> None:
    from tapisvert.server.bot_queue import work
    from tapisvert.server.config import masked_url

    language = default_language()
    config = configured(context, config_file).config
    if not config.bus:
        raise fail(OptionError("cli.worker_needs_bus"), language)
    check_bus(config.bus)  # before logging is set up, which replaces every handler
    start_logging(config)
    say(config, translate("cli.bot_worker_ready", language, url=masked_url(config.bus)))
    engine, words = engine_words()
    say(config, translate(engine, language, **words))
    work(config.bus, metrics_address=metrics_address(config))


class _Stopping:
    """Whether the server is stopping, decided under a lock: a relay's watcher that finds it
    is not may stop it, and no later than the server's own ``stop``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = False

    def stop(self) -> None:
        with self._lock:
            self._stopping = True

    def unless_stopping(self, act: Callable[[], None]) -> None:
        with self._lock:
            if not self._stopping:
                self._stopping = True
                act()


def _stop_without(relay: subprocess.Popen[bytes], stopping: _Stopping, config: NodeConfig) -> None:
    """A relay that stops (its port taken, say) stops the server: nobody could reach it."""
    code = relay.wait()

    def stop_the_server() -> None:
        say(config, translate("cli.relay_stopped", default_language(), code=code), style="red")
        os.kill(os.getpid(), signal.SIGTERM)

    stopping.unless_stopping(stop_the_server)


@serving.command(hidden=True)
def relay(
    bus: Annotated[str, typer.Option()],
    node: Annotated[str, typer.Option()],
    host: Annotated[str, typer.Option()],
    port: Annotated[int, typer.Option()],
    unread_limit: Annotated[int, typer.Option()],
    rate: Annotated[float, typer.Option()],
    log_format: Annotated[str, typer.Option()],
    log_level: Annotated[str, typer.Option()],
) -> None:
    """A process holding the clients' sockets for ``serve`` (see ``tapisvert.server.relay``)."""
    from tapisvert.server.links import allow_open_files
    from tapisvert.server.relay import run_relay

    gc.set_threshold(*SERVER_GC_THRESHOLDS)
    allow_open_files()
    from tapisvert.server.logs import logging_config

    logs = logging_config(log_format, log_level)
    logging.config.dictConfig(logs)
    run_relay(bus, node, host, port, unread_limit, rate, logs)
