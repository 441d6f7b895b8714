"""The open database of games: the finished games of one game since a day, as
gzip-compressed JSON lines (``core.exports``), for anyone to study.

Which games: the rated ones (a game whose end moved at least one rating), and an unrated
one only where every person who sat at it allowed it (their account's ``export_unrated``).
Who played: a bot by its name; a person by their name where their account allowed it
(``export_name``), else by a pseudonym, an HMAC of their account's id under a key drawn for
this export alone and then forgotten, so that it stays the same within the export and
tells nothing of the account, nor links two exports. What is told of a game is what its
public replay already shows (every hand: the game is over), with each seat's rating before
it, its place, the seconds each move took and the moves a bot played for an absent person;
nothing of its chat, nor the exact time it ended (its day only).

An export reads a page of games at a time, and converts and compresses each page in a
thread: one of any length holds a page in memory, and leaves the event loop and the
database's writer to the live tables between its pages.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import hmac
import os
import re
import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from tapisvert.core.exports import ExportedGame, ExportedSeat
from tapisvert.server.errors import ServerError
from tapisvert.server.records import known_game, table_record
from tapisvert.server.storage import ERASED_NAME, FinishedGame, SeatResult, Storage
from tapisvert.server.storage.exports import seated_people

PAGE_GAMES = 10
"""Games read, converted and compressed at a time: ten full games of 4-player Wizard are
some 10,000 logged actions, which the database's writer reads in a few tens of milliseconds
while the live tables' moves wait (``benchmarks/export_cost.py`` prints it)."""
COMPRESSION = 6
"""gzip's level, its own default."""
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _uncounted(games: int) -> None:
    """Nobody counts the games (see ``Export.gzipped``)."""


class Pseudonyms:
    """A person's name in one export: the same for an account throughout it, and no way
    back to the account without the key, which is drawn here and kept nowhere."""

    def __init__(self) -> None:
        self._key = os.urandom(32)

    def __call__(self, user_id: int) -> str:
        digest = hmac.new(self._key, str(user_id).encode(), hashlib.sha256).hexdigest()
        return f"anon {digest[:16]}"  # with a space: no person's name has one


@dataclass(frozen=True)
class Export:
    """An export asked for: ``game``'s games finished on ``since`` (UTC) or later."""

    game: str
    since: datetime.date

    @classmethod
    def asked(cls, game: str, since: str) -> Export:
        """The export of ``game`` since ``since`` (YYYY-MM-DD); refused, saying why, if
        there is no such game or no such day."""
        known_game(game)
        try:
            if not _DAY.fullmatch(since):
                raise ValueError(since)
            day = datetime.date.fromisoformat(since)
        except ValueError:
            raise ServerError("bad_since", since=since[:40]) from None
        return cls(game, day)

    @property
    def file_name(self) -> str:
        return f"tapisvert-{self.game}-since-{self.since.isoformat()}.jsonl.gz"

    async def pages(self, storage: Storage) -> AsyncIterator[list[ExportedGame]]:
        """The games, a page at a time, oldest table first."""
        start = datetime.datetime.combine(self.since, datetime.time(), datetime.UTC)
        pseudonyms = Pseudonyms()
        after = 0
        while True:
            page = await storage.exports.finished(self.game, start.timestamp(), after, PAGE_GAMES)
            if not page:
                return
            after = page[-1].table.id
            yield await asyncio.to_thread(_exported_page, page, pseudonyms)

    async def gzipped(
        self, storage: Storage, counted: Callable[[int], None] = _uncounted
    ) -> AsyncIterator[bytes]:
        """The export as gzip-compressed JSON lines, in pieces; ``counted`` is told how
        many games each page gave."""
        compressor = zlib.compressobj(COMPRESSION, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        async for page in self.pages(storage):
            counted(len(page))
            piece = await asyncio.to_thread(_compressed, page, compressor)
            if piece:
                yield piece
        yield compressor.flush()


def _compressed(page: list[ExportedGame], compressor: zlib._Compress) -> bytes:
    """The page's lines, through the export's compressor (which may hold some back)."""
    lines = "".join(f"{game.to_line()}\n" for game in page).encode()
    return compressor.compress(lines)


def _exported_page(page: list[FinishedGame], pseudonyms: Pseudonyms) -> list[ExportedGame]:
    return [exported(game, pseudonyms) for game in page if exportable(game)]


def rated(game: FinishedGame) -> bool:
    """Whether the game's end moved a rating."""
    return any(result.before is not None for result in game.results)


def exportable(game: FinishedGame) -> bool:
    """Rated, or every person at it allowed their unrated games out (an erased account
    allows nothing)."""
    if rated(game):
        return True
    people = seated_people(game.table)
    return all(person is not None and game.choices[person].unrated for person in people)


def exported(game: FinishedGame, pseudonyms: Pseudonyms) -> ExportedGame:
    """The game as its export tells it (see the module's docstring)."""
    row = game.table
    results = {result.seat: result for result in game.results}
    lineup = [
        _seat(seat, results.get(index), game, pseudonyms) for index, seat in enumerate(row.seats)
    ]
    finished = datetime.datetime.fromtimestamp(row.finished_at or 0.0, datetime.UTC)
    return ExportedGame(
        record=table_record(
            row, game.log, [seat.player for seat in lineup], finished.date().isoformat()
        ),
        rated=rated(game),
        lineup=lineup,
        times=[None if entry.took is None else round(entry.took, 3) for entry in game.log],
        stand_ins=[step for step, entry in enumerate(game.log, start=1) if entry.stand_in],
    )


def _seat(
    seat: dict[str, Any], result: SeatResult | None, game: FinishedGame, pseudonyms: Pseudonyms
) -> ExportedSeat:
    user_id = seat.get("user_id")
    level: str | None = seat.get("level") if seat.get("kind") == "bot" else None
    if level is not None:
        player, named = str(seat.get("name")), True
    elif user_id is None:
        player, named = ERASED_NAME, False
    elif game.choices[user_id].name:
        player, named = str(seat.get("name")), True
    else:
        player, named = pseudonyms(user_id), False
    before = None if result is None else result.before
    return ExportedSeat(
        player=player,
        named=named,
        bot=level,
        place=None if result is None else result.place,
        absent=result is not None and result.absent,
        mu=None if before is None else before.mu,
        sigma=None if before is None else before.sigma,
    )
