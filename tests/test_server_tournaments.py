"""Tournaments through the real server: a Swiss of twelve accounts at tables of four over
three rounds, played by client programs, its standings checked by hand; a knock-out; a
restart in the middle of a round; and the refusals."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from redis_support import redis_share  # noqa: F401  (a fixture)
from tapisvert.client import Client
from test_server_nodes import postgres, two_nodes  # noqa: F401  (fixtures)

from server_support import (
    Link,
    Server,
    admin_command,
    engine_for,
    link,
    of_type,
    serving,
    until,
)

ONE_ROUND = {"rounds": "1"}
SETTINGS = {"bot-delay": 0.0, "rate": 1000.0}
SETTINGS_POLL = 1.0
"""How often a node looks at the tournaments it runs (the server's default)."""


def tournament(server: Server, token: str, seconds: float, **settings: Any) -> int:
    """A Wizard tournament of one-round games, starting in ``seconds``."""
    body = {
        "name": "Friday cup",
        "game": "wizard",
        "table_size": 4,
        "options": ONE_ROUND,
        "starts_at": time.time() + seconds,
        **settings,
    }
    made = server.call(token, "POST", "/api/tournaments", **body)
    assert made.status_code == 200, made.text
    return int(made.json()["tournament"])


def page(server: Server, tournament_id: int) -> dict[str, Any]:
    return dict(server.http.get(f"{server.url}/api/tournaments/{tournament_id}").json())


def field(server: Server, prefix: str, count: int) -> list[str]:
    """Accounts made before the tournament (a password's hash takes a while)."""
    return [server.register(f"{prefix}{number}") for number in range(count)]


def enter(server: Server, tokens: list[str], tournament_id: int) -> None:
    for token in tokens:
        joined = server.call(token, "POST", f"/api/tournaments/{tournament_id}/register")
        assert joined.status_code == 204, joined.text


@asynccontextmanager
async def programs(server: Server, tokens: list[str]) -> AsyncIterator[list[Client]]:
    """Every player's program playing at ``server``, stopped on leaving."""
    clients = [
        Client(server.url, token, "random", seed=index) for index, token in enumerate(tokens)
    ]
    running = [asyncio.create_task(client.run()) for client in clients]
    try:
        yield clients
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


async def over(server: Server, tournament_id: int) -> None:
    await until(lambda: page(server, tournament_id)["status"] in ("finished", "cancelled"), 300)


async def play_it_out(server: Server, tokens: list[str], make: Callable[[], int]) -> int:
    """Every player's program connected first; then ``make`` makes the tournament (and
    registers them), which is played until it is over; its number."""
    async with programs(server, tokens) as clients:
        await until(lambda: all(client.played.connections for client in clients), 60)
        await asyncio.sleep(0.5)  # greeted: online from now on
        tournament_id = await asyncio.to_thread(make)
        await over(server, tournament_id)
    return tournament_id


def made(server: Server, creator: str, tokens: list[str], **settings: Any) -> Callable[[], int]:
    """A tournament starting in a few seconds, with ``tokens``'s accounts registered."""

    def make() -> int:
        tournament_id = tournament(server, creator, 5, **settings)
        enter(server, tokens, tournament_id)
        assert page(server, tournament_id)["status"] == "registering"
        return tournament_id

    return make


def places(scores: list[float]) -> list[int]:
    return [1 + sum(other > score for other in scores) for score in scores]


def hand_points(server: Server, tables: list[dict[str, Any]]) -> Counter[str]:
    """Tournament points as the rules say them: at a table of four, a point for each player
    finished ahead of and half for each one level (scores from each table's result)."""
    points: Counter[str] = Counter()
    for table in tables:
        info = server.http.get(f"{server.url}/api/tables/{table['table']}").json()
        placed = places(info["result"])
        for seat, name in enumerate(table["players"]):
            if name is None:
                continue
            points[name] += sum(
                1.0 if placed[seat] < placed[other] else 0.5 if placed[seat] == placed[other] else 0
                for other in range(len(placed))
                if other != seat
            )
    return points


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with serving(tmp_path, **SETTINGS) as running:
        yield running


@pytest.mark.slow
def test_a_swiss_of_twelve_at_tables_of_four_over_three_rounds(server: Server) -> None:
    creator = server.register("organiser")
    tokens = field(server, "swiss", 12)
    make = made(server, creator, tokens, format="swiss", rounds=3)
    tournament_id = asyncio.run(play_it_out(server, tokens, make))
    done = page(server, tournament_id)
    assert done["status"] == "finished" and done["round"] == 3
    tables = done["tables"]
    assert [table["round"] for table in tables] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    for number in (1, 2, 3):
        seated = [name for table in tables if table["round"] == number for name in table["players"]]
        assert sorted(seated) == sorted(f"swiss{index}" for index in range(12))  # once each
    assert all(table["absent"] == [] for table in tables)  # everyone was connected
    points = hand_points(server, tables)
    standings = done["standings"]
    assert {row["name"]: row["points"] for row in standings} == points
    assert [row["points"] for row in standings] == sorted(points.values(), reverse=True)
    assert sum(points.values()) == 3 * 3 * 6  # each table of four hands out 3+2+1+0
    assert all(row["games"] == 3 for row in standings)
    assert done["winner"] == standings[0]["name"]
    # the second round seats nobody with more than one player met in the first (3 tables)
    first = {
        name: table["table"] for table in tables if table["round"] == 1 for name in table["players"]
    }
    for table in (table for table in tables if table["round"] == 2):
        assert max(Counter(first[name] for name in table["players"]).values()) == 2
    listed = server.http.get(f"{server.url}/api/tournaments").json()
    assert [row["tournament"] for row in listed] == [tournament_id]


@pytest.mark.slow
def test_a_knockout_keeps_the_best_two_of_each_table_until_the_final(server: Server) -> None:
    creator = server.register("knocker")
    tokens = field(server, "ko", 8)
    make = made(server, creator, tokens, format="knockout", advance=2)
    tournament_id = asyncio.run(play_it_out(server, tokens, make))
    done = page(server, tournament_id)
    assert done["status"] == "finished" and done["round"] == 2
    first = [table for table in done["tables"] if table["round"] == 1]
    final = [table for table in done["tables"] if table["round"] == 2]
    assert len(first) == 2 and len(final) == 1
    going_on = set()
    for table in first:
        info = server.http.get(f"{server.url}/api/tables/{table['table']}").json()
        order = sorted(range(4), key=lambda seat: -info["result"][seat])
        best = {table["players"][seat] for seat in order[:2]}
        if len(set(info["result"])) == 4:  # no tie: the two best by score go on
            going_on |= best
    assert going_on <= set(final[0]["players"])
    assert len(final[0]["players"]) == 4
    final_info = server.http.get(f"{server.url}/api/tables/{final[0]['table']}").json()
    top = max(final_info["result"])
    winners = {
        final[0]["players"][seat] for seat, score in enumerate(final_info["result"]) if score == top
    }
    assert done["winner"] in winners
    out = {row["name"] for row in done["standings"] if row["out"]}
    assert len(out) == 6 and done["winner"] not in out  # two at each table stay in
    assert done["standings"][0]["name"] == done["winner"]


@pytest.mark.slow
def test_a_tournament_goes_on_after_a_restart_in_the_middle_of_a_round(tmp_path: Path) -> None:
    with serving(tmp_path, **SETTINGS) as server:
        creator = server.register("steady")
        tokens = field(server, "rs", 4)
        tournament_id = tournament(server, creator, 4, format="swiss", rounds=2)
        enter(server, tokens, tournament_id)

        async def run() -> None:
            async with programs(server, tokens):
                await until(lambda: page(server, tournament_id)["round"] == 1, 60)
                await asyncio.to_thread(server.stop)
                await asyncio.to_thread(server.start)
                await over(server, tournament_id)

        asyncio.run(run())
        done = page(server, tournament_id)
        assert [table["round"] for table in done["tables"]] == [1, 2]
        assert all(row["games"] == 2 for row in done["standings"])


def test_what_a_tournament_refuses(server: Server) -> None:
    guest = server.guest("passer")
    refused = server.call(
        guest,
        "POST",
        "/api/tournaments",
        name="x",
        game="wizard",
        table_size=4,
        starts_at=time.time() + 60,
    )
    assert refused.status_code == 403 and "register first" in refused.json()["message"]
    creator = server.register("maker")
    past = server.call(
        creator,
        "POST",
        "/api/tournaments",
        name="x",
        game="wizard",
        table_size=4,
        starts_at=time.time() - 60,
    )
    assert past.status_code == 400 and "in the past" in past.json()["message"]
    too_big = server.call(
        creator,
        "POST",
        "/api/tournaments",
        name="x",
        game="wizard",
        table_size=9,
        starts_at=time.time() + 60,
    )
    assert too_big.status_code == 400 and "to 6 players" in too_big.json()["message"]
    knock = server.call(
        creator,
        "POST",
        "/api/tournaments",
        name="x",
        game="wizard",
        table_size=4,
        format="knockout",
        advance=4,
        starts_at=time.time() + 60,
    )
    assert knock.status_code == 400
    for name, start in (("   ", 60), ("far", 91 * 24 * 3600), ("line\nbreak", 60)):
        refused = server.call(
            creator,
            "POST",
            "/api/tournaments",
            name=name,
            game="wizard",
            table_size=4,
            starts_at=time.time() + start,
        )
        assert refused.status_code == 400, (name, refused.text)
    tournament_id = tournament(server, creator, 60)
    assert (
        server.call(guest, "POST", f"/api/tournaments/{tournament_id}/register").status_code == 403
    )
    left = server.call(creator, "POST", f"/api/tournaments/{tournament_id}/withdraw")
    assert left.status_code == 409 and "not registered" in left.json()["message"]
    assert server.http.get(f"{server.url}/api/tournaments/999").status_code == 404


def test_chat_commands_list_join_and_leave_tournaments(server: Server) -> None:
    creator = server.register("chatter")
    tournament_id = tournament(server, creator, 600)

    def said(text: str) -> str:
        answer = server.call(creator, "POST", "/api/chat", text=text, room="main")
        assert answer.status_code == 200, answer.text
        return str(answer.json()["text"])

    listed = said("/tournament list")
    assert listed.startswith(f"#{tournament_id} Friday cup — Wizard, registration open, starts ")
    assert (
        said(f"/tournament join {tournament_id}")
        == f"you are registered for tournament {tournament_id}"
    )
    assert [entry["name"] for entry in page(server, tournament_id)["players"]] == ["chatter"]
    assert said(f"/tournament leave {tournament_id}") == f"you left tournament {tournament_id}"
    assert page(server, tournament_id)["players"] == [{"name": "chatter", "withdrawn": True}]
    wrong = server.call(creator, "POST", "/api/chat", text="/tournament join", room="main")
    assert wrong.status_code == 400 and "/tournament join N" in wrong.json()["message"]


def runner_of(database: str, tournament_id: int) -> int | None:
    """The process id of the node that holds the tournament's lease (its name says it)."""
    engine = engine_for(database)
    with engine.connect() as connection:
        node = connection.execute(
            text("SELECT node FROM tournaments WHERE id = :id"), {"id": tournament_id}
        ).scalar()
    engine.dispose()
    return None if node is None else int(node.split(":")[1])


@pytest.mark.slow
def test_a_tournament_goes_on_after_the_node_running_it_is_killed(
    two_nodes: list[Server],  # noqa: F811
    postgres: str,  # noqa: F811
) -> None:
    """Two nodes on PostgreSQL and Redis; the node that runs the tournament's schedule is
    killed (kill -9) once the first round is under way; the other takes the tournament and
    the round's tables over, and plays the tournament to its end."""
    first, _ = two_nodes
    creator = first.register("durable")
    tokens = field(first, "nk", 4)
    tournament_id = tournament(first, creator, 4, format="swiss", rounds=2)
    enter(first, tokens, tournament_id)
    deadline = time.monotonic() + 30
    while (pid := runner_of(postgres, tournament_id)) is None:
        assert time.monotonic() < deadline, "no node took the tournament"
        time.sleep(0.2)
    running = next(node for node in two_nodes if node.process and node.process.pid == pid)
    other = next(node for node in two_nodes if node is not running)

    async def run() -> None:
        async with programs(other, tokens):
            await until(lambda: len(page(other, tournament_id)["tables"]) == 1, 60)
            running.kill()
            await over(other, tournament_id)

    asyncio.run(run())
    done = page(other, tournament_id)
    assert [table["round"] for table in done["tables"]] == [1, 2]
    assert all(row["games"] == 2 for row in done["standings"])
    assert other.process is not None and runner_of(postgres, tournament_id) == other.process.pid


@pytest.mark.slow
def test_a_round_robin_seats_every_two_players_together(server: Server) -> None:
    creator = server.register("circler")
    tokens = field(server, "rr", 6)
    make = made(server, creator, tokens, format="round_robin", table_size=3)
    tournament_id = asyncio.run(play_it_out(server, tokens, make))
    done = page(server, tournament_id)
    assert done["status"] == "finished" and done["round"] == done["rounds"] >= 3
    met = {
        frozenset((one, other))
        for table in done["tables"]
        for one in table["players"]
        for other in table["players"]
        if one != other
    }
    assert len(met) == 15  # every pair of six
    assert all(len(table["players"]) == 3 for table in done["tables"])


def moderator(server: Server, name: str) -> str:
    """A new account given the moderator's role by the administrators' command."""
    token = server.register(name)
    granted = admin_command(server, "grant", name, "moderator", "tournaments")
    assert granted.returncode == 0, granted.stderr
    return token


def test_a_tournament_chat_is_read_by_anyone_written_by_accounts_and_moderated(
    server: Server,
) -> None:
    """Its lines reach whoever follows it, and later followers as history; guests read it
    and may not write; mutes, reports, removals and commands work there as in a room."""
    creator = server.register("host")
    talker = server.register("talker")
    referee = moderator(server, "referee")
    tournament_id = tournament(server, creator, 600)
    room = f"tournament-{tournament_id}"
    joined = server.call(talker, "POST", "/api/chat", room=room, text="/tournament join")
    assert joined.json()["text"] == f"you are registered for tournament {tournament_id}"

    async def run() -> None:
        async with (
            link(server, server.guest("onlooker")) as onlooker,
            link(server, talker) as player,
            link(server, referee) as judge,
        ):
            for each in (onlooker, player, judge):
                assert (await each.answer(type="tournament", tournament=tournament_id))[
                    "type"
                ] == "ack"
            said = await player.answer(type="chat", room=room, text="good luck all")
            assert said["type"] == "ack"
            heard = await onlooker.expect(of_type("chat", room=room))
            assert (heard["sender"], heard["text"]) == ("talker", "good luck all")
            refused = await onlooker.answer(type="chat", room=room, text="me too")
            assert refused["code"] == "tournament_chat_accounts"
            assert "register" in refused["message"]
            who = await player.answer(type="chat", room=room, text="/who")
            assert who["type"] == "people" and who["people"] == ["talker"]
            missing = await player.answer(type="tournament", tournament=999)
            assert missing["code"] == "no_such_tournament"
            nowhere = await player.answer(type="chat", room="tournament-999", text="/who")
            assert nowhere["code"] == "no_such_tournament"
            async with link(server, creator) as later:  # the lines said so far come first
                await later.answer(type="tournament", tournament=tournament_id)
                recalled = next(frame for frame in later.seen if of_type("chat", room=room)(frame))
                assert recalled["text"] == "good luck all" and recalled["history"] is True
                reported = server.call(
                    creator, "POST", "/api/reports", kind="line", room=room, line=recalled["line"]
                )
                assert reported.status_code == 200, reported.text
            removed = await judge.answer(type="chat", room=room, text="/remove talker rude")
            assert removed["type"] == "ack"
            gone = await onlooker.expect(of_type("unsay", room=room))
            assert gone["line"] == heard["line"]
            muted = await judge.answer(type="chat", room=room, text="/mute talker 10 shouting")
            assert muted["type"] == "ack"
            silenced = await player.answer(type="chat", room=room, text="again")
            assert silenced["code"] == "muted"
            assert f"in the chat of tournament {tournament_id}" in silenced["message"]
            elsewhere = await player.answer(type="chat", room="main", text="hello main")
            assert elsewhere["type"] == "ack"  # muted in this chat alone
            cancelled = await judge.answer(type="chat", room=room, text="/cancel nobody came")
            assert cancelled["type"] == "ack"
            told = await onlooker.expect(of_type("notice", room=room))
            assert told["key"] == "server.notice.tournament_cancelled"
            assert "nobody came" in told["text"]

    asyncio.run(run())
    done = page(server, tournament_id)
    assert (done["status"], done["cancelled_by"], done["cancel_reason"]) == (
        "cancelled",
        "referee",
        "nobody came",
    )
    entries = server.call(referee, "GET", "/api/moderation").json()["audit"]
    assert [entry["action"] for entry in entries][:3] == [
        "cancel",
        "mute",
        "remove",
    ]


@asynccontextmanager
async def holding(server: Server, tokens: list[str]) -> AsyncIterator[None]:
    """The players connected and making no move: their tables wait for them."""
    async with contextlib.AsyncExitStack() as stack:
        for token in tokens:
            await stack.enter_async_context(link(server, token))
        yield


def opened(server: Server, tournament_id: int, count: int) -> bool:
    tables = page(server, tournament_id)["tables"]
    return len(tables) == count and all(table["table"] > 0 for table in tables)


@pytest.mark.slow
def test_a_moderator_cancels_a_running_tournament(server: Server) -> None:
    """Its round's games end as ordinary rated games; no round follows, nobody wins; its
    players are told why, and the moderation log keeps it."""
    creator = server.register("organiser2")
    referee = moderator(server, "arbiter")
    tokens = field(server, "cx", 6)
    tournament_id = tournament(server, creator, 4, table_size=3, rounds=3)
    enter(server, tokens, tournament_id)

    async def run() -> None:
        async with holding(server, tokens), link(server, tokens[0]) as player:
            await until(lambda: opened(server, tournament_id, 2), 60)
            path = f"/api/tournaments/{tournament_id}/cancel"
            refused = server.call(tokens[1], "POST", path, reason="not mine")
            assert refused.status_code == 403
            unsaid = server.call(referee, "POST", path, reason=" ")
            assert unsaid.status_code == 400
            cancelled = server.call(referee, "POST", path, reason="the venue closes")
            assert cancelled.status_code == 204, cancelled.text
            cancelling = of_type("notice", key="server.notice.tournament_cancelled_running")
            told = await player.expect(cancelling)
            assert "the venue closes" in told["text"] and "no round follows" in told["text"]
            again = server.call(referee, "POST", path, reason="twice")
            assert again.status_code == 409
            async with programs(server, tokens):  # the games under way are played out
                tables = [table["table"] for table in page(server, tournament_id)["tables"]]
                await until(
                    lambda: all(
                        server.http.get(f"{server.url}/api/tables/{table}").json()["status"]
                        == "finished"
                        for table in tables
                    ),
                    120,
                )
                await asyncio.sleep(3 * SETTINGS_POLL)  # the runner would start round 2 by now

    asyncio.run(run())
    done = page(server, tournament_id)
    assert done["status"] == "cancelled" and done["winner"] is None
    assert (done["cancelled_by"], done["cancel_reason"]) == ("arbiter", "the venue closes")
    assert [table["round"] for table in done["tables"]] == [1, 1]
    for table in done["tables"]:
        info = server.http.get(f"{server.url}/api/tables/{table['table']}").json()
        assert info["status"] == "finished" and info["rated"] is True
    assert all(row["games"] == 1 for row in done["standings"])
    entry = server.call(referee, "GET", "/api/moderation").json()["audit"][0]
    assert (entry["action"], entry["target"], entry["reason"]) == (
        "cancel",
        "Friday cup",
        "the venue closes",
    )


@pytest.mark.slow
def test_a_table_a_moderator_closes_counts_for_nobody_and_the_tournament_goes_on(
    server: Server,
) -> None:
    """Its players get no points for that round (nor a game), the page says it was closed,
    and the next round seats everyone still in."""
    creator = server.register("organiser3")
    referee = moderator(server, "marshal")
    names = [f"cl{number}" for number in range(6)]
    tokens = [server.register(name) for name in names]
    tournament_id = tournament(server, creator, 4, table_size=3, rounds=2)
    enter(server, tokens, tournament_id)

    async def run() -> int:
        async with holding(server, tokens):
            await until(lambda: opened(server, tournament_id, 2), 60)
            shut = page(server, tournament_id)["tables"][0]["table"]
            closed = server.call(
                referee, "POST", "/api/moderation", action="close", table=shut, reason="cheating"
            )
            assert closed.status_code == 204, closed.text
            async with programs(server, tokens):
                await over(server, tournament_id)
        return int(shut)

    shut = asyncio.run(run())
    done = page(server, tournament_id)
    assert done["status"] == "finished" and done["round"] == 2
    assert [(table["round"], table["closed"]) for table in done["tables"]] == [
        (1, table["table"] == shut) for table in done["tables"][:2]
    ] + [(2, False), (2, False)]
    closed_players = next(table["players"] for table in done["tables"] if table["closed"])
    second = [name for table in done["tables"] if table["round"] == 2 for name in table["players"]]
    assert sorted(second) == sorted(names)  # everyone plays on
    games = {row["name"]: row["games"] for row in done["standings"]}
    assert games == {name: 1 if name in closed_players else 2 for name in names}
    played = [table for table in done["tables"] if not table["closed"]]
    points = hand_points(server, played)
    assert {row["name"]: row["points"] for row in done["standings"]} == {
        name: points.get(name, 0.0) for name in names
    }


@pytest.mark.slow
def test_a_knockout_final_a_moderator_closes_is_played_again(server: Server) -> None:
    """A closed table knocks nobody out: its final is played again, and the winner is the
    winner of the final that was played."""
    creator = server.register("organiser4")
    referee = moderator(server, "umpire")
    tokens = field(server, "kf", 4)
    tournament_id = tournament(server, creator, 4, format="knockout", advance=2)
    enter(server, tokens, tournament_id)

    async def run() -> None:
        async with holding(server, tokens):
            await until(lambda: opened(server, tournament_id, 1), 60)
            final = page(server, tournament_id)["tables"][0]["table"]
            closed = server.call(referee, "POST", "/api/moderation", action="close", table=final)
            assert closed.status_code == 204, closed.text
            async with programs(server, tokens):
                await over(server, tournament_id)

    asyncio.run(run())
    done = page(server, tournament_id)
    assert done["status"] == "finished" and done["round"] == 2
    assert [(table["round"], table["closed"]) for table in done["tables"]] == [
        (1, True),
        (2, False),
    ]
    replayed = done["tables"][1]
    info = server.http.get(f"{server.url}/api/tables/{replayed['table']}").json()
    top = max(info["result"])
    winners = {
        replayed["players"][seat] for seat, score in enumerate(info["result"]) if score == top
    }
    assert done["winner"] in winners
    assert all(row["games"] == 1 for row in done["standings"])


@pytest.mark.slow
def test_a_tournament_chat_and_its_cancelling_cross_nodes(
    two_nodes: list[Server],  # noqa: F811
) -> None:
    """Every node keeps a tournament's chat, even one where nobody read it yet: a reader who
    comes to the other node reads what was said; a line said on one node reaches a reader on
    the other; a cancelling on one node is told in the chat on the other."""
    first, second = two_nodes
    creator = first.register("crosser")
    reader = first.register("far-reader")
    referee = moderator(first, "far-referee")
    tournament_id = tournament(first, creator, 600)
    room = f"tournament-{tournament_id}"

    def lines(follower: Link) -> list[str]:
        return [frame["text"] for frame in follower.seen if of_type("chat", room=room)(frame)]

    async def run() -> None:
        async with link(second, reader) as far, link(first, creator) as near:
            await near.answer(type="tournament", tournament=tournament_id)
            said = await near.answer(type="chat", room=room, text="before anyone came")
            assert said["type"] == "ack"
            deadline = time.monotonic() + 10
            while not lines(far):  # once the bus has carried it to the second node
                assert time.monotonic() < deadline, "the second node did not keep the line"
                await far.answer(type="tournament", tournament=tournament_id)
            assert lines(far) == ["before anyone came"]
            await near.answer(type="chat", room=room, text="hello from the first node")
            heard = await far.expect(of_type("chat", room=room, text="hello from the first node"))
            assert heard["history"] is False
            async with link(second, referee) as later:
                await later.answer(type="tournament", tournament=tournament_id)
                assert lines(later) == ["before anyone came", "hello from the first node"]
            path = f"/api/tournaments/{tournament_id}/cancel"
            cancelled = first.call(referee, "POST", path, reason="moved")
            assert cancelled.status_code == 204, cancelled.text
            told = await far.expect(of_type("notice", room=room))
            assert told["key"] == "server.notice.tournament_cancelled" and "moved" in told["text"]

    asyncio.run(run())
    assert page(second, tournament_id)["status"] == "cancelled"
