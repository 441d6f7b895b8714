"""What the commands share: their help in the reader's language, and the options that
several of them take."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from tapisvert.core.errors import TapisvertError
from tapisvert.i18n import default_language, translate


def help_text(key: str, **arguments: object) -> str:
    """``--help`` speaks the language of ``TAPISVERT_LANG`` or the locale: it is shown
    before any ``--lang`` could be read."""
    return translate(f"cli.help.{key}", default_language(), **arguments)


DatabaseOption = Annotated[str, typer.Option(help=help_text("database_url"))]
"""The platform's database (default: the one ``serve`` uses)."""


errors = Console(stderr=True, highlight=False)
T = TypeVar("T")


def fail(error: TapisvertError, language: str) -> typer.Exit:
    """A refusal printed in the reader's language, and the exit (status 2) to raise; its
    text is not markup (``pip install 'tapisvert[ray]'`` keeps its brackets)."""
    errors.print(f"[bold red]✗[/] {escape(error.render(language))}", soft_wrap=True)
    return typer.Exit(code=2)


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A new file beside ``path``, readable by its owner only (a backup holds the games'
    hidden cards and the accounts' password hashes), renamed ``path`` once written: a
    failure midway never replaces a good file with half of one."""
    handle, partial = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(handle)
    try:
        yield Path(partial)
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)


def on_database(url: str, work: Callable[..., Awaitable[T]]) -> T:
    """Run ``work(storage)`` on the platform's database (brought to the latest migration
    first), whether a server runs on it or not; a refusal is printed in the reader's
    language."""
    from tapisvert.server.errors import ServerError
    from tapisvert.server.storage import default_database_url, open_storage

    async def run() -> T:
        storage = open_storage(url or default_database_url())
        await storage.start()
        try:
            return await work(storage)
        finally:
            await storage.close()

    try:
        return asyncio.run(run())
    except ServerError as refusal:
        raise fail(refusal, default_language()) from None
