"""The ASGI application: the HTTP API, the WebSocket endpoint, and the server's lifetime."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import gzip
import hashlib
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from importlib.resources import files
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tapisvert.core.registry import game_names, plugin
from tapisvert.i18n import DEFAULT_LANGUAGE, LANGUAGES, accepted_language, catalogue
from tapisvert.rules_pages import rules_html
from tapisvert.server import protocol
from tapisvert.server.addresses import TokenBucket
from tapisvert.server.bot_queue import BotQueue
from tapisvert.server.collector import Collector
from tapisvert.server.commands import Place, run_command
from tapisvert.server.community import community_routes
from tapisvert.server.errors import ServerError, malformed
from tapisvert.server.links import (
    AsgiLink,
    Link,
    accept,
    address_key,
    client_address,
    read_body,
    refuse_body,
)
from tapisvert.server.lobby import ANYONE, Connection, Lobby, Settings, User
from tapisvert.server.protocol import (
    PROTOCOL_VERSION,
    Ack,
    Error,
    Hello,
    ServerMessage,
    Welcome,
)
from tapisvert.server.pubsub import PubSub, is_seat_channel
from tapisvert.server.records import MAX_TABLE_ID, games
from tapisvert.server.redis_bus import RedisPubSub
from tapisvert.server.relay import RelayedSockets
from tapisvert.server.reviews import Asker
from tapisvert.server.rooms import MAIN_ROOM, rooms
from tapisvert.server.storage import open_storage

HELLO_SECONDS = 10.0
DECOMPRESSED_AT_ONCE = 2
"""Replays decompressed at once for clients that take no gzip (each megabytes)."""
WEB = Path(__file__).resolve().parent.parent / "web"
"""The browser app: plain ES modules and CSS, no build step."""


BOARD_TYPES = {"js": "text/javascript", "css": "text/css"}
"""What a game's board is made of: a module, and its style sheet."""


class Credentials(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=32)]
    password: Annotated[str, Field(max_length=200)] = ""


class NewPassword(BaseModel):
    old: Annotated[str, Field(max_length=200)]
    new: Annotated[str, Field(max_length=200)]


class Session(BaseModel):
    token: str
    user: str
    guest: bool


class NewTable(BaseModel):
    room: str = MAIN_ROOM
    game: str
    players: Annotated[int, Field(ge=1, le=16)]
    options: dict[str, protocol.OptionValue] = Field(default_factory=dict)
    clock: Annotated[float, Field(ge=1, le=3600)] | None = None
    rated: bool = True


class SeatChoice(BaseModel):
    seat: Annotated[int, Field(ge=0, le=15)] | None = None


class OptionChoice(BaseModel):
    name: str
    value: Annotated[str, Field(max_length=64)]


class BotChoice(BaseModel):
    level: str
    seat: Annotated[int, Field(ge=0, le=15)] | None = None


class Move(BaseModel):
    seq: Annotated[int, Field(ge=0)]
    action: Annotated[str, Field(min_length=1, max_length=64)]


class ChatText(BaseModel):
    text: Annotated[str, Field(min_length=1, max_length=500)]
    room: str | None = None
    table: int | None = None


async def current_user(request: Request, authorization: Annotated[str, Header()] = "") -> User:
    """The user named by the request's ``Authorization: Bearer`` session token."""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise ServerError("bad_token", status=401)
    lobby: Lobby = request.app.state.lobby
    return replace(await lobby.accounts.authenticate(token), address=peer(request))


Me = Annotated[User, Depends(current_user)]


async def table_number(table_id: int) -> int:
    """A table's number, checked before any look-up: the database's integers stop there,
    and beyond them there is no such table."""
    if not 1 <= table_id <= MAX_TABLE_ID:
        raise ServerError("no_such_table", status=404, table=table_id)
    return table_id


TableId = Annotated[int, Depends(table_number)]


def takes_gzip(accepted: str) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``gzip;q=0`` refuses it)."""
    for part in accepted.lower().split(","):
        coding, _, quality = part.partition(";")
        if coding.strip() in ("gzip", "*"):
            weight = quality.strip().removeprefix("q=")
            try:
                return not quality or float(weight) > 0
            except ValueError:
                return False
    return False


def peer(request: Request) -> str:
    """The address a request comes from, as its quotas count it (see ``address_key``)."""
    return address_key(request.client.host if request.client is not None else "")


def create_app(
    database_url: str,
    settings: Settings | None = None,
    pubsub: PubSub | None = None,
    api_docs: bool = False,
    redis_url: str | None = None,
    collector: Collector | None = None,
    relays: str | None = None,
) -> FastAPI:
    """The server; with ``redis_url``, channels and bot jobs go through that Redis server
    (see ``redis_bus`` and ``bot_queue``), and with ``relays`` too, relays that name this
    node so hold clients' sockets (see ``relay``); with ``collector``, its garbage
    collections are that collector's (see ``collector``).

    The API's own pages (``/docs``, ``/openapi.json``) are there with ``api_docs`` only:
    a public server does not show its map to everyone.
    """
    shared = None if redis_url is None else RedisPubSub(redis_url, asked_first=is_seat_channel)
    if relays is not None and shared is None:
        raise ValueError("relays talk to their node over a Redis bus")
    settings = settings or Settings()
    queue = None if redis_url is None else BotQueue(redis_url, settings.bot_workers)
    storage = open_storage(database_url)
    lobby = Lobby(storage, shared or pubsub, settings, sole=shared is None, thinking=queue)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if shared is not None and queue is not None:
            await shared.start()
            await queue.start()
        await lobby.start()
        gc.freeze()  # what start-up made lives as long as the server: collections skip it
        collecting = None if collector is None else asyncio.create_task(collector.run())
        sockets = None
        if relays is not None and shared is not None:
            sockets = RelayedSockets(shared, relays, lambda link: serve_link(lobby, link))
            await sockets.start()
        yield
        if collecting is not None:
            collecting.cancel()
        if sockets is not None:
            sockets.close()
        await lobby.stop()
        if shared is not None:
            await shared.close()

    app = FastAPI(
        title="tapisvert",
        version=str(PROTOCOL_VERSION),
        lifespan=lifespan,
        docs_url="/docs" if api_docs else None,
        redoc_url=None,
        openapi_url="/openapi.json" if api_docs else None,
    )
    app.state.lobby = lobby
    decompressing = asyncio.Semaphore(DECOMPRESSED_AT_ONCE)

    @app.exception_handler(ServerError)
    async def refused(request: Request, error: ServerError) -> JSONResponse:
        language = accepted_language(request.headers.get("accept-language"))
        return JSONResponse(error.body(language), status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def malformed_request(request: Request, error: RequestValidationError) -> JSONResponse:
        return await refused(request, malformed(error.errors()))

    @app.post("/api/guest")
    async def guest(body: Credentials, request: Request) -> Session:
        token, user = await lobby.accounts.guest(body.name, peer(request))
        return Session(token=token, user=user.name, guest=True)

    @app.post("/api/register")
    async def register(body: Credentials, request: Request) -> Session:
        token, user = await lobby.accounts.register(body.name, body.password, peer(request))
        return Session(token=token, user=user.name, guest=False)

    @app.post("/api/login")
    async def login(body: Credentials, request: Request) -> Session:
        token, user = await lobby.accounts.login(body.name, body.password, peer(request))
        return Session(token=token, user=user.name, guest=False)

    @app.post("/api/logout", status_code=204)
    async def logout(user: Me) -> None:
        await lobby.accounts.sign_out(user)

    @app.post("/api/password", status_code=204)
    async def change_password(body: NewPassword, user: Me, request: Request) -> None:
        if user.guest:
            raise ServerError("guest_password", status=403)
        await lobby.accounts.change_password(user, body.old, body.new, peer(request))

    @app.get("/api/games")
    async def list_games() -> list[dict[str, Any]]:
        return games()

    @app.get("/api/protocol")
    async def schemas() -> dict[str, Any]:
        return protocol.schemas()

    @app.get("/api/rooms")
    async def list_rooms(request: Request) -> list[protocol.RoomInfo]:
        lobby.quotas.take("listings", peer(request))
        return [await lobby.rooms.room_info(room) for room in rooms()]

    @app.get("/api/rooms/{room}")
    async def room(room: str, request: Request) -> protocol.RoomInfo:
        lobby.quotas.take("listings", peer(request))
        return await lobby.rooms.room_info(room)

    @app.post("/api/tables")
    async def create_table(body: NewTable, user: Me) -> protocol.TableInfo:
        table = await lobby.tables.create_table(
            user, body.room, body.game, body.players, body.options, body.clock, body.rated
        )
        return table.info()

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: TableId) -> protocol.TableInfo:
        return await lobby.records.table_info(table_id)

    @app.get("/api/tables/{table_id}/view")
    async def table_view(table_id: TableId, user: Me) -> Response:
        return Response(await lobby.tables.view(user, table_id), media_type="application/json")

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: TableId, body: SeatChoice, user: Me) -> Ack:
        await lobby.tables.join(user, table_id, body.seat)
        return Ack(table=table_id)

    @app.post("/api/tables/{table_id}/leave")
    async def leave(table_id: TableId, user: Me) -> Ack:
        await lobby.tables.leave(user, table_id)
        return Ack(table=table_id)

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: TableId, user: Me) -> Ack:
        await lobby.tables.start_game(user, table_id)
        return Ack(table=table_id)

    @app.post("/api/tables/{table_id}/rematch")
    async def rematch(table_id: TableId, user: Me) -> Ack:
        return Ack(table=await lobby.tables.rematch(user, table_id))

    @app.post("/api/tables/{table_id}/options")
    async def set_option(table_id: TableId, body: OptionChoice, user: Me) -> Ack:
        await lobby.tables.set_option(user, table_id, body.name, body.value)
        return Ack(table=table_id)

    @app.post("/api/tables/{table_id}/bots")
    async def add_bot(table_id: TableId, body: BotChoice, user: Me) -> Ack:
        await lobby.tables.add_bot(user, table_id, body.level, body.seat)
        return Ack(table=table_id)

    @app.get("/api/tables/{table_id}/who")
    async def who(table_id: TableId) -> protocol.People:
        return await lobby.rooms.who(None, table_id, ANYONE)

    @app.post("/api/tables/{table_id}/actions")
    async def act(table_id: TableId, body: Move, user: Me) -> Ack:
        seq = await lobby.tables.act(user, table_id, body.action, body.seq)
        return Ack(table=table_id, seq=seq)

    @app.post("/api/chat")
    async def chat(body: ChatText, user: Me, request: Request) -> ServerMessage:
        language = accepted_language(request.headers.get("accept-language"))
        return await _chat(lobby, user, language, body.text, body.room, body.table)

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: TableId, format: Literal["json", "text"] = "json") -> Response:
        game_record = await lobby.records.record(table_id)
        if format == "text":
            return PlainTextResponse(game_record.to_text())
        return Response(game_record.to_json(), media_type="application/json")

    @app.get("/api/catalogue/{language}")
    async def texts(language: str) -> dict[str, str]:
        """Every text of the web pages, in one language."""
        if language not in LANGUAGES:
            raise ServerError("no_such_language", status=404, languages=", ".join(LANGUAGES))
        return dict(catalogue(language))

    @app.get("/api/rules/{game}")
    async def rules(game: str, request: Request, language: str | None = None) -> dict[str, str]:
        """A game's rules for players, as HTML, in ``language`` (else the Accept-Language)."""
        chosen = language or accepted_language(request.headers.get("accept-language"))
        if chosen not in LANGUAGES:
            raise ServerError("no_such_language", status=404, languages=", ".join(LANGUAGES))
        if game not in game_names():
            raise ServerError("no_such_game", status=404, game=game, games=", ".join(game_names()))
        return {"game": game, "language": chosen, "html": rules_html(game, chosen)}

    @app.get("/games/{game}.{kind}")
    async def board(game: str, kind: str) -> Response:
        """A game's board for the browser (a module and its style), from its plugin."""
        if kind not in BOARD_TYPES or game not in game_names():
            raise ServerError("no_such_game", status=404, game=game, games=", ".join(game_names()))
        source = files(plugin(game).web_board).joinpath(f"{game}.{kind}")
        return Response(source.read_bytes(), media_type=BOARD_TYPES[kind])

    @app.get("/api/tables/{table_id}/review")
    async def review(
        table_id: TableId,
        seat: Annotated[int, Query(ge=0, le=15)],
        response: Response,
        request: Request,
        user: Me,
    ) -> dict[str, Any]:
        """The review of ``seat``'s decisions in a finished game: 202 while it is computed."""
        asker = Asker(user.id, user.guest, peer(request))
        found = await lobby.reviews.review(table_id, seat, asker)
        if found is None:
            response.status_code = 202
            return {"status": "computing"}
        return {"status": "ready", **found}

    @app.get("/api/tables/{table_id}/replay")
    async def replay(table_id: TableId, request: Request) -> Response:
        """Large, and much alike from one step to the next: kept compressed, and sent so
        to a client that takes it so (a few at a time are decompressed for the others)."""
        lobby.quotas.take("replays", peer(request))
        compressed = await lobby.replays.replay(table_id)
        headers = {"Vary": "Accept-Encoding"}
        if not takes_gzip(request.headers.get("accept-encoding", "")):
            async with decompressing:
                steps = await asyncio.to_thread(gzip.decompress, compressed)
            return Response(steps, media_type="application/json", headers=headers)
        headers["Content-Encoding"] = "gzip"
        return Response(compressed, media_type="application/json", headers=headers)

    app.include_router(community_routes(lobby))
    app.add_middleware(SocketEndpoint, lobby=lobby)
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders)
    app.mount("/", StaticFiles(directory=WEB, html=True), name="web")
    return app


def _content_security_policy() -> str:
    """Scripts and styles from this server only (the page's one inline script, its import
    map, by its hash); no frames around the page, no plugins, no foreign forms."""
    page = (WEB / "index.html").read_text(encoding="utf-8")
    inline = re.findall(r"<script[^>]*>(.*?)</script>", page, flags=re.DOTALL)
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
        for text in inline
        if text.strip()
    )
    return (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


class SecurityHeaders:
    """Headers that tell a browser what the pages may do: every HTTP answer carries them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = [
            (b"content-security-policy", _content_security_policy().encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, with_headers)


class BodyLimit:
    """HTTP request bodies of ``MAX_BODY_BYTES`` at most, read before anything else."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive)
        except ServerError as refusal:
            accepted = dict(scope["headers"]).get(b"accept-language", b"").decode("latin-1")
            await refuse_body(send, refusal, accepted_language(accepted))
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()  # a disconnect, once the response is sent
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


class SocketEndpoint:
    """The WebSocket endpoint ``/ws``, ahead of the routing.

    Every move sends a frame to each seat; here they go straight to the server's socket,
    without the layers that HTTP routes need (exception handlers, routing, dependencies).
    """

    def __init__(self, app: ASGIApp, lobby: Lobby) -> None:
        self.app = app
        self.lobby = lobby

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket" or scope["path"] != "/ws":
            await self.app(scope, receive, send)
            return
        if await accept(receive, send):
            link = AsgiLink(receive, send, client_address(scope))
            await serve_link(self.lobby, link)
            await link.wait_closed()


async def serve_link(lobby: Lobby, link: Link) -> None:
    """One client, from its ``hello`` until it leaves; refused at once when its address
    holds too many sockets or is barred."""
    try:
        bucket = lobby.addresses.open(link.address)
    except ServerError as refusal:
        link.push(
            Error(code=refusal.code, message=refusal.render(DEFAULT_LANGUAGE)).model_dump_json()
        )
        link.drop()
        return
    try:
        connection = await _greet(lobby, link, bucket)
        if connection is not None:
            try:
                await _listen(lobby, link, connection)
            finally:
                lobby.connections.disconnect(connection)
    finally:
        lobby.addresses.close(link.address)
    link.close()


async def _greet(lobby: Lobby, link: Link, bucket: TokenBucket) -> Connection | None:
    """Wait for a valid ``hello``; anything else is refused and the link closed."""
    try:
        text = await asyncio.wait_for(link.receive(), HELLO_SECONDS)
        if text is None:
            return None
        hello = Hello.model_validate_json(text)
        if hello.version != PROTOCOL_VERSION:
            raise ServerError("version", version=hello.version, supported=PROTOCOL_VERSION)
        user = replace(await lobby.accounts.authenticate(hello.token), address=link.address)
        if lobby.addresses.barred(link.address):  # barred while this socket said nothing
            raise ServerError("address_barred", status=429)
        lobby.connections.may_connect(user)
    except (ValidationError, ServerError, TimeoutError) as error:
        refusal = error if isinstance(error, ServerError) else ServerError("hello_first")
        frame = Error(code=refusal.code, message=refusal.render(DEFAULT_LANGUAGE))
        link.push(frame.model_dump_json())
        link.drop()  # whatever else it sends is not read
        return None
    language = hello.language or DEFAULT_LANGUAGE
    link.push(Welcome(user=user.name, language=language, rooms=list(rooms())).model_dump_json())
    return await lobby.connections.connect(user, language, link, bucket)


async def _listen(lobby: Lobby, link: Link, connection: Connection) -> None:
    while not connection.closed:
        text = await link.receive()
        if text is None:
            return
        answer = await _answer(lobby, connection, text)
        if answer is not None:
            connection.send(answer)


async def _answer(lobby: Lobby, connection: Connection, text: str) -> ServerMessage | None:
    """Handle one message; a refusal comes back as an ``Error`` and changes nothing."""
    language = connection.language
    request_id: str | None = None
    try:
        if not connection.within_rate():  # before any work: a flood costs next to nothing
            request_id = _request_id(text)
            raise ServerError("rate_limited", status=429)
        if len(text.encode()) > protocol.MAX_MESSAGE_BYTES:
            raise ServerError("too_long", limit=protocol.MAX_MESSAGE_BYTES)
        try:
            message = protocol.incoming.validate_json(text)
        except ValidationError as error:
            request_id = _request_id(text)
            raise malformed(error.errors(include_url=False)) from None
        request_id = message.id
        if connection.repeated(request_id):
            raise ServerError("duplicate", id=request_id)
        answer = await _dispatch(lobby, connection, message)
        if answer is not None and getattr(answer, "id", request_id) != request_id:
            answer = answer.model_copy(update={"id": request_id})
        return answer
    except ServerError as error:
        return Error(id=request_id, code=error.code, message=error.render(language))


def _request_id(text: str) -> str | None:
    """The ``id`` of a message that is refused before it is read, if it has a readable one,
    so that its sender knows which request the refusal answers."""
    if len(text) > protocol.MAX_MESSAGE_BYTES:
        return None
    try:
        message = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, str) and len(found) <= protocol.MAX_ID_LENGTH else None


async def _dispatch(lobby: Lobby, connection: Connection, message: Any) -> ServerMessage | None:
    user = connection.user
    request_id = message.id
    match message:
        case protocol.Hello():
            raise ServerError("already_greeted")
        case protocol.Act(table=table, seq=seq, action=action):
            new_seq = await lobby.tables.act(user, table, action, seq, request_id)
            if connection.follows_seat(table):
                return None  # the mover's view of the new position carries the id
            return Ack(id=request_id, table=table, seq=new_seq)
        case protocol.EnterRoom(room=room):
            entered = await lobby.rooms.enter(connection, room)
            connection.send(entered.model_copy(update={"id": request_id}))
            connection.recall(lobby.rooms.history[room])
            return None
        case protocol.Chat(text=text, room=room, table=table):
            answer = await _chat(lobby, user, connection.language, text, room, table)
            return (
                answer.model_copy(update={"id": request_id}) if isinstance(answer, Ack) else answer
            )
        case protocol.CreateTable():
            created = await lobby.tables.create_table(
                user,
                message.room,
                message.game,
                message.players,
                message.options,
                message.clock,
                message.rated,
            )
            return Ack(id=request_id, table=created.id)
        case protocol.Join(table=table, seat=seat):
            await lobby.tables.join(user, table, seat)
        case protocol.TableRequest(type="leave", table=table):
            await lobby.tables.leave(user, table)
        case protocol.TableRequest(type="watch", table=table):
            await lobby.tables.watch(connection, table)
        case protocol.TableRequest(type="start", table=table):
            await lobby.tables.start_game(user, table)
        case protocol.TableRequest(type="rematch", table=table):
            return Ack(id=request_id, table=await lobby.tables.rematch(user, table))
        case protocol.SetOption(table=table, name=name, value=value):
            await lobby.tables.set_option(user, table, name, value)
        case protocol.AddBot(table=table, level=level, seat=seat):
            await lobby.tables.add_bot(user, table, level, seat)
        case protocol.Who(room=room, table=table):
            return await lobby.rooms.who(room, table, user)
        case protocol.Ping(type="help"):
            return await run_command(lobby, user, connection.language, "/help", Place(None, None))
        case protocol.Ping(type="ping"):
            return Ack(id=request_id)
    return Ack(id=request_id, table=getattr(message, "table", None))


async def _chat(
    lobby: Lobby, user: User, language: str, text: str, room: str | None, table: int | None
) -> ServerMessage:
    lobby.quotas.take("chat", user.id)
    if text.startswith("/") and len(text) > 1:
        return await run_command(lobby, user, language, text, Place(room, table))
    await lobby.rooms.chat(user, text, room, table)
    return Ack(table=table)
