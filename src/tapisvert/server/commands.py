"""Chat commands in the manner of BrettspielWelt: ``/join``, ``/start``, ``/who``…

A command runs the same lobby method as the matching WebSocket message or HTTP call.
At a table a command applies to that table; in a room, ``/join`` names the table.
Seats are numbered from 1 in commands, as in P1, P2…
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from tapisvert.core.notation import ascii_number
from tapisvert.i18n import message, translate
from tapisvert.server.errors import ServerError
from tapisvert.server.lobby import Lobby, User
from tapisvert.server.moderation_commands import (
    MODERATION_COMMANDS,
    may_use,
    run_moderation_command,
)
from tapisvert.server.protocol import MAX_OPTION_VALUE, Ack, Notice, ServerMessage
from tapisvert.server.rooms import MAIN_ROOM, tournament_of
from tapisvert.server.social_commands import SOCIAL_COMMANDS, run_social_command

COMMANDS = (
    "play",
    "join",
    "leave",
    "start",
    "option",
    "bot",
    "rematch",
    "undo",
    "tournament",
    "who",
    *SOCIAL_COMMANDS,
    *MODERATION_COMMANDS,
    "help",
)


@dataclass(frozen=True)
class Place:
    """Where the command was typed."""

    room: str | None
    table: int | None


async def run_command(
    lobby: Lobby, user: User, language: str, text: str, place: Place
) -> ServerMessage:
    """Run one command line and return the answer for the person who typed it."""
    words = text[1:].split()
    name, arguments = (words[0].lower(), words[1:]) if words else ("", [])
    if name not in COMMANDS:
        raise ServerError("bad_command", command=text.split()[0], commands=_names())
    if name == "help":
        return _help(language, place, await lobby.moderation.roles_of(user))
    if name == "who":
        return await lobby.rooms.who(place.room, place.table, user, language)
    if name in SOCIAL_COMMANDS:
        return await run_social_command(lobby, user, language, text, place.room, place.table)
    if name == "join":
        return await _join(lobby, user, arguments, place)
    if name == "play":
        return await _play(lobby, user, arguments, place)
    if name == "tournament":
        return await _tournament(lobby, user, language, arguments, place)
    if name in MODERATION_COMMANDS:
        return await run_moderation_command(lobby, user, name, arguments, place.room, place.table)
    table = _table_here(place)
    if name == "leave" and not arguments:
        await lobby.tables.leave(user, table)
    elif name == "start" and not arguments:
        await lobby.tables.start_game(user, table)
    elif name == "option" and len(arguments) == 2:
        if len(arguments[1]) > MAX_OPTION_VALUE:  # as long as the message's field allows
            field = message("server.field.value")
            raise ServerError(
                "malformed", key="server.problem.too_long", field=field, limit=MAX_OPTION_VALUE
            )
        await lobby.tables.set_option(user, table, arguments[0], arguments[1])
    elif name == "bot" and len(arguments) == 2 and arguments[0].lower() == "add":
        await lobby.tables.add_bot(user, table, arguments[1], None)
    elif name == "undo" and len(arguments) <= 1:
        answer = arguments[0].lower() if arguments else "ask"
        if answer not in ("yes", "no", "ask"):
            raise _usage(name)
        return Ack(table=table, seq=await lobby.tables.take_back(user, table, None, answer))
    elif name == "rematch" and not arguments:
        return Ack(table=await lobby.tables.rematch(user, table))
    else:
        raise _usage(name)
    return Ack(table=table)


async def _join(lobby: Lobby, user: User, arguments: list[str], place: Place) -> ServerMessage:
    """``/join [N]`` at a table, ``/join TABLE [N]`` in a room; the ack names the table."""
    numbers = [_number(argument) for argument in arguments]
    if place.table is not None and len(numbers) <= 1:
        table, seat = place.table, (numbers[0] - 1 if numbers else None)
    elif place.table is None and 1 <= len(numbers) <= 2:
        table, seat = numbers[0], (numbers[1] - 1 if len(numbers) == 2 else None)
    else:
        raise _usage("join")
    await lobby.tables.join(user, table, seat)
    return Ack(table=table)


async def _play(lobby: Lobby, user: User, arguments: list[str], place: Place) -> ServerMessage:
    """``/play GAME [LEVEL]``: a table of the person and bots, started; the ack names it."""
    if not 1 <= len(arguments) <= 2:
        raise _usage("play")
    game, level = arguments[0].lower(), (arguments[1] if len(arguments) == 2 else "easy")
    # typed in a tournament's chat: the table goes in the main room
    room = MAIN_ROOM if place.room is None or tournament_of(place.room) else place.room
    return Ack(table=await lobby.tables.play_now(user, room, game, level))


async def _tournament(
    lobby: Lobby, user: User, language: str, arguments: list[str], place: Place
) -> ServerMessage:
    """``/tournament [list]``, ``/tournament join N``, ``/tournament leave N`` (in a
    tournament's chat, ``/tournament join`` and ``/tournament leave``: that one)."""
    words = [word.lower() for word in arguments]
    here = tournament_of(place.room)
    if len(words) == 1 and words[0] in ("join", "leave") and here is not None:
        words.append(str(here))
    if words in ([], ["list"]):
        lines = [
            translate(
                "server.tournament.line",
                language,
                number=row.id,
                name=row.name,
                game=translate(f"{row.game}.name", language),
                status=translate(f"server.tournament.{row.status}", language),
                starts=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(row.starts_at)),
            )
            for row in await lobby.tournaments.listed()
        ]
        text = "\n".join(lines) or translate("server.tournament.none", language)
        return Notice(room=place.room, table=place.table, key="server.tournament.list", text=text)
    if len(words) == 2 and words[0] in ("join", "leave"):
        number = _number(words[1])
        if words[0] == "join":
            await lobby.tournaments.register(user, number)
        else:
            await lobby.tournaments.withdraw(user, number)
        key = f"server.tournament.{words[0]}ed" if words[0] == "join" else "server.tournament.left"
        said = translate(key, language, number=number)
        return Notice(room=place.room, table=place.table, key=key, text=said)
    raise _usage("tournament")


def _usage(name: str) -> ServerError:
    """A known command with the wrong words: how it is written, from its help line."""
    return ServerError("command_usage", usage=message(f"server.help.{name}"))


def _number(text: str) -> int:
    number = ascii_number(text)
    if number is None or number < 1:
        raise ServerError("not_a_number", text=text)
    return number


def _table_here(place: Place) -> int:
    if place.table is None:
        raise ServerError("not_at_table")
    return place.table


def _names() -> str:
    return ", ".join(f"/{name}" for name in COMMANDS)


def _help(language: str, place: Place, roles: set[str]) -> Notice:
    """The commands this person may use, a line each: a moderator's appear to moderators."""
    lines = [
        translate(f"server.help.{name}", language) for name in COMMANDS if may_use(name, roles)
    ]
    return Notice(room=place.room, table=place.table, key="server.help", text="\n".join(lines))
