"""``tapisvert admin``: give and take back roles, and make one-time links that set a password,
on the server's machine, straight in the database, whether the server runs or not (each node
reads a person's roles as they act)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from tapisvert.cli.options import DatabaseOption, help_text, on_database
from tapisvert.i18n import default_language, translate

console = Console(highlight=False)


admin = typer.Typer(help=help_text("admin"), no_args_is_help=True)


@admin.command(help=help_text("admin_grant"))
def grant(
    name: str,
    role: str,
    reason: Annotated[str, typer.Argument()] = "",
    database_url: DatabaseOption = "",
) -> None:
    from tapisvert.server.roles import CONSOLE, grant_role

    changed = on_database(
        database_url, lambda storage: grant_role(storage, CONSOLE, name, role, reason)
    )
    key = "cli.admin.granted" if changed else "cli.admin.had_it"
    console.print(translate(key, default_language(), name=name, role=role.lower()))


@admin.command(help=help_text("admin_revoke"))
def revoke(
    name: str,
    role: str,
    reason: Annotated[str, typer.Argument()] = "",
    database_url: DatabaseOption = "",
) -> None:
    from tapisvert.server.roles import CONSOLE, revoke_role

    changed = on_database(
        database_url, lambda storage: revoke_role(storage, CONSOLE, name, role, reason)
    )
    key = "cli.admin.revoked" if changed else "cli.admin.did_not_have_it"
    console.print(translate(key, default_language(), name=name, role=role.lower()))


@admin.command(name="list", help=help_text("admin_list"))
def list_roles(database_url: DatabaseOption = "") -> None:
    staff = on_database(database_url, lambda storage: storage.moderation.staff())
    if not staff:
        console.print(translate("cli.admin.nobody", default_language()))
    for row in staff:
        console.print(f"{row.name}\t{row.role}\t{row.granted_by}")


@admin.command(name="reset-link", help=help_text("admin_reset_link"))
def reset_link(
    name: str,
    url: Annotated[str, typer.Option(help=help_text("admin_reset_url"))] = "",
    database_url: DatabaseOption = "",
) -> None:
    from tapisvert.server.account_life import RESET_LINK_HOURS, issue_reset_key
    from tapisvert.server.roles import CONSOLE

    key = on_database(database_url, lambda storage: issue_reset_key(storage, CONSOLE, name))
    link = f"{url.rstrip('/')}/#reset={key}"
    console.print(
        translate(
            "cli.admin.reset_link", default_language(), name=name, link=link, hours=RESET_LINK_HOURS
        )
    )
