"""What the routes are given: the lobby, the person asking, a table's number, an address."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from fastapi import Depends, Header, Request

from tapisvert.server.errors import ServerError
from tapisvert.server.links import address_key
from tapisvert.server.lobby import Lobby, User
from tapisvert.server.logs import USER
from tapisvert.server.records import MAX_TABLE_ID


async def lobby_of(request: Request) -> Lobby:
    """The lobby ``create_app`` made for this application (a coroutine: FastAPI would run a
    plain function in a worker thread, a thread hop for every request)."""
    lobby: Lobby = request.app.state.lobby
    return lobby


TheLobby = Annotated[Lobby, Depends(lobby_of)]


def peer(request: Request) -> str:
    """The address a request comes from, as its quotas count it (see ``address_key``)."""
    return address_key(request.client.host if request.client is not None else "")


async def current_user(
    request: Request, lobby: TheLobby, authorization: Annotated[str, Header()] = ""
) -> User:
    """The user named by the request's ``Authorization: Bearer`` session token."""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise ServerError("bad_token", status=401)
    address = peer(request)
    user = await lobby.accounts.authenticate(token, address)
    USER.set(user.name)  # the request's log lines are about them (a coroutine: same task)
    return replace(user, address=address)


Me = Annotated[User, Depends(current_user)]


async def table_number(table_id: int) -> int:
    """A table's number, checked before any look-up: the database's integers stop there,
    and beyond them there is no such table."""
    if not 1 <= table_id <= MAX_TABLE_ID:
        raise ServerError("no_such_table", status=404, table=table_id)
    return table_id


TableId = Annotated[int, Depends(table_number)]
