"""Ignores, friends and private messages through a real server, on one node and on two."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import websockets

from redis_support import REDIS_URL, redis_share  # noqa: F401  (a fixture)

from server_support import Server, postgres_database, serving

Frame = dict[str, Any]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("social")) as running:
        yield running


class Link:
    """One person's WebSocket, keeping what it received."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.seen: list[Frame] = []
        self._count = 0
        self._next = 0

    async def expect(
        self, test: Callable[[Frame], bool], seconds: float = 10, answer: bool = False
    ) -> Frame:
        """The first frame that passes ``test`` since the one last expected: received
        already (while waiting for an answer, say), or the next one that does.
        ``answer``: an answer is awaited, and the frames before it may still be expected."""
        for index in range(self._next, len(self.seen)):
            if test(self.seen[index]):
                self._next = index + 1
                return self.seen[index]

        async def wait() -> Frame:
            while True:
                frame: Frame = json.loads(await self.socket.recv())
                self.seen.append(frame)
                if test(frame):
                    if not answer:
                        self._next = len(self.seen)
                    return frame

        return await asyncio.wait_for(wait(), seconds)

    async def answer(self, **message: Any) -> Frame:
        """Send a request with an id; the ack, notice or error that answers it."""
        self._count += 1
        request = f"r{self._count}"
        await self.socket.send(json.dumps({"id": request, **message}))
        return await self.expect(lambda frame: frame.get("id") == request, answer=True)

    async def typed(self, text: str, **place: Any) -> Frame:
        return await self.answer(type="chat", text=text, **place)

    def lines(self) -> list[tuple[str, str]]:
        return [(f["sender"], f["text"]) for f in self.seen if f["type"] == "chat"]


@asynccontextmanager
async def link(server: Server, token: str, room: str | None = "main") -> AsyncIterator[Link]:
    async with websockets.connect(server.ws_url) as socket:
        opened = Link(socket)
        await socket.send(json.dumps({"type": "hello", "version": 1, "token": token}))
        await opened.expect(lambda frame: frame["type"] == "welcome")
        if room is not None:
            await opened.answer(type="enter", room=room)
        yield opened


def said(line: tuple[str, str]) -> Callable[[Frame], bool]:
    return lambda frame: frame["type"] == "chat" and (frame["sender"], frame["text"]) == line


def test_ignore_hides_chat_lines_and_blocks_messages_invitations_and_requests(
    server: Server,
) -> None:
    ana, bob, cy = (server.register(name) for name in ("ig-ana", "ig-bob", "ig-cy"))
    table = server.call(bob, "POST", "/api/tables", game="wizard", players=3).json()["table"]

    async def scenario() -> None:
        async with link(server, ana) as a, link(server, bob) as b, link(server, cy) as c:
            await b.typed("before", room="main")
            await a.expect(said(("ig-bob", "before")))
            ignoring = await a.typed("/ignore IG-BOB", room="main")  # the name's look-alike
            assert ignoring["key"] == "server.social.ignoring" and "ig-bob" in ignoring["text"]
            await a.expect(lambda frame: frame["type"] == "social" and frame["ignored"])
            await b.typed("after", room="main")
            await c.typed("from cy", room="main")  # said after bob's line, on the same node
            await a.expect(said(("ig-cy", "from cy")))
            assert ("ig-bob", "after") not in a.lines()
            await a.answer(type="watch", table=table)  # at the table too
            await b.typed("at the table", table=table)
            await a.typed("mine", table=table)
            await a.expect(said(("ig-ana", "mine")))
            assert ("ig-bob", "at the table") not in a.lines()
            # nor does anything of bob's reach ana: each refusal says so
            for refused in (
                await b.typed("/tell ig-ana hello", room="main"),
                await b.typed("/invite ig-ana", table=table),
                await b.typed("/friend ig-ana", room="main"),
            ):
                assert refused["code"] == "not_accepting"
                assert refused["message"].startswith("ig-ana does not accept")
            over_http = server.call(bob, "POST", "/api/messages", to="ig-ana", text="hi")
            assert over_http.status_code == 403 and over_http.json()["code"] == "not_accepting"
            assert (await a.typed("/tell ig-bob hey", room="main"))["code"] == "ignoring"
            listed = await a.typed("/ignore", room="main")
            assert listed["text"] == "you ignore: ig-bob"
            assert (await a.typed("/unignore ig-cy", room="main"))["code"] == "not_ignored"
            assert (await a.typed("/ignore ig-ana", room="main"))["code"] == "yourself"
            assert (await a.typed("/unignore ig-bob", room="main"))["type"] == "notice"
            await a.expect(lambda frame: frame["type"] == "social" and not frame["ignored"])
            await b.typed("back again", room="main")
            await a.expect(said(("ig-bob", "back again")))
            # the invitation goes through now, to every connection of hers
            assert (await b.typed("/invite ig-ana", table=table))["type"] == "notice"
            invitation = await a.expect(lambda frame: frame["type"] == "message")
            assert (invitation["sender"], invitation["table"]) == ("ig-bob", table)

    asyncio.run(scenario())
    refused = server.call(ana, "POST", "/api/ignores", name="nobody-such")
    assert refused.status_code == 404 and refused.json()["code"] == "no_such_player"
    for language, lines in [
        ("en", ["/tell NAME TEXT —", "/invite NAME [TABLE] —", "/ignore [NAME] —"]),
        ("fr", ["/tell NOM TEXTE —", "/invite NOM [TABLE] —", "/unignore NOM —"]),
    ]:
        helped = server.http.post(
            f"{server.url}/api/chat",
            json={"text": "/help", "room": "main"},
            headers={"Authorization": f"Bearer {cy}", "Accept-Language": language},
        ).json()["text"]
        assert all(line in helped for line in lines), helped


def test_friends_see_each_other_and_messages_wait_for_the_offline(server: Server) -> None:
    ana, bob = server.register("fr-ana"), server.register("fr-bob")
    gus = server.guest("fr-gus")
    table = server.call(bob, "POST", "/api/tables", game="wizard", players=3).json()["table"]

    def friends_of(token: str) -> list[Frame]:
        return list(server.call(token, "GET", "/api/social").json()["friends"])

    async def scenario() -> None:
        async with link(server, ana) as a:
            async with link(server, bob) as b:
                asked = await a.typed("/friend fr-bob", room="main")
                assert asked["key"] == "server.social.asked"
                await b.expect(lambda frame: frame["type"] == "social" and frame["asked_by"])
                assert (await a.typed("/friend fr-bob", room="main"))["code"] == "already_asked"
                agreed = await b.typed("/friend fr-ana", room="main")
                assert agreed["text"] == "fr-ana and you are friends now"
                await a.expect(lambda frame: frame["type"] == "social" and frame["friends"])
                assert friends_of(ana) == [{"name": "fr-bob", "online": True, "tables": [table]}]
                listed = await b.typed("/friend", room="main")
                assert listed["text"].startswith("friends: fr-ana —")
            assert friends_of(ana) == [{"name": "fr-bob", "online": False, "tables": []}]
            # bob is away: the message waits for him
            assert (await a.typed("/tell fr-bob see you at table 3", room="main"))["type"] == "ack"
            sent = await a.expect(lambda frame: frame["type"] == "message")  # her own copy
            assert (sent["recipient"], sent["read"]) == ("fr-bob", False)
            # guests are told that friends and messages are for accounts
            for refusal, code in [
                (await a.typed("/tell fr-gus hi", room="main"), "not_an_account"),
                (await a.typed("/friend fr-gus", room="main"), "not_an_account"),
            ]:
                assert refusal["code"] == code and "fr-gus is a guest" in refusal["message"]
        guest = server.call(gus, "POST", "/api/messages", to="fr-ana", text="hi")
        assert guest.status_code == 403 and "create an account" in guest.json()["message"]
        async with link(server, bob, room=None) as b:
            waiting = await b.expect(lambda frame: frame["type"] == "message")
            assert (waiting["sender"], waiting["text"], waiting["history"]) == (
                "fr-ana",
                "see you at table 3",
                True,
            )
            social = next(frame for frame in b.seen if frame["type"] == "social")
            assert social["unread"] == 1
        mine = server.call(bob, "GET", "/api/messages").json()
        assert [(one["name"], one["unread"]) for one in mine] == [("fr-ana", 1)]
        read = server.call(bob, "GET", "/api/messages/fr-ana").json()
        assert [one["text"] for one in read] == ["see you at table 3"]
        assert server.call(bob, "GET", "/api/social").json()["unread"] == 0
        gone = server.call(bob, "DELETE", "/api/friends/fr-ana")
        assert gone.json() == {"name": "fr-ana", "friends": False}
        assert friends_of(ana) == []

    asyncio.run(scenario())


def test_limits_refuse_floods_of_messages_and_friend_requests(server: Server) -> None:
    ana, bob = server.register("fl-ana"), server.register("fl-bob")
    for _ in range(20):
        assert server.call(ana, "POST", "/api/messages", to="fl-bob", text="x").status_code == 200
    flood = server.call(ana, "POST", "/api/messages", to="fl-bob", text="x")
    assert flood.status_code == 429
    assert flood.json()["message"].startswith("you are sending private messages too fast")
    for _ in range(20):
        server.call(ana, "POST", "/api/friends", name="fl-bob").raise_for_status()
        server.call(ana, "DELETE", "/api/friends/fl-bob").raise_for_status()
    flood = server.call(ana, "POST", "/api/friends", name="fl-bob")
    assert flood.status_code == 429 and "friend requests" in flood.json()["message"]
    assert server.call(ana, "GET", "/api/social").json()["asking"] == []  # nothing changed
    # the limit is hers alone
    assert server.call(bob, "POST", "/api/friends", name="fl-ana").json()["friends"] is False


@pytest.fixture
def two_nodes(
    tmp_path: Path,
    redis_share: str,  # noqa: F811  (the fixture)
) -> Iterator[list[Server]]:
    """Two nodes on one PostgreSQL database and one Redis server."""
    url = next(database := postgres_database())
    nodes = [Server(url, tmp_path / f"node{index}.log", bus=REDIS_URL) for index in (1, 2)]
    try:
        for node in nodes:
            node.start()
        yield nodes
    finally:
        for node in nodes:
            node.stop()
        database.close()


def test_a_message_sent_on_one_node_reaches_a_friend_on_another(two_nodes: list[Server]) -> None:
    first, second = two_nodes
    ana, bob, cy = first.register("nd-ana"), second.register("nd-bob"), first.register("nd-cy")
    first.call(ana, "POST", "/api/friends", name="nd-bob").raise_for_status()
    second.call(bob, "POST", "/api/friends", name="nd-ana").raise_for_status()

    async def scenario() -> None:
        async with link(second, bob, room=None) as b:
            await b.expect(lambda frame: frame["type"] == "social")  # his channel is heard
            for _ in range(200):  # the first node hears that bob came, on the second
                seen = await asyncio.to_thread(first.call, ana, "GET", "/api/social")
                if seen.json()["friends"][0]["online"]:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the first node never saw bob online")
            told = first.call(ana, "POST", "/api/messages", to="nd-bob", text="across")
            told.raise_for_status()
            arrived = await b.expect(lambda frame: frame["type"] == "message")
            assert (arrived["sender"], arrived["text"], arrived["history"]) == (
                "nd-ana",
                "across",
                False,
            )
            # ignoring, asked on the first node, hides her lines on the second at once
            first.call(bob, "POST", "/api/ignores", name="nd-ana").raise_for_status()
            await b.expect(lambda frame: frame["type"] == "social" and frame["ignored"])
            await b.answer(type="enter", room="main")
            for token, text in ((ana, "hidden"), (cy, "seen")):  # in this order, from one node
                first.call(token, "POST", "/api/chat", room="main", text=text).raise_for_status()
            await b.expect(said(("nd-cy", "seen")))
            assert ("nd-ana", "hidden") not in b.lines()

    asyncio.run(scenario())
