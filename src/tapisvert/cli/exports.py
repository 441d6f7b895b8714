"""``tapisvert export``: the open database of games, written to a file on the server's
machine, straight from its database, whether the server runs or not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from tapisvert.cli.options import DatabaseOption, fail, help_text, on_database, replacing
from tapisvert.core.errors import TapisvertError
from tapisvert.i18n import default_language, translate

if TYPE_CHECKING:  # the server's modules are imported when the command runs
    from tapisvert.server.storage import Storage

console = Console(highlight=False)

exports = typer.Typer()


@exports.command(name="export", help=help_text("export"))
def export(
    game: Annotated[str, typer.Option(help=help_text("export_game"))],
    since: Annotated[str, typer.Option(help=help_text("export_since"))],
    output: Annotated[Path | None, typer.Option(help=help_text("export_output"))] = None,
    database_url: DatabaseOption = "",
) -> None:
    from sqlalchemy.exc import SQLAlchemyError

    from tapisvert.server.errors import ServerError
    from tapisvert.server.exports import Export

    language = default_language()
    try:
        asked = Export.asked(game, since)
    except ServerError as refusal:
        raise fail(refusal, language) from None
    path = output or Path(asked.file_name)
    pages: list[int] = []

    async def write(storage: Storage) -> None:
        with replacing(path) as partial, partial.open("wb") as written:
            async for piece in asked.gzipped(storage, pages.append):
                written.write(piece)

    try:
        on_database(database_url, write)
    except (OSError, SQLAlchemyError) as error:  # the file's folder, the database's server
        reason = getattr(error, "orig", None) or error
        raise fail(TapisvertError("cli.export.failed", reason=reason), language) from None
    console.print(
        translate(
            "cli.export.written",
            language,
            games=sum(pages),
            game=asked.game,
            since=asked.since.isoformat(),
            path=path,
        )
    )
