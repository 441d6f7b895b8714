"""What the commands share: their help in the reader's language, and the options that
several of them take."""

from __future__ import annotations

from typing import Annotated

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


def fail(error: TapisvertError, language: str) -> typer.Exit:
    """A refusal printed in the reader's language, and the exit (status 2) to raise; its
    text is not markup (``pip install 'tapisvert[ray]'`` keeps its brackets)."""
    errors.print(f"[bold red]✗[/] {escape(error.render(language))}", soft_wrap=True)
    return typer.Exit(code=2)
