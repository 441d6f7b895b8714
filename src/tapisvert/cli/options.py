"""What the commands share: their help in the reader's language, and the options that
several of them take."""

from __future__ import annotations

from typing import Annotated

import typer

from tapisvert.i18n import default_language, translate


def help_text(key: str, **arguments: object) -> str:
    """``--help`` speaks the language of ``TAPISVERT_LANG`` or the locale: it is shown
    before any ``--lang`` could be read."""
    return translate(f"cli.help.{key}", default_language(), **arguments)


DatabaseOption = Annotated[str, typer.Option(help=help_text("database_url"))]
"""The platform's database (default: the one ``serve`` uses)."""
