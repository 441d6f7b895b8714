"""Tournaments over HTTP: the list, one tournament's page, making one, joining and leaving."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from tapisvert.server import protocol
from tapisvert.server.moderation import MAX_REASON
from tapisvert.server.rooms import MAIN_ROOM
from tapisvert.server.routes.dependencies import Me, TheLobby
from tapisvert.server.speeds import DAYS_CLOCK
from tapisvert.server.storage.tournaments import TournamentRow
from tapisvert.server.tournaments.formats import Fill
from tapisvert.server.tournaments.service import MAX_ROUNDS, Format, NewTournament, Progress

router = APIRouter()


class TournamentBody(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=64)]
    game: str
    table_size: Annotated[int, Field(ge=2, le=16)]
    format: Format = "swiss"
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] = 3
    starts_at: float
    """Seconds since the epoch (UTC)."""
    registration_ends: float | None = None
    """By default, when the tournament starts."""
    options: dict[str, protocol.OptionValue] = Field(default_factory=dict)
    clock: Annotated[float, Field(ge=1, le=DAYS_CLOCK - 1)] | None = None
    """Seconds a move: a tournament is played live (its rounds start together)."""
    advance: Annotated[int, Field(ge=1, le=15)] = 1
    fill: Fill = "bots"
    bot_level: Annotated[str, Field(max_length=32)] = "easy"
    room: str = MAIN_ROOM


class TournamentInfo(BaseModel):
    tournament: int
    name: str
    room: str
    game: str
    options: dict[str, Any]
    clock: float | None
    format: Format
    table_size: int
    rounds: int
    advance: int
    fill: Fill
    bot_level: str
    starts_at: float
    registration_ends: float
    status: str
    """``registering``, ``running``, ``finished`` or ``cancelled`` (by a moderator, or for
    too few players)."""
    round: int
    """The round under way (0 before the first)."""
    winner: str | None = None
    cancelled_by: str | None = None
    """The moderator who cancelled it (none: too few players, or not cancelled)."""
    cancel_reason: str | None = None


class Cancelling(BaseModel):
    reason: Annotated[str, Field(max_length=MAX_REASON)]


class Entry(BaseModel):
    name: str
    withdrawn: bool


class RoundTableInfo(BaseModel):
    round: int
    table: int
    players: list[str | None]
    """Each seat's player (``None``: a bot)."""
    absent: list[str]
    """Who was away when the round began: a bot played for them."""
    closed: bool
    """A moderator closed the table: its game counts for nobody."""


class StandingInfo(BaseModel):
    rank: int
    name: str
    points: float
    opponents_points: float
    margin: float
    games: int
    out: bool
    """Knocked out, or withdrawn."""


class TournamentPage(TournamentInfo):
    players: list[Entry]
    tables: list[RoundTableInfo]
    standings: list[StandingInfo]


def _info(row: TournamentRow, winner: str | None = None) -> dict[str, Any]:
    """The fields of ``TournamentInfo``: the row's own, its number and its winner's name."""
    own = TournamentInfo.model_fields.keys() - {"tournament", "winner"}
    return {"tournament": row.id, "winner": winner, **{name: getattr(row, name) for name in own}}


def _page(progress: Progress) -> TournamentPage:
    names = {entrant.user_id: entrant.name for entrant in progress.entrants}
    withdrawn = {entrant.user_id for entrant in progress.entrants if entrant.withdrawn_at}
    row = progress.tournament
    return TournamentPage(
        **_info(row, None if row.winner_id is None else names.get(row.winner_id)),
        players=[
            Entry(name=names[entrant.user_id], withdrawn=entrant.user_id in withdrawn)
            for entrant in progress.entrants
        ],
        tables=[
            RoundTableInfo(
                round=table.round,
                table=table.table_id,
                players=[
                    None if player is None else names.get(player, "?") for player in table.seating
                ],
                absent=sorted(names.get(player, "?") for player in table.absent),
                closed=table.table_id in progress.closed,
            )
            for table in progress.tables
        ],
        standings=[
            StandingInfo(
                rank=standing.rank,
                name=names[standing.player],
                points=standing.points,
                opponents_points=standing.opponents_points,
                margin=standing.margin,
                games=standing.games,
                out=standing.player in progress.eliminated or standing.player in withdrawn,
            )
            for standing in progress.standings
        ],
    )


@router.post("/api/tournaments")
async def create(body: TournamentBody, user: Me, lobby: TheLobby) -> TournamentInfo:
    spec = NewTournament(
        name=body.name,
        game=body.game,
        table_size=body.table_size,
        format=body.format,
        rounds=body.rounds,
        starts_at=body.starts_at,
        registration_ends=body.starts_at
        if body.registration_ends is None
        else body.registration_ends,
        options=dict(body.options),
        clock=body.clock,
        advance=body.advance,
        fill=body.fill,
        bot_level=body.bot_level,
        room=body.room,
    )
    moderator = bool(await lobby.moderation.roles_of(user))
    row = await lobby.tournaments.create(user, spec, moderator)
    return TournamentInfo(**_info(row))


@router.get("/api/tournaments")
async def listed(lobby: TheLobby) -> list[TournamentInfo]:
    """The upcoming and running tournaments, by start, then the latest finished."""
    return [TournamentInfo(**_info(row)) for row in await lobby.tournaments.listed()]


@router.get("/api/tournaments/{tournament_id}")
async def page(tournament_id: int, lobby: TheLobby) -> TournamentPage:
    return _page(await lobby.tournaments.progress(tournament_id))


@router.post("/api/tournaments/{tournament_id}/register", status_code=204)
async def register(tournament_id: int, user: Me, lobby: TheLobby) -> None:
    await lobby.tournaments.register(user, tournament_id)


@router.post("/api/tournaments/{tournament_id}/withdraw", status_code=204)
async def withdraw(tournament_id: int, user: Me, lobby: TheLobby) -> None:
    await lobby.tournaments.withdraw(user, tournament_id)


@router.post("/api/tournaments/{tournament_id}/cancel", status_code=204)
async def cancel(tournament_id: int, body: Cancelling, user: Me, lobby: TheLobby) -> None:
    """A moderator cancels the tournament, saying why (its players read it)."""
    await lobby.moderation.cancel_tournament(user, tournament_id, body.reason)
