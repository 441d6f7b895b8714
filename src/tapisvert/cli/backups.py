"""``tapisvert backup`` and ``tapisvert restore``: a copy of the platform's database taken
while its nodes run and write, and put back into a database that a server then opens.

SQLite is copied through its online backup API, one consistent snapshot even while the
server writes (WAL mode); PostgreSQL the documented way, ``pg_dump`` in its custom format and
``pg_restore``. A backup is written beside its destination and renamed when complete, so a
failed one never replaces a good one."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tapisvert.cli.options import DatabaseOption, fail, help_text, replacing
from tapisvert.core.errors import TapisvertError
from tapisvert.i18n import default_language, translate

if TYPE_CHECKING:  # SQLAlchemy is imported when a command runs, not with every command
    from sqlalchemy.engine import URL

console = Console(highlight=False)

SQLITE_HEADER = b"SQLite format 3\x00"
PG_DUMP_HEADER = b"PGDMP"


backups = typer.Typer()


class BackupError(TapisvertError):
    """A backup or a restore that cannot be done, and why."""


@backups.command(help=help_text("backup"))
def backup(
    path: Annotated[Path, typer.Argument(help=help_text("backup_path"))],
    database_url: DatabaseOption = "",
) -> None:
    with _refused():
        url = _database(database_url)
        if url.get_backend_name() == "sqlite":
            _sqlite_copy(_sqlite_file(url, must_exist=True), path, replace=True)
        else:
            with replacing(path) as partial:
                _run_pg("pg_dump", url, "--format=custom", f"--file={partial}")
    console.print(
        translate("cli.backup.saved", default_language(), database=_shown(url), path=path)
    )


@backups.command(help=help_text("restore"))
def restore(
    path: Annotated[Path, typer.Argument(help=help_text("restore_path"))],
    database_url: DatabaseOption = "",
    force: Annotated[bool, typer.Option(help=help_text("restore_force"))] = False,
) -> None:
    with _refused():
        url = _database(database_url)
        sqlite = url.get_backend_name() == "sqlite"
        _check_backup(path, SQLITE_HEADER if sqlite else PG_DUMP_HEADER)
        if not force and _holds_tables(url):
            raise BackupError("cli.backup.not_empty", database=_shown(url))
        if sqlite:
            _sqlite_copy(path, _sqlite_file(url, must_exist=False), replace=False)
        else:
            # the restoring user owns what is restored; --force replaces what is there
            options = ["--clean", "--if-exists"] if force else []
            _run_pg(
                "pg_restore",
                url,
                "--no-owner",
                "--single-transaction",
                "--exit-on-error",
                *options,
                str(path),
            )
        asyncio.run(_migrate(url))
    console.print(
        translate("cli.backup.restored", default_language(), database=_shown(url), path=path)
    )


def _database(database_url: str) -> URL:
    """The database of the option (or the server's default), SQLite or PostgreSQL."""
    from sqlalchemy.engine import make_url

    from tapisvert.server.storage import default_database_url

    url = make_url(database_url or default_database_url())
    if url.get_backend_name() not in {"sqlite", "postgresql"}:
        raise BackupError("cli.backup.unsupported", kind=url.drivername)
    return url


@contextlib.contextmanager
def _refused() -> Iterator[None]:
    """A refusal, or a failure of the database or the files, printed in the reader's
    language: never a traceback."""
    from sqlalchemy.exc import SQLAlchemyError

    language = default_language()
    try:
        yield
    except TapisvertError as refusal:
        raise fail(refusal, language) from None
    except (SQLAlchemyError, sqlite3.Error, OSError) as error:
        reason = getattr(error, "orig", None) or error
        raise fail(BackupError("cli.backup.failed", reason=reason), language) from None


def _shown(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def _sqlite_file(url: URL, must_exist: bool) -> Path:
    if not url.database or url.database == ":memory:":
        raise BackupError("cli.backup.no_database", path=_shown(url))
    path = Path(url.database)
    if must_exist and not path.is_file():  # connecting would make an empty one
        raise BackupError("cli.backup.no_database", path=path)
    return path


def _sqlite_copy(source: Path, target: Path, replace: bool) -> None:
    """Copy the database ``source`` into ``target`` page by page in one step (one read
    transaction: a consistent snapshot while others write). A backup (``replace``) is a
    single file (no write-ahead log), complete before it takes ``target``'s name."""
    with contextlib.ExitStack() as stack:
        written = stack.enter_context(replacing(target)) if replace else target
        reading = stack.enter_context(contextlib.closing(sqlite3.connect(source, timeout=30)))
        writing = stack.enter_context(contextlib.closing(sqlite3.connect(written, timeout=30)))
        reading.backup(writing)
        if replace:
            writing.execute("PRAGMA journal_mode=DELETE")


def _run_pg(program: str, url: URL, *arguments: str) -> None:
    """Run PostgreSQL's ``program`` on the database of ``url``; its password goes through
    the environment, not the command line that every user of the machine may read."""
    found = shutil.which(program)
    if found is None:
        raise BackupError("cli.backup.missing_program", program=program)
    environment = dict(os.environ)
    if url.password is not None:
        environment["PGPASSWORD"] = str(url.password)
    target = url.set(drivername="postgresql", password=None)
    command = [found, "--no-password", *arguments]
    command.append(f"--dbname={target.render_as_string(hide_password=False)}")
    finished = subprocess.run(command, env=environment, capture_output=True, text=True)
    if finished.returncode != 0:
        reason = finished.stderr.strip() or f"exit code {finished.returncode}"
        raise BackupError("cli.backup.program_failed", program=program, reason=reason)


def _check_backup(path: Path, header: bytes) -> None:
    with path.open("rb") as backup_file:
        start = backup_file.read(len(header))
    if start != header:
        kind = "SQLite" if header == SQLITE_HEADER else "PostgreSQL"
        raise BackupError("cli.backup.not_a_backup", path=path, kind=kind)


def _holds_tables(url: URL) -> bool:
    from sqlalchemy import inspect

    from tapisvert.server.storage.engine import make_engine

    engine = make_engine(url.render_as_string(hide_password=False))
    try:
        return bool(inspect(engine).get_table_names())
    finally:
        engine.dispose()


async def _migrate(url: URL) -> None:
    """Bring the restored database to this version's latest migration, as a server would."""
    from tapisvert.server.storage import open_storage

    storage = open_storage(url.render_as_string(hide_password=False))
    await storage.start()
    await storage.close()
