"""The chat commands of ignores, friends and private messages: ``/tell``, ``/invite``,
``/friend``, ``/unfriend``, ``/ignore`` and ``/unignore`` (see ``commands``)."""

from __future__ import annotations

from tapisvert.core.notation import ascii_number
from tapisvert.i18n import message, translate
from tapisvert.server.errors import ServerError
from tapisvert.server.lobby import Lobby, User
from tapisvert.server.protocol import Ack, Notice, ServerMessage

SOCIAL_COMMANDS = ("tell", "invite", "friend", "unfriend", "ignore", "unignore")


async def run_social_command(
    lobby: Lobby,
    user: User,
    language: str,
    text: str,
    room: str | None,
    table: int | None,
) -> ServerMessage:
    """Run one of ``SOCIAL_COMMANDS``; ``room`` and ``table``: where it was typed."""
    words = text[1:].split(None, 2)
    name, arguments = words[0].lower(), words[1:]

    def told(key: str, **values: object) -> Notice:
        said = translate(f"server.social.{key}", language, **values)
        return Notice(room=room, table=table, key=f"server.social.{key}", text=said)

    if name == "tell" and len(arguments) == 2:
        await lobby.messages.tell(user, arguments[0], arguments[1])
        return Ack(table=table)
    if name == "invite" and arguments and len(text[1:].split()) <= 3:
        invited = _table(arguments[1] if len(arguments) == 2 else None, table)
        if await lobby.own_bots.is_bot_account(arguments[0]):  # it sits down at once
            await lobby.own_bots.invite(user, invited, arguments[0], None)
            return Ack(table=invited)
        await lobby.messages.invite(user, arguments[0], invited)
        return told("invited", name=(await lobby.social.person(arguments[0])).name, table=invited)
    if name in ("friend", "ignore") and not arguments:
        info = await lobby.social.info(user.id)
        if name == "ignore":
            return told("ignored_list", names=_listed(info.ignored, language))
        offline = translate("server.social.offline", language)
        friends = [
            friend.name if friend.online else f"{friend.name} ({offline})"
            for friend in info.friends
        ]
        return told(
            "friends_list",
            friends=_listed(friends, language),
            asked_by=_listed(info.asked_by, language),
            asking=_listed(info.asking, language),
        )
    if name in ("tell", "invite") or len(arguments) != 1 or len(text[1:].split()) != 2:
        raise ServerError("command_usage", usage=message(f"server.help.{name}"))
    named = arguments[0]
    if name == "friend":
        other, agreed = await lobby.social.befriend(user, named)
        return told("befriended" if agreed else "asked", name=other)
    if name == "unfriend":
        return told("unfriended", name=await lobby.social.unfriend(user, named))
    if name == "ignore":
        return told("ignoring", name=await lobby.social.ignore(user, named))
    return told("unignored", name=await lobby.social.unignore(user, named))


def _table(typed: str | None, here: int | None) -> int:
    """The table named, else the one the command was typed at."""
    if typed is None:
        if here is None:
            raise ServerError("command_usage", usage=message("server.help.invite"))
        return here
    number = ascii_number(typed)
    if number is None or number < 1:
        raise ServerError("not_a_number", text=typed)
    return number


def _listed(names: list[str], language: str) -> str:
    return ", ".join(names) if names else translate("server.social.nobody", language)
