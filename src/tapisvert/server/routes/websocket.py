"""The WebSocket endpoint ``/ws``: one client's socket, from its ``hello`` until it leaves.

It is an ASGI middleware ahead of the routing rather than a router's route: every move
sends a frame to each seat, and here they go straight to the server's socket, without the
layers that HTTP routes need (exception handlers, routing, dependencies).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import Any

import orjson
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from tapisvert.i18n import DEFAULT_LANGUAGE
from tapisvert.server import protocol
from tapisvert.server.addresses import TokenBucket
from tapisvert.server.commands import Place, run_command
from tapisvert.server.errors import ServerError, malformed
from tapisvert.server.links import AsgiLink, Link, accept, client_address
from tapisvert.server.lobby import Connection, Lobby
from tapisvert.server.logs import USER
from tapisvert.server.protocol import PROTOCOL_VERSION, Ack, Error, Hello, ServerMessage, Welcome
from tapisvert.server.rooms import rooms
from tapisvert.server.routes.chat import say

HELLO_SECONDS = 10.0

_log = logging.getLogger(__name__)


class SocketEndpoint:
    """The WebSocket endpoint ``/ws``, ahead of the routing (see above)."""

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
    holds too many sockets or is barred, or when this node is stopping."""
    try:
        if lobby.cluster.draining:
            raise ServerError("draining", status=503)
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
            USER.set(connection.user.name)  # this task's log lines are about them
            try:
                lobby.background.spawn(_social(lobby, connection))  # while it is served
                await _listen(lobby, link, connection)
            finally:
                lobby.social.disconnected(connection)
                lobby.connections.disconnect(connection)
    finally:
        lobby.addresses.close(link.address)
    link.close()


async def _greet(lobby: Lobby, link: Link, bucket: TokenBucket) -> Connection | None:
    """Wait for a valid ``hello``; anything else is refused and the link closed (in the
    hello's language once it is read: a banned person reads why)."""
    language = DEFAULT_LANGUAGE
    try:
        text = await asyncio.wait_for(link.receive(), HELLO_SECONDS)
        if text is None:
            return None
        hello = Hello.model_validate_json(text)
        language = hello.language or DEFAULT_LANGUAGE
        if hello.version != PROTOCOL_VERSION:
            raise ServerError("version", version=hello.version, supported=PROTOCOL_VERSION)
        user = await lobby.accounts.authenticate(hello.token, link.address)
        user = replace(user, address=link.address)
        if lobby.addresses.barred(link.address):  # barred while this socket said nothing
            raise ServerError("address_barred", status=429)
        lobby.connections.may_connect(user)
    except (ValidationError, ServerError, TimeoutError) as error:
        refusal = error if isinstance(error, ServerError) else ServerError("hello_first")
        frame = Error(code=refusal.code, message=refusal.render(language))
        link.push(frame.model_dump_json())
        link.drop()  # whatever else it sends is not read
        return None
    link.push(Welcome(user=user.name, language=language, rooms=list(rooms())).model_dump_json())
    connection = await lobby.connections.connect(user, language, link, bucket)
    await lobby.reports.tell_handled(connection)
    return connection


async def _social(lobby: Lobby, connection: Connection) -> None:
    """The person's friends, ignored and unread messages, sent as soon as the database
    answers: the connection is served meanwhile, and carries on without them if it fails
    (it hears the changes that come)."""
    try:
        await lobby.social.connected(connection)
        await lobby.messages.unread_for(connection)
    except ServerError as refusal:
        _log.warning(
            "the friends and messages of %s are out of reach: %s",
            connection.user.name,
            refusal.code,
        )


async def _listen(lobby: Lobby, link: Link, connection: Connection) -> None:
    while not connection.closed:
        text = await link.receive()
        if text is None:
            return
        connection.busy = True
        answer = await _answer(lobby, connection, text)
        if answer is not None:
            connection.send(answer)
        connection.busy = False
        if connection.leaving:
            connection.reconnect()


async def _answer(lobby: Lobby, connection: Connection, text: str) -> ServerMessage | None:
    """Handle one message; a refusal comes back as an ``Error`` and changes nothing."""
    language = connection.language
    received = time.perf_counter()
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
        answer = await _dispatch(lobby, connection, message, received)
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


async def _dispatch(
    lobby: Lobby, connection: Connection, message: Any, received: float
) -> ServerMessage | None:
    """Do what ``message`` asks (read at ``received``, by ``time.perf_counter``)."""
    user = connection.user
    request_id = message.id
    match message:
        case protocol.Hello():
            raise ServerError("already_greeted")
        case protocol.Act(table=table, seq=seq, action=action):
            new_seq = await lobby.tables.act(user, table, action, seq, request_id)
            lobby.metrics.move_seconds.observe(time.perf_counter() - received)
            if connection.follows_seat(table):
                return None  # the mover's view of the new position carries the id
            return Ack(id=request_id, table=table, seq=new_seq)
        case protocol.TakeBack(table=table, seq=seq):
            new_seq = await lobby.tables.take_back(user, table, seq, message.answer)
            return Ack(id=request_id, table=table, seq=new_seq)
        case protocol.EnterRoom(room=room):
            entered = await lobby.rooms.enter(connection, room)
            connection.send(entered.model_copy(update={"id": request_id}))
            connection.recall(lobby.rooms.history[room])
            return None
        case protocol.FollowTournament(tournament=tournament):
            await lobby.rooms.follow(connection, tournament)
        case protocol.Chat(text=text, room=room, table=table):
            answer = await say(lobby, user, connection.language, text, room, table)
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
                message.timeout,
            )
            return Ack(id=request_id, table=created.id)
        case protocol.PlayNow(room=room, game=game, level=level, friends=friends):
            table = await lobby.tables.play_now(user, room, game, level, friends)
            return Ack(id=request_id, table=table)
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
        case protocol.Invite(table=table, name=name, seat=seat):
            await lobby.own_bots.invite(user, table, name, seat)
        case protocol.Who(room=room, table=table):
            return await lobby.rooms.who(room, table, user, connection.language)
        case protocol.Ping(type="help"):
            return await run_command(lobby, user, connection.language, "/help", Place(None, None))
        case protocol.Ping(type="ping"):
            return Ack(id=request_id)
    return Ack(id=request_id, table=getattr(message, "table", None))
