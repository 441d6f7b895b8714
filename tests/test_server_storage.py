"""The storage port's contract, on SQLite and on PostgreSQL (when one is reachable)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tapisvert.server.errors import StorageError
from tapisvert.server.storage import ExportChoices, LoggedAction, SqlStorage, TableRow
from tapisvert.server.storage.schema import MIGRATIONS, latest_revision

from server_support import Player, Server, postgres_database, set_up_table, sqlite_url


@pytest.fixture(params=["sqlite", "sqlite-full-sync", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """SQLite with ``synchronous=NORMAL`` and ``FULL``, and PostgreSQL."""
    if request.param.startswith("sqlite"):
        if request.param == "sqlite-full-sync":
            monkeypatch.setenv("TAPISVERT_SQLITE_SYNC", "FULL")
        yield sqlite_url(tmp_path)
    else:
        yield from postgres_database()


def new_row(status: str = "open") -> TableRow:
    return TableRow(
        room="main",
        game="luz",
        players=3,
        options={"deals": "2"},
        seed=2**61 + 12345,
        clock=30.0,
        status=status,
        seats=[{"kind": "empty"}] * 3,
    )


def test_storage_contract(database_url: str) -> None:
    async def run() -> None:
        storage = SqlStorage(database_url)
        await storage.start()
        secret = await storage.secret()
        assert len(secret) == 64 and await storage.secret() == secret
        ana = await storage.accounts.create("ana", "ana", None, True)
        assert ana is not None
        assert await storage.accounts.create("ana", "other", "hash", False) is None
        assert await storage.accounts.create("Ana", "ana", "hash", False) is None
        found = await storage.accounts.named("ana")
        assert found is not None and found.id == ana and found.guest
        assert await storage.accounts.load(ana + 1000) is None

        table = await storage.tables.create(new_row())
        row = await storage.tables.load(table)
        assert row is not None and row.seed == 2**61 + 12345 and row.options == {"deals": "2"}
        row.status, row.result = "finished", [1.0, -2.5, 0.0]
        await storage.tables.save(row)
        other = await storage.tables.create(new_row("playing"))
        assert [item.id for item in await storage.tables.listed(["playing"])] == [other]
        for user_id, status in [(5, "open"), (51, "open"), (5, "playing"), (5, "finished")]:
            seated = new_row(status)
            seated.seats = [{"kind": "empty"}, {"kind": "human", "user_id": user_id, "name": "x"}]
            await storage.tables.create(seated)
        found = await storage.tables.seated(5, ["open", "playing"])
        assert [(item.status, item.seats[1]["user_id"]) for item in found] == [
            ("open", 5),
            ("playing", 5),
        ]
        assert await storage.tables.seated(6, ["open", "playing"]) == []
        assert (await storage.tables.load(table)) == row

        async def append(start: int) -> None:
            entries = [LoggedAction(seq, seq % 3 - 1, seq * 7) for seq in range(start, start + 5)]
            await storage.tables.append(other, entries)

        # Tables made while moves are logged share the moves' transactions, each its own id.
        writes: list[int] = []
        storage.observe_commits(lambda carried, _seconds, _failed: writes.append(carried))
        made = await asyncio.gather(
            *(append(start) for start in range(0, 200, 5)),
            *(storage.tables.create(new_row()) for _ in range(20)),
        )
        assert len(set(made[40:])) == 20 and sum(writes) == 60 and len(writes) < 20
        logged = await storage.tables.actions(other)
        assert [entry.seq for entry in logged] == list(range(200))
        assert all(entry.action == entry.seq * 7 for entry in logged)
        # A second entry at a logged seq is refused; appends committed with it are not.
        outcomes = await asyncio.gather(
            storage.tables.append(table, [LoggedAction(0, 0, 1)]),
            storage.tables.append(other, [LoggedAction(0, 0, 0)]),
            storage.tables.append(table, [LoggedAction(1, 1, 2)]),
            return_exceptions=True,
        )
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], StorageError)  # what the driver said is its cause
        assert any(word in str(outcomes[1].__cause__).lower() for word in ("actions", "unique"))
        assert len(await storage.tables.actions(other)) == 200
        assert [entry.action for entry in await storage.tables.actions(table)] == [1, 2]
        await storage.close()
        if database_url.startswith("sqlite"):  # the last checkpoint emptied the log file
            log = Path(database_url.removeprefix("sqlite:///") + "-wal")
            assert not log.exists() or log.stat().st_size == 0

        reopened = SqlStorage(database_url)
        await reopened.start()
        assert await reopened.secret() == secret
        assert len(await reopened.tables.actions(other)) == 200
        await reopened.close()

    asyncio.run(run())


@pytest.mark.slow
def test_a_whole_game_on_postgresql(tmp_path: Path) -> None:
    for url in postgres_database():
        server = Server(url, tmp_path / "server.log").start()
        try:
            token = server.guest("pg-ana")
            table = set_up_table(server, [token], "abluxxen", 3)
            player = Player(server, token, 1)
            asyncio.run(asyncio.wait_for(player.play({table}), 60))
            record = server.record(table)
            assert record.replay().returns() == player.views[table]["result"]
        finally:
            server.stop()


def test_the_log_keeps_each_moves_time_and_accounts_their_export_choices(
    database_url: str,
) -> None:
    async def run() -> None:
        storage = SqlStorage(database_url)
        await storage.start()
        try:
            table = await storage.tables.create(new_row("playing"))
            logged = [LoggedAction(0, -1, 7), LoggedAction(1, 0, 3, took=2.5)]
            await storage.tables.append(table, logged)
            assert [entry.took for entry in await storage.tables.actions(table)] == [None, 2.5]
            ana = await storage.accounts.create("ana", "ana", "hash", False)
            assert ana is not None
            assert await storage.exports.choices(ana) == ExportChoices(False, False)
            await storage.exports.choose(ana, ExportChoices(name=True, unrated=False))
            assert await storage.exports.choices(ana) == ExportChoices(True, False)
            await storage.account_life.erase(ana)
            assert await storage.exports.choices(ana) == ExportChoices(False, False)
        finally:
            await storage.close()

    asyncio.run(run())


def test_finished_games_are_read_a_page_at_a_time_with_their_logs(database_url: str) -> None:
    """What an export reads: one game's finished tables since a time, above a table number."""

    async def run() -> None:
        storage = SqlStorage(database_url)
        await storage.start()
        try:
            ana = await storage.accounts.create("ana", "ana", "hash", False)
            assert ana is not None
            await storage.exports.choose(ana, ExportChoices(name=False, unrated=True))
            seats = [{"kind": "human", "user_id": ana, "name": "ana"}, {"kind": "bot"}]
            finished = []
            for game in ("luz", "luz", "wizard", "luz", "luz"):
                row = replace(new_row("playing"), game=game, seats=seats)
                row.id = await storage.tables.create(row)
                if len(finished) == 3:  # a game still played is none of the export's
                    await storage.tables.append(row.id, [LoggedAction(0, -1, 4)])
                    finished.append(row.id)
                    continue
                ended = replace(row, status="finished", finished_at=1000.0 + row.id)
                log = [LoggedAction(0, -1, 4), LoggedAction(1, 0, 9, took=1.5)]
                await storage.tables.finish(row.id, log, ended, [])
                finished.append(row.id)
            luz = [finished[0], finished[1], finished[4]]
            first = await storage.exports.finished("luz", 0.0, 0, 2)
            assert [game.table.id for game in first] == luz[:2]
            assert first[0].log == [LoggedAction(0, -1, 4), LoggedAction(1, 0, 9, took=1.5)]
            assert first[0].choices == {ana: ExportChoices(name=False, unrated=True)}
            rest = await storage.exports.finished("luz", 0.0, luz[1], 2)
            assert [game.table.id for game in rest] == luz[2:]
            assert await storage.exports.finished("luz", 0.0, luz[2], 2) == []
            later = await storage.exports.finished("luz", 1000.0 + luz[1], 0, 10)
            assert [game.table.id for game in later] == luz[1:]
        finally:
            await storage.close()

    asyncio.run(run())


def test_the_log_holds_actions_of_64_bits(database_url: str) -> None:
    """A Fzzzt! bid is a set of cards, one bit each, above 2**56."""

    async def run() -> None:
        storage = SqlStorage(database_url)
        await storage.start()
        try:
            table = await storage.tables.create(new_row("playing"))
            bid = (1 << 56) + 0b1011
            await storage.tables.append(table, [LoggedAction(0, 1, bid)])
            assert await storage.tables.actions(table) == [LoggedAction(0, 1, bid)]
        finally:
            await storage.close()

    asyncio.run(run())


def test_the_latest_revision_is_alembics_head_and_a_database_there_is_only_read(
    tmp_path: Path,
) -> None:
    """A server restarting on its database does not import Alembic (a second of its start):
    the newest migration's file number must be Alembic's head for that to hold."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_current_head() == latest_revision()
    url = sqlite_url(tmp_path)
    opened = "import asyncio, sys\n" + textwrap.dedent(
        f"""
        from tapisvert.server.storage import open_storage

        async def open_and_close() -> None:
            storage = open_storage({url!r})
            await storage.start()
            await storage.close()

        asyncio.run(open_and_close())
        print("alembic" in sys.modules)
        """
    )
    runs = [
        subprocess.run([sys.executable, "-c", opened], capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert [run.stdout.strip() for run in runs] == ["True", "False"]  # migrated, then read
