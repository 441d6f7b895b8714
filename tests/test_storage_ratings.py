"""Migration 0003 and the storage of results and ratings, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from sqlalchemy import inspect, text

from tapisvert.server.errors import StorageError
from tapisvert.server.ratings import Skill, Standing
from tapisvert.server.storage import LoggedAction, SqlStorage, TableRow

from server_support import engine_for, migrate


def finished_row(table: int) -> TableRow:
    return TableRow(
        id=table,
        room="main",
        game="wizard",
        players=3,
        options={"rounds": "1"},
        seed=7,
        clock=None,
        status="finished",
        seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}],
        result=[30.0, -10.0, 20.0],
        finished_at=1_800_000_000.0,
    )


def test_migration_0003_keeps_what_was_there_and_goes_back(database_url: str) -> None:
    migrate(database_url, "0002")
    engine = engine_for(database_url)
    with engine.begin() as connection:
        connection.execute(
            text("INSERT INTO users (name, name_key, guest) VALUES ('old-ann', 'old-ann', false)")
        )
        connection.execute(
            text(
                "INSERT INTO game_tables (room, game, players, options, seed, status, seats) "
                "VALUES ('main', 'luz', 3, '{}', 1, 'finished', '[]')"
            )
        )
        connection.execute(text("INSERT INTO actions VALUES (1, 0, -1, 5)"))
    migrate(database_url, "head")
    with engine.connect() as connection:
        bot, rated, stand_in = connection.execute(
            text(
                "SELECT users.bot, game_tables.rated, actions.stand_in "
                "FROM users, game_tables, actions"
            )
        ).one()
        assert (bot, rated, stand_in) == (False, True, False)
        assert {"ratings", "results"} <= set(inspect(connection).get_table_names())
    migrate(database_url, "0002", down=True)
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        assert "ratings" not in tables and "results" not in tables
        assert "bot" not in {column["name"] for column in inspect(connection).get_columns("users")}
        assert connection.execute(text("SELECT name FROM users")).scalar() == "old-ann"
    engine.dispose()
    migrate(database_url, "head")


def test_a_game_is_finished_and_rated_once(database_url: str) -> None:
    async def run() -> None:
        storage = SqlStorage(database_url)
        await storage.start()
        bots = await storage.accounts.bots(["easy", "hard"])
        assert await storage.accounts.bots(["easy", "hard"]) == bots  # made once
        ann = await storage.accounts.create("ann", "ann", "hash", False)
        guest = await storage.accounts.create("gus", "gus", None, True)
        assert ann is not None and guest is not None
        table = await storage.tables.create(replace(finished_row(0), status="playing"))
        standings = [
            Standing(0, ann, 30.0, True, False, True),
            Standing(1, bots["easy"], -10.0, False, False, True),
            Standing(2, guest, 20.0, False, False, True),
        ]
        entries = [LoggedAction(0, 0, 3), LoggedAction(1, 1, 4, stand_in=True)]
        results = await storage.tables.finish(table, entries, finished_row(table), standings)
        assert [result.place for result in results] == [1, 3, 2]
        assert results[2].after is None  # a guest is not rated
        ann_after, bot_after = results[0].after, results[1].after
        assert results[0].before == Skill() and ann_after is not None and bot_after is not None
        assert ann_after.mu > Skill().mu > bot_after.mu
        assert await storage.ratings.results(table) == results
        assert [entry.stand_in for entry in await storage.tables.actions(table)] == [False, True]

        with pytest.raises(StorageError):  # a second end of the same game: nothing changes
            await storage.tables.finish(
                table, [LoggedAction(2, 0, 1)], finished_row(table), standings
            )
        assert len(await storage.tables.actions(table)) == 2
        [rating] = await storage.ratings.of(ann)
        assert (rating.game, rating.games, rating.wins) == ("wizard", 1, 1)
        assert rating.skill == results[0].after
        board = await storage.ratings.leaderboard("wizard", 1, 10)
        assert [row.name for row in board] == ["ann", "bot easy"]
        assert await storage.ratings.leaderboard("wizard", 2, 10) == []
        [played] = await storage.ratings.history(ann, 10)
        assert (played.table, played.game, played.result.won) == (table, "wizard", True)
        [counts] = await storage.ratings.game_counts(guest)
        assert (counts.game, counts.played, counts.won) == ("wizard", 1, 0)
        await storage.close()

    asyncio.run(run())
