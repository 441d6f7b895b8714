"""What brings players back, over HTTP: leaderboards, profiles with past games, presence.

Everything here is public, as on BrettspielWelt: a name, its ratings and finished games
(whose every hand may be shown, the games being over), and who is online at which table.
"""

from __future__ import annotations

import time
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel

from tapisvert.server.errors import ServerError
from tapisvert.server.ratings import Skill
from tapisvert.server.records import known_game
from tapisvert.server.routes.dependencies import TheLobby
from tapisvert.server.speeds import Speed
from tapisvert.server.storage import RatingRow
from tapisvert.server.tables import GameTable

LEADERBOARD_LENGTH = 100
HISTORY_LENGTH = 50
PROGRESS_LENGTH = 200
"""Rated games a profile's rating graphs are drawn from, the latest."""
WEEK = 7 * 24 * 3600.0

router = APIRouter()


class Rating(BaseModel):
    game: str
    speed: Speed = "live"
    """Live games and games over days are rated apart."""
    name: str
    rating: float
    """OpenSkill's μ − 3σ, to one decimal: 0 to start with."""
    mu: float
    sigma: float
    games: int
    """Rated games."""
    wins: int
    bot: bool


class Leaderboard(BaseModel):
    game: str
    speed: Speed
    minimum: int
    """Rated games an account needs to be listed."""
    players: list[Rating]


class Counts(BaseModel):
    game: str
    played: int
    won: int


class PastGame(BaseModel):
    table: int
    game: str
    finished_at: float
    seats: list[str]
    seat: int
    place: int
    score: float
    won: bool
    absent: bool
    """A bot played most of this person's moves (see the README: they count as last)."""
    rating_before: float | None
    rating_after: float | None


class RatingStep(BaseModel):
    game: str
    speed: Speed = "live"
    finished_at: float
    before: float
    rating: float
    """μ − 3σ just before and just after that game, to one decimal."""


class TournamentWon(BaseModel):
    tournament: int
    name: str
    game: str


class Profile(BaseModel):
    name: str
    guest: bool
    bot: bool
    level: str | None
    """The bot level this account plays for (``None``: a person, or a bot account)."""
    owner: str | None = None
    """Who owns this bot account (``None``: not a bot account; see ``own_bots``)."""
    bots: list[str] = []
    """The bot accounts this person owns."""
    won: list[TournamentWon] = []
    """The tournaments this account won, the latest first."""
    online: bool
    ratings: list[Rating]
    progress: list[RatingStep]
    """The rating before and after each of the latest rated games, oldest first."""
    week: int
    """Games finished in the last seven days."""
    games: list[Counts]
    history: list[PastGame]


class PresentTable(BaseModel):
    table: int
    game: str
    status: str
    seat: int | None
    """``None``: watching."""


class Present(BaseModel):
    name: str
    tables: list[PresentTable]


@router.get("/api/leaderboards/{game}")
async def leaderboard(
    game: str,
    lobby: TheLobby,
    limit: Annotated[int, Query(ge=1, le=LEADERBOARD_LENGTH)] = LEADERBOARD_LENGTH,
    who: Literal["all", "people", "bots"] = "all",
    speed: Speed = "live",
) -> Leaderboard:
    """The best ratings of the game at one speed (live, or over days): of everyone, of
    people only, or of bots only (the built-in levels and bot accounts: the bots' own
    leaderboard)."""
    known_game(game)
    minimum = lobby.settings.leaderboard_min_games
    bots = {"all": None, "people": False, "bots": True}[who]
    rows = await lobby.storage.ratings.leaderboard(game, minimum, limit, bots, speed)
    players = [_rating(row) for row in rows]
    return Leaderboard(game=game, speed=speed, minimum=minimum, players=players)


@router.get("/api/players/{name}")
async def profile(name: str, lobby: TheLobby) -> Profile:
    user = await lobby.storage.accounts.named(name) if len(name) <= 32 else None
    if user is None:
        raise ServerError("no_such_player", status=404, name=name[:32])
    storage = lobby.storage
    history = await storage.ratings.history(user.id, HISTORY_LENGTH)
    level = next((level for level, bot in lobby.bot_accounts.items() if bot == user.id), None)
    owner = None if user.owner_id is None else await storage.accounts.load(user.owner_id)
    return Profile(
        name=user.name,
        guest=user.guest,
        bot=user.bot,
        level=level,
        owner=None if owner is None else owner.name,
        bots=[bot.name for bot in await storage.accounts.owned_bots(user.id)],
        won=[
            TournamentWon(tournament=row.id, name=row.name, game=row.game)
            for row in await storage.tournaments.won_by(user.id)
        ],
        online=lobby.presence.is_online(user.id),
        ratings=[_rating(row) for row in await storage.ratings.of(user.id)],
        progress=[
            RatingStep(
                game=step.game,
                speed=step.speed,
                finished_at=step.finished_at,
                before=step.before.shown,
                rating=step.after.shown,
            )
            for step in await storage.ratings.progress(user.id, PROGRESS_LENGTH)
        ],
        week=await storage.ratings.played_since(user.id, time.time() - WEEK),
        games=[Counts(**vars(counts)) for counts in await storage.ratings.game_counts(user.id)],
        history=[
            PastGame(
                table=played.table,
                game=played.game,
                finished_at=played.finished_at,
                seats=played.seats,
                seat=played.result.seat,
                place=played.result.place,
                score=played.result.score,
                won=played.result.won,
                absent=played.result.absent,
                rating_before=_shown(played.result.before),
                rating_after=_shown(played.result.after),
            )
            for played in history
        ],
    )


@router.get("/api/presence")
async def presence(lobby: TheLobby) -> list[Present]:
    """Everyone online (on any node), by name, with the tables they sit or watch at
    (open or playing) among those this node serves."""
    live = {"open", "playing"}
    watched: dict[int, list[GameTable]] = {}  # one look at the tables, not one per person
    for table in lobby.registry.tables.values():
        if table.status in live:
            for user_id in table.spectators:
                watched.setdefault(user_id, []).append(table)
    online = []
    for user_id in lobby.presence.online_users():
        places: dict[int, tuple[GameTable, int | None]] = {
            table.id: (table, None) for table in watched.get(user_id, ())
        }
        for table, seat in lobby.registry.seated_tables(user_id):
            if table.status in live:
                places[table.id] = (table, seat)
        tables = [
            PresentTable(table=table.id, game=table.game.name, status=table.status, seat=seat)
            for _, (table, seat) in sorted(places.items())
        ]
        online.append(Present(name=lobby.presence.user_name(user_id), tables=tables))
    return sorted(online, key=lambda present: present.name.casefold())


def _shown(skill: Skill | None) -> float | None:
    return None if skill is None else skill.shown


def _rating(row: RatingRow) -> Rating:
    return Rating(
        game=row.game,
        speed=row.speed,
        name=row.name,
        rating=row.skill.shown,
        mu=round(row.skill.mu, 3),
        sigma=round(row.skill.sigma, 3),
        games=row.games,
        wins=row.wins,
        bot=row.bot,
    )
