"""The ASGI application: its parts built and wired together, and the server's lifetime.

The routes are in ``routes`` (one router per area), the WebSocket endpoint in
``routes.websocket``, what every request goes through in ``routes.middleware``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from prometheus_client import start_http_server

from tapisvert.server.collector import Collector
from tapisvert.server.errors import ServerError
from tapisvert.server.health import Health
from tapisvert.server.lobby import Lobby, Settings
from tapisvert.server.logs import NODE
from tapisvert.server.protocol import PROTOCOL_VERSION
from tapisvert.server.pubsub import PubSub
from tapisvert.server.routes import (
    account_life,
    accounts,
    api,
    bots,
    chat,
    community,
    exports,
    health,
    moderation,
    pages,
    records,
    rooms,
    social,
    tables,
    tournaments,
)
from tapisvert.server.routes.middleware import BodyLimit, LogContext, SecurityHeaders
from tapisvert.server.routes.records import DECOMPRESSED_AT_ONCE
from tapisvert.server.routes.refusals import malformed_request, refused
from tapisvert.server.routes.websocket import SocketEndpoint, serve_link
from tapisvert.server.storage import open_storage

if TYPE_CHECKING:
    from tapisvert.server.bot_queue import BotQueue
    from tapisvert.server.redis_bus import RedisPubSub

ROUTERS = (
    health.router,
    accounts.router,
    account_life.router,
    api.router,
    rooms.router,
    tables.router,
    bots.router,
    tournaments.router,
    chat.router,
    records.router,
    exports.router,
    pages.router,
    community.router,
    moderation.router,
    social.router,
)


def create_app(
    database_url: str,
    settings: Settings | None = None,
    pubsub: PubSub | None = None,
    api_docs: bool = False,
    redis_url: str | None = None,
    collector: Collector | None = None,
    relays: str | None = None,
    metrics_address: tuple[str, int] | None = None,
) -> FastAPI:
    """The server; with ``redis_url``, channels and bot jobs go through that Redis server
    (see ``redis_bus`` and ``bot_queue``), and with ``relays`` too, relays that name this
    node so hold clients' sockets (see ``relay``); with ``collector``, its garbage
    collections are that collector's (see ``collector``); with ``metrics_address`` (a host
    and a port), the node keeps its metrics and serves them there, apart from the public
    server (see ``metrics``).

    The API's own pages (``/docs``, ``/openapi.json``) are there with ``api_docs`` only:
    a public server does not show its map to everyone.
    """
    if relays is not None and redis_url is None:
        raise ValueError("relays talk to their node over a Redis bus")
    settings = settings or Settings()
    shared, queue = (None, None) if redis_url is None else _bus(redis_url, settings)
    storage = open_storage(database_url)
    lobby = Lobby(
        storage,
        shared or pubsub,
        settings,
        sole=shared is None,
        thinking=queue,
        metrics=metrics_address is not None,
    )
    if collector is not None and lobby.metrics.kept:
        collector.paused = lobby.metrics.paused
    app = FastAPI(
        title="tapisvert",
        version=str(PROTOCOL_VERSION),
        lifespan=_lifespan(lobby, shared, queue, collector, relays, metrics_address),
        docs_url="/docs" if api_docs else None,
        redoc_url=None,
        openapi_url="/openapi.json" if api_docs else None,
    )
    app.state.lobby = lobby
    app.state.health = Health(storage, shared, lobby.thinking, lobby.cluster)
    app.state.decompressing = asyncio.Semaphore(DECOMPRESSED_AT_ONCE)
    app.exception_handler(ServerError)(refused)
    app.exception_handler(RequestValidationError)(malformed_request)
    for router in ROUTERS:
        app.include_router(router)
    app.add_middleware(SocketEndpoint, lobby=lobby)
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(LogContext, node=lobby.presence.node)
    app.mount("/", pages.web_files(), name="web")
    return app


def _bus(redis_url: str, settings: Settings) -> tuple[RedisPubSub, BotQueue]:
    """The channels and the bot queue on Redis, imported only for a node that has a bus
    (redis-py is a good part of the time a server takes to start)."""
    from tapisvert.server.bot_queue import BotQueue
    from tapisvert.server.pubsub import is_seat_channel
    from tapisvert.server.redis_bus import RedisPubSub

    return RedisPubSub(redis_url, asked_first=is_seat_channel), BotQueue(
        redis_url, settings.bot_workers
    )


def _lifespan(
    lobby: Lobby,
    shared: RedisPubSub | None,
    queue: BotQueue | None,
    collector: Collector | None,
    relays: str | None,
    metrics_address: tuple[str, int] | None,
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    """The server's lifetime: the bus and the bot queue first, then the lobby, then the
    relays' sockets and the metrics' listener; stopped the other way round."""

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        NODE.set(lobby.presence.node)  # the tasks started here inherit it
        if shared is not None and queue is not None:
            await shared.start()
            await queue.start()
        await lobby.start()
        gc.freeze()  # what start-up made lives as long as the server: collections skip it
        collecting = None if collector is None else asyncio.create_task(collector.run())
        sockets = None
        if relays is not None and shared is not None:
            from tapisvert.server.relay import RelayedSockets

            sockets = RelayedSockets(shared, relays, lambda link: serve_link(lobby, link))
            await sockets.start()
        listener = None
        if metrics_address is not None:
            host, port = metrics_address
            listener = start_http_server(port, host, registry=lobby.metrics.registry)[0]
        yield
        if listener is not None:
            listener.shutdown()
            listener.server_close()
        if collecting is not None:
            collecting.cancel()
        if sockets is not None:
            sockets.close()
        await lobby.stop()
        if shared is not None:
            await shared.close()

    return lifespan
