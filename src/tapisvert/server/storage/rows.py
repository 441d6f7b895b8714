"""What the stores read and write, as plain values: none of them holds a connection."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tapisvert.server.ratings import Skill
from tapisvert.server.speeds import Speed, TimeoutRule


@dataclass
class UserRow:
    id: int
    name: str
    password_hash: str | None
    guest: bool
    bot: bool = False
    owner_id: int | None = None
    """The account that owns this bot account (``None``: a person, or a built-in bot)."""
    invites: str = "anyone"
    """Who may invite this bot account to a table: ``anyone``, ``friends`` of its owner, or
    ``nobody`` (it sits down only by itself)."""


@dataclass
class TableRow:
    """A table as stored: the seats and options as JSON-ready values."""

    room: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    clock: float | None
    status: str
    seats: list[dict[str, Any]]
    result: list[float] | None = None
    id: int = 0
    rated: bool = True
    finished_at: float | None = None
    timeout: TimeoutRule = "bot"
    """What happens when a person's clock runs out over days (see ``speeds.TimeoutRule``)."""
    deadline: float | None = None
    """When the clock of the person to act runs out (seconds since 1970), if one runs."""
    to_act: int | None = None
    """The account whose clock runs (see ``deadline``)."""
    asleep: bool = False
    """No node need keep the table in memory until someone comes or ``deadline`` passes."""
    chat: list[dict[str, Any]] = field(default_factory=list)
    """What the table said (``notices.said_to``), as it fell asleep: read as it wakes."""


@dataclass(frozen=True)
class LoggedAction:
    seq: int
    actor: int
    action: int
    stand_in: bool = False
    """Played by a bot for the seat's absent person."""
    took: float | None = None
    """Seconds from the position's showing to the move's arrival (``None``: chance, or
    logged before the server kept them)."""


@dataclass(frozen=True)
class SeatResult:
    """A seat's end of a game, and the rating it changed (``None`` when unrated)."""

    seat: int
    account: int | None
    place: int
    score: float
    won: bool
    absent: bool
    before: Skill | None
    after: Skill | None


@dataclass(frozen=True)
class RatingRow:
    """An account's rating in one game."""

    name: str
    game: str
    skill: Skill
    games: int
    wins: int
    bot: bool
    speed: Speed = "live"


@dataclass(frozen=True)
class PlayedGame:
    """A finished game as one account's history shows it."""

    table: int
    game: str
    finished_at: float
    seats: list[str]
    result: SeatResult


@dataclass(frozen=True)
class GameCounts:
    game: str
    played: int
    won: int


@dataclass(frozen=True)
class RatingPoint:
    """An account's rating in a game just before and after one of its rated games."""

    game: str
    finished_at: float
    before: Skill
    after: Skill
    speed: Speed = "live"
