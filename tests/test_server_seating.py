"""The lobby's index of who sits where: a person's coming and going looks at their tables
only, and the index always says what a look at every table would."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from tapisvert.server.lobby import Lobby, Settings, User
from tapisvert.server.storage import SqlStorage

from server_support import sqlite_url


def every_table_looked_at(lobby: Lobby, user: User) -> set[tuple[int, int]]:
    return {
        (table.id, seat)
        for table in lobby.tables.values()
        if (seat := table.seat_of(user.id)) is not None
    }


def indexed(lobby: Lobby, user: User) -> set[tuple[int, int]]:
    return {(table.id, seat) for table, seat in lobby.seated_tables(user.id)}


def test_the_seating_index_agrees_with_every_table_through_joins_leaves_and_a_restart(
    tmp_path: Path,
) -> None:
    settings = Settings(bot_delay=0.0, absence_grace=3600.0)
    chooser = random.Random(7)

    async def run() -> None:
        lobby = Lobby(SqlStorage(sqlite_url(tmp_path)), settings=settings)
        await lobby.start()
        users = [(await lobby.guest(name, "127.0.0.1"))[1] for name in "abcdef"]
        tables = [
            await lobby.create_table(users[index], "main", "wizard", 3, {"rounds": "2"}, None)
            for index in range(4)
        ]
        for _ in range(60):
            user, table = chooser.choice(users), chooser.choice(tables)
            if table.seat_of(user.id) is None:
                if any(seat.kind == "empty" for seat in table.seats):
                    await lobby.join(user, table.id, None)
            else:
                await lobby.leave(user, table.id)
            for someone in users:
                assert indexed(lobby, someone) == every_table_looked_at(lobby, someone)
        full = next(table for table in tables if all(seat.kind != "empty" for seat in table.seats))
        starter = next(user for user in users if full.seat_of(user.id) is not None)
        await full.start(starter.id)
        before = {user.id: indexed(lobby, user) for user in users}
        assert any(before.values())
        await lobby.stop()

        again = Lobby(SqlStorage(sqlite_url(tmp_path)), settings=settings)
        await again.start()
        try:
            for user in users:
                assert indexed(again, user) == before[user.id] == every_table_looked_at(again, user)
            again.lost(again.tables[full.id])  # served by another node from now on
            for user in users:
                assert all(table != full.id for table, _ in indexed(again, user))
                assert indexed(again, user) == every_table_looked_at(again, user)
        finally:
            await again.stop()

    asyncio.run(run())
