"""Moderation through the real server: roles from the administrators' command, mutes,
removals from a table, bans, removed chat lines, reports, and refusals for everyone else."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from redis_support import REDIS_URL, redis_share  # noqa: F401  (a fixture)
from tapisvert.server.roles import grant_role
from tapisvert.server.storage import SqlStorage

from server_support import (
    Frame,
    Server,
    admin_command,
    link,
    of_type,
    postgres_database,
    serving,
)


@dataclass
class People:
    server: Server
    admin: str
    moderator: str


def register(server: Server, name: str) -> str:
    made = httpx.post(f"{server.url}/api/register", json={"name": name, "password": "secret-6"})
    made.raise_for_status()
    return str(made.json()["token"])


def login(server: Server, name: str) -> str:
    made = httpx.post(f"{server.url}/api/login", json={"name": name, "password": "secret-6"})
    made.raise_for_status()
    return str(made.json()["token"])


@pytest.fixture(scope="module")
def people(tmp_path_factory: pytest.TempPathFactory) -> Iterator[People]:
    settings = {"bot-delay": 0.02, "rate": 300.0}
    with serving(tmp_path_factory.mktemp("moderation"), **settings) as server:
        admin, moderator = register(server, "mod-admin"), register(server, "mod-erator")
        # the first administrator, from the server's machine, while the server runs
        granted = admin_command(server, "grant", "mod-admin", "administrator", "first one")
        assert granted.returncode == 0, granted.stderr
        assert "mod-admin" in granted.stdout
        listed = admin_command(server, "list")
        assert listed.stdout.split() == ["mod-admin", "administrator", "(console)"]
        made = server.call(
            admin, "POST", "/api/moderation", action="grant", name="mod-erator", role="moderator"
        )
        assert made.status_code == 204, made.text
        yield People(server, admin, moderator)


def audit(people: People) -> list[Frame]:
    page = people.server.call(people.admin, "GET", "/api/moderation")
    assert page.status_code == 200, page.text
    entries: list[Frame] = page.json()["audit"]
    return entries


def test_roles_come_from_an_administrator_and_nobody_else_moderates(people: People) -> None:
    server = people.server
    assert server.call(people.admin, "GET", "/api/moderation/me").json() == {
        "roles": ["administrator"]
    }
    plain, guest = register(server, "mod-plain"), server.guest("mod-guest")
    register(server, "mod-deputy")

    async def scenario() -> None:
        async with link(server, people.admin) as admin, link(server, plain, "fr") as someone:
            await admin.answer(type="enter", room="main")
            # a moderator may not give roles; an administrator may
            made = await admin.answer(type="chat", room="main", text="/grant mod-deputy moderator")
            assert made["type"] == "ack", made
            again = await admin.answer(type="chat", room="main", text="/grant mod-deputy moderator")
            assert again["code"] == "role_unchanged"
            for command in (
                "/mute mod-guest 5 all spam",
                "/unmute mod-guest",
                "/kick mod-guest spam",
                "/ban mod-guest 5 spam",
                "/unban mod-guest",
                "/close 1",
                "/remove mod-guest",
                "/grant mod-plain moderator",
            ):
                refused = await someone.answer(type="chat", room="main", text=command)
                assert refused["type"] == "error", (command, refused)
                assert refused["code"] in ("not_moderator", "not_administrator", "not_at_table")
            refused = await someone.answer(type="chat", room="main", text="/mute mod-guest 5 spam")
            assert (
                refused["message"]
                == "seuls les modérateurs et les administrateurs peuvent faire cela"
            )
            help_text = (await someone.answer(type="chat", room="main", text="/help"))["text"]
            assert "/report" in help_text and "/join" in help_text  # what this person may use
            assert "/mute" not in help_text and "/grant" not in help_text
            async with link(server, people.moderator) as moderating:
                help_text = (await moderating.answer(type="chat", room="main", text="/help"))[
                    "text"
                ]
                assert "/mute NAME MINUTES [room|table|all] REASON" in help_text
                assert "/close" in help_text and "/grant" not in help_text
            help_text = (await admin.answer(type="chat", room="main", text="/help"))["text"]
            assert "/mute" in help_text and "/grant" in help_text and "/revoke" in help_text

    asyncio.run(scenario())
    assert server.call(people.moderator, "GET", "/api/moderation/me").json()["roles"] == [
        "moderator"
    ]
    for token in (plain, guest):
        assert server.call(token, "GET", "/api/moderation").status_code == 403
        for act in (
            {"action": "ban", "name": "mod-admin", "reason": "x"},
            {"action": "close", "table": 1},
        ):
            refused = server.call(token, "POST", "/api/moderation", **act)
            assert refused.status_code == 403 and refused.json()["code"] == "not_moderator"
    grant = server.call(
        people.moderator,
        "POST",
        "/api/moderation",
        action="grant",
        name="mod-plain",
        role="moderator",
    )
    assert grant.status_code == 403 and grant.json()["code"] == "not_administrator"
    # a moderator may not act on an administrator
    protected = server.call(
        people.moderator,
        "POST",
        "/api/moderation",
        action="mute",
        name="mod-admin",
        minutes=5,
        reason="no",
    )
    assert protected.json()["code"] == "not_administrator"
    assert [entry["action"] for entry in audit(people)][-1:] == ["grant"]


def test_a_muted_person_is_told_why_and_until_when_and_it_is_in_the_audit_log(
    people: People,
) -> None:
    server = people.server
    loud = register(server, "mute-loud")

    async def scenario() -> None:
        async with link(server, people.moderator) as moderator, link(server, loud) as person:
            await person.answer(type="enter", room="main")
            said = await person.answer(type="chat", room="main", text="hello")
            assert said["type"] == "ack"
            muted = await moderator.answer(
                type="chat", room="main", text="/mute mute-loud 10 room shouting at people"
            )
            assert muted["type"] == "ack", muted
            told = await person.expect(of_type("notice", key="server.notice.muted"))
            assert "in room main until 20" in told["text"] and "shouting at people" in told["text"]
            refused = await person.answer(type="chat", room="main", text="hello again")
            assert refused["code"] == "muted"
            assert refused["message"].startswith("you are muted in room main until 20")
            assert refused["message"].endswith("UTC: shouting at people")
            # elsewhere (a room's mute), the person may speak; commands still work
            assert (await person.answer(type="chat", room="luz", text="hi"))["type"] == "ack"
            unmuted = await moderator.answer(type="chat", room="main", text="/unmute mute-loud")
            assert unmuted["type"] == "ack"
            assert (await person.answer(type="chat", room="main", text="sorry"))["type"] == "ack"

    asyncio.run(scenario())
    latest = audit(people)[:2]
    assert [entry["action"] for entry in latest] == ["unmute", "mute"]
    mute = latest[1]
    assert mute["actor"] == "mod-erator" and mute["target"] == "mute-loud"
    assert mute["reason"] == "shouting at people" and mute["until"] > mute["at"] + 590
    assert mute["detail"] == {"scope": "room:main"}


def test_a_person_removed_from_a_running_table_leaves_a_bot_who_plays_on(
    people: People,
) -> None:
    server = people.server
    player = register(server, "kick-me")

    async def scenario() -> int:
        async with link(server, player) as person, link(server, people.moderator) as moderator:
            created = await person.answer(
                type="create", room="wizard", game="wizard", players=3, options={"rounds": "first5"}
            )
            table = created["table"]
            for _ in range(2):
                await person.answer(type="bot", table=table, level="random")
            assert (await person.answer(type="start", table=table))["type"] == "ack"
            await moderator.answer(type="watch", table=table)
            kicked = await moderator.answer(
                type="chat", table=table, text="/kick kick-me ruining the game"
            )
            assert kicked["type"] == "ack", kicked
            told = await person.expect(of_type("notice", key="server.notice.kicked"))
            assert told["text"] == f"a moderator removed you from table {table}: ruining the game"
            news = await moderator.expect(
                lambda frame: frame["type"] == "table" and frame["seats"][0]["kind"] == "bot"
            )
            assert news["seats"][0]["name"] == "bot easy"
            # the game goes on without them, to its end
            await moderator.expect(of_type("notice", key="server.notice.finished"), seconds=60)
            refused = await person.answer(type="act", table=table, seq=0, action="x")
            assert refused["code"] == "not_seated"
            return int(table)

    table = asyncio.run(scenario())
    entry = audit(people)[0]
    assert entry["action"] == "kick" and entry["target"] == "kick-me"
    assert entry["detail"] == {"table": table} and entry["reason"] == "ruining the game"


def test_a_ban_ends_sessions_and_refuses_sign_in_with_the_reason(people: People) -> None:
    server = people.server
    banned = register(server, "ban-bob")

    async def scenario() -> None:
        async with link(server, banned) as bob:
            done = server.call(
                people.moderator, "POST", "/api/moderation",
                action="ban", name="ban-bob", minutes=60, reason="cheating",
            )  # fmt: skip
            assert done.status_code == 204, done.text
            refusal = await bob.expect(of_type("error"))
            assert refusal["code"] == "banned" and refusal["message"].endswith("UTC: cheating")
            with pytest.raises(websockets.ConnectionClosed):
                await bob.expect(lambda frame: False)

    asyncio.run(scenario())
    login = httpx.post(f"{server.url}/api/login", json={"name": "ban-bob", "password": "secret-6"})
    assert login.status_code == 403 and login.json()["code"] == "banned"
    assert "until 20" in login.json()["message"] and "cheating" in login.json()["message"]
    assert server.call(banned, "GET", "/api/moderation/me").status_code == 401  # session over

    async def guest_banned() -> None:
        guest = server.guest("ban-guest")
        async with link(server, guest) as banned_guest:
            done = server.call(
                people.moderator, "POST", "/api/moderation",
                action="ban", name="ban-guest", reason="spam",
            )  # fmt: skip
            assert done.status_code == 204
            assert (await banned_guest.expect(of_type("error")))["code"] == "banned"

    asyncio.run(guest_banned())
    # a guest's ban holds for their address too: no new guest from it, for good
    again = httpx.post(f"{server.url}/api/guest", json={"name": "ban-guest-2"})
    assert again.status_code == 403 and again.json()["message"] == "you are banned for good: spam"
    lifted = server.call(
        people.moderator, "POST", "/api/moderation", action="unban", name="ban-guest"
    )
    assert lifted.status_code == 204
    assert httpx.post(f"{server.url}/api/guest", json={"name": "ban-guest-3"}).status_code == 200
    server.call(people.moderator, "POST", "/api/moderation", action="unban", name="ban-bob")
    login = httpx.post(f"{server.url}/api/login", json={"name": "ban-bob", "password": "secret-6"})
    assert login.status_code == 200
    assert [entry["action"] for entry in audit(people)[:2]] == ["unban", "unban"]


def test_a_removed_chat_line_disappears_for_everyone_and_a_report_comes_back_handled(
    people: People,
) -> None:
    server = people.server
    rude, witness = register(server, "line-rude"), register(server, "line-witness")

    async def scenario() -> None:
        async with link(server, rude) as speaker, link(server, witness) as reader:
            for client in (speaker, reader):
                await client.answer(type="enter", room="abluxxen")
            await speaker.answer(type="chat", room="abluxxen", text="before")
            await speaker.answer(type="chat", room="abluxxen", text="something rude")
            line = await reader.expect(of_type("chat", text="something rude"))
            assert line["line"]
            reported = server.call(
                witness, "POST", "/api/reports",
                kind="line", room="abluxxen", line=line["line"], reason="insult",
            )  # fmt: skip
            assert reported.status_code == 200, reported.text
            queue = server.call(people.moderator, "GET", "/api/moderation").json()["reports"]
            report = next(row for row in queue if row["id"] == reported.json()["report"])
            assert report["target"] == "line-rude" and report["reporter"] == "line-witness"
            assert [said["text"] for said in report["context"]["lines"]][-2:] == [
                "before",
                "something rude",
            ]
            removed = server.call(
                people.moderator, "POST", "/api/moderation",
                action="remove", room="abluxxen", line=line["line"], reason="insult",
            )  # fmt: skip
            assert removed.status_code == 204, removed.text
            gone = await reader.expect(of_type("unsay"))
            assert gone == {
                "type": "unsay",
                "room": "abluxxen",
                "table": None,
                "line": line["line"],
            }
            handled = server.call(
                people.moderator, "POST", f"/api/moderation/reports/{report['id']}", outcome="acted"
            )
            assert handled.status_code == 204
            told = await reader.expect(of_type("notice", key="server.notice.report_acted"))
            assert told["text"] == "a moderator acted on your report on line-rude: thank you"
        async with link(server, witness) as later:
            await later.answer(type="enter", room="abluxxen")
            assert not any(frame.get("text") == "something rude" for frame in later.seen)

    asyncio.run(scenario())
    entry = next(entry for entry in audit(people) if entry["action"] == "remove")
    assert entry["target"] == "line-rude" and entry["detail"]["text"] == "something rude"
    guest = server.guest("report-guest")
    refused = server.call(guest, "POST", "/api/reports", kind="player", name="line-rude")
    assert refused.status_code == 403 and refused.json()["code"] == "guest_report"


@pytest.mark.slow
def test_mutes_bans_and_removed_lines_reach_the_other_node(
    tmp_path: Path,
    redis_share: str,  # noqa: F811  (the fixture)
) -> None:
    """Two nodes on one PostgreSQL database and one Redis server: what a moderator does on
    the first holds for people connected to the second."""
    for url in postgres_database():
        settings: dict[str, Any] = {"bus": REDIS_URL, "rate": 1000}
        first, second = (Server(url, tmp_path / f"node{n}.log", **settings) for n in (1, 2))
        first.start()  # it migrates the database; the second may then start while the test goes on
        starting = threading.Thread(target=second.start)
        starting.start()
        try:
            register(first, "nodes-mod")
            starting.join()
            two_nodes(first, second, url)
        finally:
            first.stop()
            second.stop()


def two_nodes(first: Server, second: Server, url: str) -> None:
    moderator = login(first, "nodes-mod")
    loud, other = register(second, "nodes-loud"), register(second, "nodes-other")

    async def grant() -> None:
        storage = SqlStorage(url)
        await storage.start()
        try:
            await grant_role(storage, "(console)", "nodes-mod", "moderator")
        finally:
            await storage.close()

    asyncio.run(grant())

    async def scenario() -> None:
        async with link(second, loud) as person, link(second, other) as reader:
            for client in (person, reader):
                await client.answer(type="enter", room="main")
            await person.answer(type="chat", room="main", text="heard everywhere")
            line = (await reader.expect(of_type("chat", text="heard everywhere")))["line"]
            for _ in range(100):  # until the first node has heard the line on the room's channel
                removed = await asyncio.to_thread(
                    first.call, moderator, "POST", "/api/moderation",
                    action="remove", room="main", line=line, reason="spam",
                )  # fmt: skip
                if removed.status_code != 404:
                    break
                await asyncio.sleep(0.05)
            assert removed.status_code == 204, removed.text
            assert (await reader.expect(of_type("unsay")))["line"] == line

            muted = await asyncio.to_thread(
                first.call, moderator, "POST", "/api/moderation",
                action="mute", name="nodes-loud", minutes=5, scope="all", reason="shouting",
            )  # fmt: skip
            assert muted.status_code == 204, muted.text
            told = await person.expect(of_type("notice", key="server.notice.muted"))
            assert "shouting" in told["text"]
            for _ in range(100):  # the second node reads the mute from the database
                refused = await person.answer(type="chat", room="main", text="still here")
                if refused["type"] == "error":
                    break
                await asyncio.sleep(0.05)
            assert refused["code"] == "muted" and refused["message"].endswith(": shouting")

            banned = await asyncio.to_thread(
                first.call, moderator, "POST", "/api/moderation",
                action="ban", name="nodes-loud", reason="again",
            )  # fmt: skip
            assert banned.status_code == 204
            refusal = await person.expect(of_type("error", code="banned"))
            assert refusal["message"] == "you are banned for good: again"
        assert second.call(loud, "GET", "/api/moderation/me").status_code == 401

    asyncio.run(scenario())


def test_a_table_is_reported_its_line_removed_and_the_table_closed(people: People) -> None:
    server = people.server
    host, witness = register(server, "close-host"), register(server, "close-witness")

    async def scenario() -> int:
        async with link(server, host) as player, link(server, witness) as reader:
            created = await player.answer(type="create", room="luz", game="luz", players=3)
            table = created["table"]
            await reader.answer(type="watch", table=table)
            await player.answer(type="chat", table=table, text="a line to remove")
            said = await reader.expect(of_type("chat", table=table, text="a line to remove"))
            reported = await reader.answer(
                type="chat", room="luz", text=f"/report #{table} offensive"
            )
            assert reported["type"] == "ack", reported
            queue = server.call(people.moderator, "GET", "/api/moderation").json()["reports"]
            report = next(row for row in queue if row["kind"] == "table")
            assert report["reason"] == "offensive" and report["reporter"] == "close-witness"
            assert report["target"] == f"#{table}" and report["context"]["info"]["game"] == "luz"
            assert report["context"]["lines"] == [
                {"sender": "close-host", "text": "a line to remove"}
            ]
            async with link(server, people.moderator) as moderator:
                removed = await moderator.answer(
                    type="chat", table=table, text="/remove close-host offensive"
                )
                assert removed["type"] == "ack", removed
                gone = await reader.expect(of_type("unsay", table=table))
                assert gone["line"] == said["line"]
                closed = await moderator.answer(type="chat", room="luz", text=f"/close {table} bad")
                assert closed["type"] == "ack", closed
            await reader.expect(of_type("notice", key="server.notice.closed"))
            await reader.expect(of_type("table", table=table, status="closed"))
        # handled while the reporter is away: they are told as they next connect
        dismissed = server.call(
            people.moderator, "POST", f"/api/moderation/reports/{report['id']}",
            outcome="dismissed",
        )  # fmt: skip
        assert dismissed.status_code == 204
        async with link(server, witness) as back:
            told = await back.expect(of_type("notice", key="server.notice.report_dismissed"))
        assert told["text"] == f"a moderator looked at your report on #{table} and took no action"
        again = server.call(
            people.moderator, "POST", f"/api/moderation/reports/{report['id']}",
            outcome="acted",
        )  # fmt: skip
        assert again.status_code == 404 and again.json()["code"] == "no_such_report"
        return int(table)

    table = asyncio.run(scenario())
    assert server.http.get(f"{server.url}/api/tables/{table}").status_code == 404  # gone
    assert [entry["action"] for entry in audit(people)[:3]] == [
        "report_dismissed",
        "close",
        "remove",
    ]
