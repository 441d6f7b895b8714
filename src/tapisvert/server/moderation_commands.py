"""The chat commands of moderation and reports: ``/mute``, ``/kick``, ``/ban``, ``/report``…

Each runs the same method as the moderators' page. A reason is the rest of the line.
"""

from __future__ import annotations

from tapisvert.core.notation import ascii_number
from tapisvert.i18n import message
from tapisvert.server.errors import ServerError
from tapisvert.server.lobby import Lobby, User
from tapisvert.server.protocol import Ack, ServerMessage
from tapisvert.server.rooms import tournament_of

MODERATION_COMMANDS = (
    "report",
    "mute",
    "unmute",
    "kick",
    "ban",
    "unban",
    "close",
    "cancel",
    "remove",
    "grant",
    "revoke",
)
SCOPES = ("room", "table", "all")
ROLE_NEEDED = {
    name: "administrator" if name in ("grant", "revoke") else "moderator"
    for name in MODERATION_COMMANDS
    if name != "report"
}
"""The role each command asks for (``/report`` is everyone's): ``/help`` shows a command
only to those who may use it."""


def may_use(name: str, roles: set[str]) -> bool:
    """Whether someone with ``roles`` may run command ``name`` (an administrator moderates)."""
    needed = ROLE_NEEDED.get(name)
    return needed is None or needed in roles or "administrator" in roles


async def run_moderation_command(
    lobby: Lobby, user: User, name: str, arguments: list[str], room: str | None, table: int | None
) -> ServerMessage:
    """Run one of ``MODERATION_COMMANDS`` typed in ``room`` or at ``table``."""
    moderation = lobby.moderation
    if name in ("report", "kick", "unmute", "unban", "remove", "ban", "mute") and not arguments:
        raise usage(name)
    rest = " ".join(arguments[1:])
    if name == "report":
        number = ascii_number(arguments[0][1:]) if arguments[0].startswith("#") else None
        if number is not None:  # /report #12 REASON: a table
            await lobby.reports.report(user, "table", rest, None, room, number)
        else:
            await lobby.reports.report(user, "player", rest, arguments[0], room, table)
        moderation.notify(user.id, "server.notice.reported", name=arguments[0])
        return Ack(table=table)
    if name == "mute" and len(arguments) >= 2:
        minutes = _count(arguments[1])
        scope, reason = _scope(arguments[2:], room, table)
        await moderation.mute(user, arguments[0], minutes, scope, reason)
    elif name == "unmute":
        await moderation.unmute(user, arguments[0], rest)
    elif name == "kick" and table is not None:
        await moderation.kick(user, arguments[0], table, rest)
    elif name == "kick":
        raise ServerError("not_at_table")
    elif name == "ban" and len(arguments) >= 2:
        length = ascii_number(arguments[1])
        given = length is not None or arguments[1].lower() in ("forever", "toujours")
        reason = " ".join(arguments[2:] if given else arguments[1:])
        await moderation.ban(
            user, arguments[0], None if length is None else _count(arguments[1]), reason
        )
    elif name == "unban":
        await moderation.unban(user, arguments[0], rest)
    elif name == "close" and (arguments or table is not None):
        named = bool(arguments) and ascii_number(arguments[0]) is not None
        closed = _count(arguments[0]) if named else table
        if closed is None:
            raise usage(name)
        await moderation.close(user, closed, rest if named else " ".join(arguments))
    elif name == "cancel":
        return await _cancel(lobby, user, arguments, room)
    elif name == "remove":
        await moderation.remove_line(user, room, table, None, arguments[0], rest)
    elif name in ("grant", "revoke") and len(arguments) >= 2:
        act = moderation.grant if name == "grant" else moderation.revoke
        await act(user, arguments[0], arguments[1], " ".join(arguments[2:]))
    else:
        raise usage(name)
    moderation.notify(user.id, f"server.notice.done_{name}", name=" ".join(arguments[:1]))
    return Ack(table=table)


async def _cancel(lobby: Lobby, user: User, arguments: list[str], room: str | None) -> Ack:
    """``/cancel N REASON``; in a tournament's chat, ``/cancel REASON`` cancels that one."""
    named = bool(arguments) and ascii_number(arguments[0]) is not None
    tournament = _count(arguments[0]) if named else tournament_of(room)
    if tournament is None:
        raise usage("cancel")
    await lobby.moderation.cancel_tournament(
        user, tournament, " ".join(arguments[1:] if named else arguments)
    )
    lobby.moderation.notify(user.id, "server.notice.done_cancel", number=tournament)
    return Ack()


def usage(name: str) -> ServerError:
    """A known command with the wrong words: how it is written, from its help line."""
    return ServerError("command_usage", usage=message(f"server.help.{name}"))


def _count(text: str) -> int:
    number = ascii_number(text)
    if number is None or number < 1:
        raise ServerError("not_minutes", text=text[:32])
    return number


def _scope(words: list[str], room: str | None, table: int | None) -> tuple[str, str]:
    """Where a mute holds (``room``, ``table``, ``all``; by default, where it is typed) and
    the reason that follows."""
    chosen = words[0].lower() if words and words[0].lower() in SCOPES else None
    reason = " ".join(words[1:] if chosen is not None else words)
    chosen = chosen or ("table" if table is not None else "room")
    if chosen == "table":
        if table is None:
            raise ServerError("not_at_table")
        return f"table:{table}", reason
    if chosen == "room":
        if room is None:
            raise ServerError("not_in_room")
        return f"room:{room}", reason
    return "all", reason
