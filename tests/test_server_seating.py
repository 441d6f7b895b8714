"""The lobby's index of who sits where: a person's coming and going looks at their tables
only, and the index always says what a look at every table would."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from tapisvert.server import table_life
from tapisvert.server.lobby import Lobby, Settings, User
from tapisvert.server.pubsub import LocalPubSub
from tapisvert.server.storage import SqlStorage

from server_support import sqlite_url, until


def every_table_looked_at(lobby: Lobby, user: User) -> set[tuple[int, int]]:
    return {
        (table.id, seat)
        for table in lobby.registry.tables.values()
        if (seat := table.seat_of(user.id)) is not None
    }


def indexed(lobby: Lobby, user: User) -> set[tuple[int, int]]:
    return {(table.id, seat) for table, seat in lobby.registry.seated_tables(user.id)}


def test_the_seating_index_agrees_with_every_table_through_joins_leaves_and_a_restart(
    tmp_path: Path,
) -> None:
    settings = Settings(bot_delay=0.0, absence_grace=3600.0)
    chooser = random.Random(7)

    async def run() -> None:
        lobby = Lobby(SqlStorage(sqlite_url(tmp_path)), settings=settings)
        await lobby.start()
        users = [(await lobby.accounts.guest(name, "127.0.0.1"))[1] for name in "abcdef"]
        tables = [
            await lobby.tables.create_table(
                users[index], "main", "wizard", 3, {"rounds": "2"}, None
            )
            for index in range(4)
        ]
        for _ in range(60):
            user, table = chooser.choice(users), chooser.choice(tables)
            if table.seat_of(user.id) is None:
                if any(seat.kind == "empty" for seat in table.seats):
                    await lobby.tables.join(user, table.id, None)
            else:
                await lobby.tables.leave(user, table.id)
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
            again.cluster.lost(again.registry.tables[full.id])  # served by another node from now on
            for user in users:
                assert all(table != full.id for table, _ in indexed(again, user))
                assert indexed(again, user) == every_table_looked_at(again, user)
        finally:
            await again.stop()

    asyncio.run(run())


class QuietLink:
    """A connection's socket that keeps what it is sent and never says anything."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.address = "127.0.0.1"

    async def receive(self) -> str | None:
        return None

    def push(self, frame: str) -> None:
        self.frames.append(frame)

    def close(self, code: int = 1000) -> None:
        """Nothing to close."""

    def drop(self) -> None:
        """Nothing to cut."""

    def backlog(self) -> int:
        return 0

    async def wait_closed(self) -> None:
        return


def test_a_finished_table_leaving_memory_is_no_longer_followed_by_its_players_or_spectators(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_life, "FINISHED_KEPT_SECONDS", 0.2)

    async def run() -> None:
        lobby = Lobby(SqlStorage(sqlite_url(tmp_path)), settings=Settings(bot_delay=0.0))
        await lobby.start()
        try:
            (_, ana), (_, bob) = [
                await lobby.accounts.guest(name, "127.0.0.1") for name in ("ana", "bob")
            ]
            table = await lobby.tables.create_table(ana, "main", "wizard", 3, {"rounds": "1"}, None)
            for _ in range(2):
                await lobby.tables.add_bot(ana, table.id, "random", None)
            player = await lobby.connections.connect(ana, "en", QuietLink())
            spectator = await lobby.connections.connect(bob, "en", QuietLink())
            await lobby.tables.watch(spectator, table.id)
            await lobby.tables.start_game(ana, table.id)
            prefix = f"table:{table.id}"
            for connection in (player, spectator):
                assert any(channel.startswith(prefix) for channel in connection.channels)
            while table.status == "playing":
                state = table.state
                assert state is not None
                if state.current_player() == 0:
                    await lobby.tables.act(ana, table.id, state.legal_strings()[0], table.seq)
                await asyncio.sleep(0.01)
            assert table.id in lobby.registry.tables  # the end stays in sight a while
            for connection in (player, spectator):
                assert any(channel.startswith(prefix) for channel in connection.channels)
            await until(lambda: table.id not in lobby.registry.tables)
            for connection in (player, spectator):
                assert not any(channel.startswith(prefix) for channel in connection.channels)
            assert isinstance(lobby.pubsub, LocalPubSub)
            assert not any(channel.startswith(prefix) for channel in lobby.pubsub.channels())
        finally:
            await lobby.stop()

    asyncio.run(run())
