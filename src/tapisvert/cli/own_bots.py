"""``tapisvert connect`` and ``tapisvert bot-token``: a program of one's own plays at a server
as a bot account (see ``tapisvert.client``)."""

from __future__ import annotations

import os
from typing import Annotated
from urllib.parse import quote

import typer
from rich.console import Console

from tapisvert.cli.options import fail, help_text
from tapisvert.i18n import default_language, translate

console = Console(highlight=False)
own_bots = typer.Typer()

ServerOption = Annotated[str, typer.Option(help=help_text("server_url"))]
TOKEN_VARIABLE = "TAPISVERT_BOT_TOKEN"
PASSWORD_VARIABLE = "TAPISVERT_PASSWORD"


@own_bots.command(help=help_text("connect"))
def connect(
    server: ServerOption = "http://127.0.0.1:8000",
    token: Annotated[
        str, typer.Option(envvar=TOKEN_VARIABLE, help=help_text("bot_token_option"))
    ] = "",
    bot: Annotated[str, typer.Option(help=help_text("connect_bot"))] = "easy",
    games: Annotated[int | None, typer.Option(min=1, help=help_text("connect_games"))] = None,
    seed: Annotated[int, typer.Option(help=help_text("connect_seed"))] = 0,
) -> None:
    from tapisvert.client import ClientError, play, player_named
    from tapisvert.compiled import engine_words

    language = default_language()
    engine, words = engine_words()
    console.print(translate(engine, language, **words))
    console.print(translate("cli.connecting", language, server=server, bot=bot))
    try:
        played = play(server, token, player_named(bot), games, seed)
    except ClientError as error:
        raise fail(error, language) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    finished = len(played.finished)
    console.print(translate("cli.connect_done", language, games=finished, moves=played.moves))


@own_bots.command("bot-token", help=help_text("bot_token"))
def bot_token(
    name: Annotated[str, typer.Argument(help=help_text("bot_name"))],
    owner: Annotated[str, typer.Option(help=help_text("bot_owner"))],
    server: ServerOption = "http://127.0.0.1:8000",
    create: Annotated[bool, typer.Option(help=help_text("bot_create"))] = False,
    revoke: Annotated[bool, typer.Option(help=help_text("bot_revoke"))] = False,
) -> None:
    from tapisvert.client import ClientError, request_json

    language = default_language()
    password = os.environ.get(PASSWORD_VARIABLE) or typer.prompt(
        translate("cli.password_prompt", language, name=owner), hide_input=True
    )
    base, bot = server.rstrip("/"), quote(name, safe="")
    try:
        session = request_json("POST", f"{base}/api/login", {"name": owner, "password": password})
        owner_token = session["token"]
        try:
            if create:
                request_json("POST", f"{base}/api/bots", {"name": name}, owner_token)
            if revoke:
                request_json("DELETE", f"{base}/api/bots/{bot}/token", None, owner_token)
            else:
                made = request_json("POST", f"{base}/api/bots/{bot}/token", None, owner_token)
        finally:  # the session this command opened ends with it
            request_json("POST", f"{base}/api/logout", None, owner_token)
    except ClientError as error:
        raise fail(error, language) from None
    if revoke:
        console.print(translate("cli.bot_revoked", language, name=name))
    else:
        print(made["token"])
