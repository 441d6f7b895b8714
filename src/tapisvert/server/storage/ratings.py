"""Each seat's result of a finished game, the ratings they change, and what is read of them:
leaderboards, an account's ratings, counts and history."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Integer, bindparam, cast, func, insert, select, update

from tapisvert.server.ratings import Skill, Standing, places, rate
from tapisvert.server.speeds import Speed, speed_of
from tapisvert.server.storage.rows import (
    GameCounts,
    PlayedGame,
    RatingPoint,
    RatingRow,
    SeatResult,
    TableRow,
)
from tapisvert.server.storage.schema import (
    ratings_table,
    results_table,
    tables_table,
    users_table,
)
from tapisvert.server.storage.writer import Writer, parameter_marker, rows_insert


class RatingStore:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def results(self, table_id: int) -> list[SeatResult]:
        """A finished game's results, by seat."""
        query = (
            select(results_table)
            .where(results_table.c.table_id == table_id)
            .order_by(results_table.c.seat)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [seat_result(row._mapping) for row in rows]

    async def leaderboard(
        self,
        game: str,
        minimum: int,
        limit: int,
        bots: bool | None = None,
        speed: Speed = "live",
    ) -> list[RatingRow]:
        """The best ratings of a game at one speed among accounts with ``minimum`` rated
        games or more (``bots``: of bots only, of people only, or of both)."""
        ordinal = ratings_table.c.mu - 3 * ratings_table.c.sigma
        query = _ratings_query().where(
            ratings_table.c.game == game,
            ratings_table.c.speed == speed,
            ratings_table.c.games >= minimum,
        )
        if bots is not None:
            query = query.where(users_table.c.bot == bots)
        query = query.order_by(ordinal.desc(), users_table.c.name).limit(limit)
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [_rating_row(row._mapping) for row in rows]

    async def of(self, user_id: int) -> list[RatingRow]:
        """The account's rating in each game and speed it was rated in."""
        query = (
            _ratings_query()
            .where(ratings_table.c.user_id == user_id)
            .order_by(ratings_table.c.game, ratings_table.c.speed)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [_rating_row(row._mapping) for row in rows]

    async def game_counts(self, user_id: int) -> list[GameCounts]:
        won = func.sum(cast(results_table.c.won, Integer))
        query = (
            select(results_table.c.game, func.count(), won)
            .where(results_table.c.user_id == user_id)
            .group_by(results_table.c.game)
            .order_by(results_table.c.game)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [GameCounts(game, int(played), int(wins or 0)) for game, played, wins in rows]

    async def played_since(self, user_id: int, since: float) -> int:
        """How many games the account finished from ``since`` (epoch seconds) on."""
        query = select(func.count()).where(
            results_table.c.user_id == user_id, results_table.c.finished_at >= since
        )
        return int(await self._writer.run(lambda c: c.execute(query).scalar_one()))

    async def progress(self, user_id: int, limit: int) -> list[RatingPoint]:
        """The account's rating before and after each of its latest ``limit`` rated games,
        oldest first: what a profile draws its rating over time from."""
        query = (
            select(
                results_table.c.game,
                results_table.c.speed,
                results_table.c.finished_at,
                results_table.c.mu_before,
                results_table.c.sigma_before,
                results_table.c.mu_after,
                results_table.c.sigma_after,
            )
            .where(results_table.c.user_id == user_id, results_table.c.rated)
            .order_by(results_table.c.id.desc())
            .limit(limit)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [
            RatingPoint(game, finished_at, Skill(mu, sigma), Skill(mu_after, sigma_after), speed)
            for game, speed, finished_at, mu, sigma, mu_after, sigma_after in reversed(rows)
        ]

    async def history(self, user_id: int, limit: int) -> list[PlayedGame]:
        """The account's latest finished games, latest first."""
        query = (
            select(results_table, tables_table.c.seats)
            .join(tables_table, tables_table.c.id == results_table.c.table_id)
            .where(results_table.c.user_id == user_id)
            .order_by(results_table.c.id.desc())
            .limit(limit)
        )
        rows = await self._writer.run(lambda c: c.execute(query).all())
        return [played_game(row) for row in rows]


def played_game(row: Any) -> PlayedGame:
    """A row of ``results`` joined with its table's seats."""
    return PlayedGame(
        table=row.table_id,
        game=row.game,
        finished_at=row.finished_at,
        seats=[seat.get("name") or "?" for seat in json.loads(row.seats)],
        result=seat_result(row._mapping),
    )


def rating(row: TableRow, standings: list[Standing]) -> Callable[[Connection], list[SeatResult]]:
    """The work that writes each seat's result of a game that ends, and the ratings they
    change (the game's row is the caller's to save, in the same transaction). A game over
    days changes its players' ratings over days, a live game their live ones.

    The ratings are read inside the transaction: games that end in the same group are rated
    one after the other, each from the ratings the previous one left.
    """
    ranks = places(
        [standing.score for standing in standings],
        [standing.seat for standing in standings if standing.won],
        [standing.absent for standing in standings],
    )

    speed = speed_of(row.clock)

    def work(connection: Connection) -> list[SeatResult]:
        accounts = [standing.account for standing in standings if standing.account is not None]
        registered = set(connection.execute(_REGISTERED, {"accounts": accounts}).scalars())
        rated = [
            standing for standing in standings if standing.rated and standing.account in registered
        ]
        if len(rated) < 2:  # nobody to be measured against
            rated = []
        known: dict[int | None, tuple[Skill, int, int]] = {}
        if rated:
            found = connection.execute(
                _KNOWN_RATINGS,
                {
                    "rated_game": row.game,
                    "rated_speed": speed,
                    "accounts": [standing.account for standing in rated],
                },
            )
            known = {
                user_id: (Skill(mu, sigma), games, wins)
                for user_id, mu, sigma, games, wins in found.all()
            }
        befores = [known.get(standing.account, (Skill(), 0, 0))[0] for standing in rated]
        afters = rate(befores, [ranks[standing.seat] for standing in rated])
        changes: dict[int, tuple[Skill, Skill]] = {}
        updated, inserted = [], []
        for standing, before, after in zip(rated, befores, afters, strict=True):
            assert standing.account is not None
            changes[standing.seat] = (before, after)
            won = int(standing.won and not standing.absent)
            rating_values = {
                "rated_user": standing.account,
                "rated_game": row.game,
                "rated_speed": speed,
                "mu": after.mu,
                "sigma": after.sigma,
            }
            if standing.account in known:
                _, games, wins = known[standing.account]
                updated.append({**rating_values, "games": games + 1, "wins": wins + won})
            else:
                inserted.append({**rating_values, "games": 1, "wins": won})
        if updated:
            connection.execute(_UPDATE_RATING, updated)
        if inserted:
            connection.execute(_INSERT_RATING, inserted)
        results = []
        for standing in standings:
            change = changes.get(standing.seat)
            results.append(
                SeatResult(
                    seat=standing.seat,
                    account=standing.account,
                    place=ranks[standing.seat],
                    score=standing.score,
                    won=standing.won and not standing.absent,
                    absent=standing.absent,
                    before=None if change is None else change[0],
                    after=None if change is None else change[1],
                )
            )
        if results:
            values = [_result_values(row, result) for result in results]
            marker = parameter_marker(connection.dialect)
            connection.exec_driver_sql(
                rows_insert("results", list(values[0]), len(values), marker),
                tuple(value for seat in values for value in seat.values()),
            )
        return results

    return work


_REGISTERED = select(users_table.c.id).where(
    users_table.c.id.in_(bindparam("accounts", expanding=True)), users_table.c.guest.is_(False)
)
_KEPT = (ratings_table.c.game == bindparam("rated_game")) & (
    ratings_table.c.speed == bindparam("rated_speed")
)
_KNOWN_RATINGS = select(
    ratings_table.c.user_id,
    ratings_table.c.mu,
    ratings_table.c.sigma,
    ratings_table.c.games,
    ratings_table.c.wins,
).where(_KEPT, ratings_table.c.user_id.in_(bindparam("accounts", expanding=True)))
_UPDATE_RATING = (
    update(ratings_table)
    .where(ratings_table.c.user_id == bindparam("rated_user"), _KEPT)
    .values(
        mu=bindparam("mu"),
        sigma=bindparam("sigma"),
        games=bindparam("games"),
        wins=bindparam("wins"),
    )
)
_INSERT_RATING = insert(ratings_table).values(
    user_id=bindparam("rated_user"),
    game=bindparam("rated_game"),
    speed=bindparam("rated_speed"),
    mu=bindparam("mu"),
    sigma=bindparam("sigma"),
    games=bindparam("games"),
    wins=bindparam("wins"),
)
"""The statements of a game's end, built once and their values bound at each use (one
``executemany`` for each kind of rating change): built at each game's end, SQLAlchemy worked
out their constructs and cache keys anew, which at 250 tables of a short game took a third of
the storage thread's time (py-spy)."""


def _result_values(row: TableRow, result: SeatResult) -> dict[str, Any]:
    before, after = result.before, result.after
    return {
        "table_id": row.id,
        "seat": result.seat,
        "user_id": result.account,
        "game": row.game,
        "speed": speed_of(row.clock),
        "place": result.place,
        "score": result.score,
        "won": result.won,
        "absent": result.absent,
        "rated": after is not None,
        "mu_before": None if before is None else before.mu,
        "sigma_before": None if before is None else before.sigma,
        "mu_after": None if after is None else after.mu,
        "sigma_after": None if after is None else after.sigma,
        "finished_at": row.finished_at or 0.0,
    }


def seat_result(values: Any) -> SeatResult:
    rated = bool(values["rated"])
    return SeatResult(
        seat=values["seat"],
        account=values["user_id"],
        place=values["place"],
        score=values["score"],
        won=bool(values["won"]),
        absent=bool(values["absent"]),
        before=Skill(values["mu_before"], values["sigma_before"]) if rated else None,
        after=Skill(values["mu_after"], values["sigma_after"]) if rated else None,
    )


def _ratings_query() -> Any:
    return select(
        users_table.c.name,
        users_table.c.bot,
        ratings_table.c.game,
        ratings_table.c.speed,
        ratings_table.c.mu,
        ratings_table.c.sigma,
        ratings_table.c.games,
        ratings_table.c.wins,
    ).join(users_table, users_table.c.id == ratings_table.c.user_id)


def _rating_row(values: Any) -> RatingRow:
    return RatingRow(
        name=values["name"],
        game=values["game"],
        speed=values["speed"],
        skill=Skill(values["mu"], values["sigma"]),
        games=values["games"],
        wins=values["wins"],
        bot=bool(values["bot"]),
    )
