"""Tables over HTTP: making one, sitting down and leaving, its options and bots, playing,
taking a move back."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from tapisvert.i18n import accepted_language
from tapisvert.server import protocol
from tapisvert.server.lobby import ANYONE
from tapisvert.server.protocol import Ack
from tapisvert.server.rooms import MAIN_ROOM
from tapisvert.server.routes.dependencies import Me, TableId, TheLobby
from tapisvert.server.speeds import LONGEST_CLOCK, TimeoutRule, speed_of
from tapisvert.server.storage import TableRow

router = APIRouter()


class NewTable(BaseModel):
    room: str = MAIN_ROOM
    game: str
    players: Annotated[int, Field(ge=1, le=16)]
    options: dict[str, protocol.OptionValue] = Field(default_factory=dict)
    clock: Annotated[float, Field(ge=1, le=LONGEST_CLOCK)] | None = None
    """Seconds a move; an hour or more makes a table played over days."""
    timeout: TimeoutRule = "bot"
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


class TakeBackRequest(BaseModel):
    seq: Annotated[int, Field(ge=0)] | None = None
    answer: Literal["ask", "yes", "no"] = "ask"


@router.post("/api/tables")
async def create_table(body: NewTable, user: Me, lobby: TheLobby) -> protocol.TableInfo:
    table = await lobby.tables.create_table(
        user,
        body.room,
        body.game,
        body.players,
        body.options,
        body.clock,
        body.rated,
        body.timeout,
    )
    return table.info()


class GameOverDays(BaseModel):
    """A table over days where the person sits, as their list shows it."""

    table: int
    game: str
    players: list[str]
    """Each seat's name, in seat order."""
    seat: int
    clock: float
    deadline: float | None
    """When the clock of the person to act runs out (``None``: a bot is to play)."""
    to_act: str | None
    """Whose turn it is, by name (``None``: a bot's, or nobody's yet)."""


class GamesOverDays(BaseModel):
    your_turn: list[GameOverDays]
    """The soonest clock first."""
    waiting: list[GameOverDays]
    """Tables where another plays now, the latest first."""


@router.get("/api/turns")
async def turns(user: Me, lobby: TheLobby) -> GamesOverDays:
    """The person's games over days under way: those where it is their turn, with how long
    is left, and those where they wait for another."""
    tables = lobby.storage.tables
    mine = [game for row in await tables.turns_of(user.id) if (game := _over_days(row, user.id))]
    waiting = [
        game
        for row in await tables.seated(user.id, ["playing"])
        if speed_of(row.clock) == "days" and row.to_act != user.id
        if (game := _over_days(row, user.id))
    ]
    return GamesOverDays(your_turn=mine, waiting=waiting[::-1])


def _over_days(row: TableRow, user_id: int) -> GameOverDays | None:
    """The table as the person's list shows it; ``None`` where they no longer play there
    (taken from the table, or out of time under the table's rule)."""
    names = [seat.get("name") or "" for seat in row.seats]
    seat = next(
        (
            index
            for index, seat in enumerate(row.seats)
            if seat.get("user_id") == user_id and not seat.get("forfeited")
        ),
        None,
    )
    if seat is None:
        return None
    acting = [seat.get("name") for seat in row.seats if seat.get("user_id") == row.to_act]
    to_act = acting[0] if row.to_act is not None and acting else None
    return GameOverDays(
        table=row.id,
        game=row.game,
        players=names,
        seat=seat,
        clock=row.clock or 0.0,
        deadline=row.deadline,
        to_act=to_act,
    )


class QuickTable(BaseModel):
    room: str = MAIN_ROOM
    game: str
    level: str = "easy"
    friends: bool = False


@router.post("/api/tables/play-now")
async def play_now(body: QuickTable, user: Me, lobby: TheLobby) -> protocol.TableInfo:
    table = await lobby.tables.play_now(user, body.room, body.game, body.level, body.friends)
    return await lobby.records.table_info(table)


@router.get("/api/tables/{table_id}")
async def table_info(table_id: TableId, lobby: TheLobby) -> protocol.TableInfo:
    return await lobby.records.table_info(table_id)


@router.get("/api/tables/{table_id}/view")
async def table_view(table_id: TableId, user: Me, lobby: TheLobby) -> Response:
    return Response(await lobby.tables.view(user, table_id), media_type="application/json")


@router.post("/api/tables/{table_id}/join")
async def join(table_id: TableId, body: SeatChoice, user: Me, lobby: TheLobby) -> Ack:
    await lobby.tables.join(user, table_id, body.seat)
    return Ack(table=table_id)


@router.post("/api/tables/{table_id}/leave")
async def leave(table_id: TableId, user: Me, lobby: TheLobby) -> Ack:
    await lobby.tables.leave(user, table_id)
    return Ack(table=table_id)


@router.post("/api/tables/{table_id}/start")
async def start(table_id: TableId, user: Me, lobby: TheLobby) -> Ack:
    await lobby.tables.start_game(user, table_id)
    return Ack(table=table_id)


@router.post("/api/tables/{table_id}/rematch")
async def rematch(table_id: TableId, user: Me, lobby: TheLobby) -> Ack:
    return Ack(table=await lobby.tables.rematch(user, table_id))


@router.post("/api/tables/{table_id}/options")
async def set_option(table_id: TableId, body: OptionChoice, user: Me, lobby: TheLobby) -> Ack:
    await lobby.tables.set_option(user, table_id, body.name, body.value)
    return Ack(table=table_id)


@router.post("/api/tables/{table_id}/bots")
async def add_bot(table_id: TableId, body: BotChoice, user: Me, lobby: TheLobby) -> Ack:
    await lobby.tables.add_bot(user, table_id, body.level, body.seat)
    return Ack(table=table_id)


@router.get("/api/tables/{table_id}/who")
async def who(table_id: TableId, request: Request, lobby: TheLobby) -> protocol.People:
    """Who sits and watches there, and the same in words in the Accept-Language."""
    language = accepted_language(request.headers.get("accept-language"))
    return await lobby.rooms.who(None, table_id, ANYONE, language)


@router.post("/api/tables/{table_id}/actions")
async def act(table_id: TableId, body: Move, user: Me, lobby: TheLobby) -> Ack:
    seq = await lobby.tables.act(user, table_id, body.action, body.seq)
    return Ack(table=table_id, seq=seq)


@router.post("/api/tables/{table_id}/take-back")
async def take_back(table_id: TableId, body: TakeBackRequest, user: Me, lobby: TheLobby) -> Ack:
    """Take back one's last move, or answer another player's request (see ``taking_back``)."""
    seq = await lobby.tables.take_back(user, table_id, body.seq, body.answer)
    return Ack(table=table_id, seq=seq)
