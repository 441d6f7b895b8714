"""``tapisvert backup`` while a game is played, ``tapisvert restore`` into a new database, and
a new server on it that finds the game as it stood when the backup was taken."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tapisvert.cli.main import app
from tapisvert.server.storage import LoggedAction, SqlStorage

from server_support import (
    Player,
    Server,
    postgres_database,
    run_cli,
    set_up_table,
    sqlite_url,
    until,
)

BEFORE = 3
"""Moves acknowledged before the backup starts."""
DURING = 3
"""Moves let through while it runs; the rest of the game waits for its end."""

runner = CliRunner()


@pytest.fixture
def new_database(database_url: str, tmp_path: Path) -> Iterator[str]:
    """Another new database of the same kind as ``database_url``."""
    if database_url.startswith("sqlite"):
        (tmp_path / "restored").mkdir()
        yield sqlite_url(tmp_path / "restored")
    else:
        yield from postgres_database()


def logged(url: str, table: int) -> list[LoggedAction]:
    """The table's log, read from the database of ``url``."""

    async def read() -> list[LoggedAction]:
        storage = SqlStorage(url)
        await storage.start()
        try:
            return await storage.tables.actions(table)
        finally:
            await storage.close()

    return asyncio.run(read())


@pytest.mark.slow  # two servers, one after the other
def test_a_backup_taken_during_a_game_restores_it_as_it_stood(
    database_url: str, new_database: str, tmp_path: Path
) -> None:
    """Three people play; the backup is taken after some of their moves, while they go on
    playing; restored into a new database, it holds the game's log up to a point that every
    move acknowledged before the backup precedes and every move acknowledged after it
    follows; a new server on it takes the people's tokens and the game goes on to its end."""
    backup = tmp_path / "platform.backup"
    server = Server(database_url, tmp_path / "server.log").start()
    try:
        tokens = [server.guest(name) for name in ("ana", "bob", "cat")]
        table = set_up_table(server, tokens, "wizard", 3, options={"rounds": "2"})
        started, finished = asyncio.Event(), asyncio.Event()
        moves = 0

        async def gate() -> None:
            nonlocal moves
            if moves == BEFORE:
                await started.wait()
            if moves == BEFORE + DURING:
                await finished.wait()
            moves += 1

        players = [
            Player(server, token, seed, before_move=gate) for seed, token in enumerate(tokens)
        ]

        def acked() -> set[int]:
            return {move.position for player in players for move in player.acked}

        async def play() -> tuple[set[int], set[int]]:
            playing = asyncio.gather(*(player.play({table}) for player in players))
            await until(lambda: len(acked()) == BEFORE, 60)
            before = acked()
            started.set()
            command = ("backup", str(backup), "--database-url", database_url)
            done = await asyncio.to_thread(run_cli, *command)
            assert done.returncode == 0, done.stderr
            after_end = acked()
            finished.set()
            await asyncio.wait_for(playing, 60)
            return before, acked() - after_end

        before, after = asyncio.run(play())
    finally:
        server.stop()
    played = logged(database_url, table)
    assert backup.stat().st_mode & 0o077 == 0  # the hidden cards and password hashes

    restore = ["restore", str(backup), "--database-url", new_database]
    restored = runner.invoke(app, restore)
    assert restored.exit_code == 0, restored.output
    kept = logged(new_database, table)
    assert kept == played[: len(kept)]
    assert before and max(before) < len(kept)
    assert after and min(after) >= len(kept)

    again = runner.invoke(app, restore)
    assert again.exit_code == 2
    assert "--force" in again.stderr

    server = Server(new_database, tmp_path / "restored.log").start()
    try:
        players = [Player(server, token, 10 + seed) for seed, token in enumerate(tokens)]

        async def finish() -> None:
            await asyncio.wait_for(asyncio.gather(*(p.play({table}) for p in players)), 60)

        asyncio.run(finish())
        record = server.record(table)
    finally:
        server.stop()
    assert record.replay().is_terminal()
    firsts = [next(frame for frame in p.frames if frame["type"] == "view") for p in players]
    assert all(first["table"] == table for first in firsts)
    # The game goes on where the backup left it: the first to see it sees that position (one
    # who connects after the seat to act has moved sees a later one, never an earlier one).
    assert min(first["seq"] for first in firsts) == len(kept)
    assert logged(new_database, table)[: len(kept)] == kept

    forced = runner.invoke(app, [*restore, "--force"])
    assert forced.exit_code == 0, forced.output
    assert logged(new_database, table) == kept


def test_what_cannot_be_backed_up_or_restored_is_refused_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No database, a file that is no backup of the kind, a database of another kind, no
    pg_dump: exit code 2, the reason in the reader's language, an earlier backup as it was."""
    monkeypatch.setenv("TAPISVERT_LANG", "fr")
    missing = runner.invoke(
        app, ["backup", str(tmp_path / "b"), "--database-url", sqlite_url(tmp_path)]
    )
    assert missing.exit_code == 2 and "il n'y a pas de base" in missing.stderr
    assert list(tmp_path.iterdir()) == []

    earlier = tmp_path / "earlier.backup"
    earlier.write_bytes(b"PGDMP and the rest")
    restore = ["restore", str(earlier), "--database-url", sqlite_url(tmp_path)]
    wrong = runner.invoke(app, restore)
    assert wrong.exit_code == 2 and "n'est pas une sauvegarde d'une base SQLite" in wrong.stderr

    other = runner.invoke(app, ["backup", str(earlier), "--database-url", "mysql://db/platform"])
    assert other.exit_code == 2 and "SQLite et PostgreSQL" in other.stderr

    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    url = "postgresql://postgres@127.0.0.1:5432/test"
    absent = runner.invoke(app, ["backup", str(earlier), "--database-url", url])
    assert absent.exit_code == 2 and "pg_dump n'est pas installé" in absent.stderr
    assert earlier.read_bytes() == b"PGDMP and the rest"
    assert [path.name for path in tmp_path.iterdir()] == ["earlier.backup"]
