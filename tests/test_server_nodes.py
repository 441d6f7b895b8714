"""Several nodes on one database: each table served by one node at a time, under a lease
with a fencing token; a node that stops renewing loses its tables to another, and can
store nothing more of them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets

from redis_support import REDIS_URL, redis_share, share_of_redis  # noqa: F401  (a fixture)
from tapisvert.core.registry import game_names
from tapisvert.server.errors import ServerError, TableMoved
from tapisvert.server.lobby import Lobby, Settings, User
from tapisvert.server.pubsub import LocalPubSub
from tapisvert.server.storage import LoggedAction, SqlStorage, TableRow
from tapisvert.server.tables import GameTable

from server_support import (
    NGINX_CONFIG,
    Player,
    Server,
    assert_frames_leak_nothing,
    nginx_config,
    nginx_or_skip,
    postgres_database,
    set_up_table,
)

pytestmark = pytest.mark.slow

LEASE = 1.0
"""The nodes' lease in the tests that take a table over: it runs out soon after a node stops."""
STEADY_LEASE = Settings.lease_seconds
"""The nodes' lease where no table should change nodes: the default, 10 s, which no pause of a
loaded machine outlasts. A lease of a second can run out while a busy machine holds its node
back; the table then moves to the other node, as designed, and a move sent meanwhile is
refused with ``table_moved``."""


def new_row() -> TableRow:
    return TableRow("main", "wizard", 3, {}, 12345, None, "playing", [{"kind": "empty"}] * 3)


def test_a_lease_fences_off_the_node_that_lost_it(database_url: str) -> None:
    async def run() -> None:
        first, second = SqlStorage(database_url), SqlStorage(database_url)
        await first.start()
        await second.start()
        try:
            table = await first.tables.create(new_row(), "a", LEASE)
            assert await second.leases.take("b", 10, [table]) == {}  # a's lease runs
            await first.tables.append(table, [LoggedAction(0, -1, 7)], fence=1)
            await asyncio.sleep(LEASE + 0.2)  # the lease runs out: the clock is what is tested
            assert await second.leases.take("b", 10) == {table: 2}
            with pytest.raises(TableMoved) as refused:
                await first.tables.append(table, [LoggedAction(1, 0, 3)], fence=1)
            assert refused.value.code == "table_moved"
            row = replace(new_row(), id=table, status="finished")
            with pytest.raises(TableMoved):
                await first.tables.save(row, fence=1)
            assert await first.leases.renew("a", 10) == set()
            assert await second.leases.renew("b", 10) == {table}
            await second.tables.append(table, [LoggedAction(1, 0, 4)], fence=2)
            assert await second.tables.actions(table) == [
                LoggedAction(0, -1, 7),
                LoggedAction(1, 0, 4),
            ]
            stored = await second.tables.load(table)
            assert stored is not None and stored.status == "playing"
            assert await first.leases.take("a", 10, [table], force=True) == {table: 3}
            with pytest.raises(TableMoved):
                await second.tables.append(table, [LoggedAction(2, 1, 5)], fence=2)
        finally:
            await first.close()
            await second.close()

    asyncio.run(run())


def test_a_stopping_node_keeps_its_tables_let_go(database_url: str) -> None:
    """Once a node hands its tables over, their leases stay run out: its keeper, which
    renewed every lease of the node a quarter of a lease apart, would have taken them back
    until they ran out again, and the other nodes would have waited for that."""
    settings = Settings(bot_delay=0.0, lease_seconds=LEASE)

    async def run() -> None:
        stopping = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await stopping.start()
        try:
            users, table = await started_table(stopping)
            assert await play_moves(stopping, users, table.id, 2) == 2
            assert await stopping.storage.leases.holder(table.id) == stopping.cluster.node
            await stopping.cluster.hand_over()
            await asyncio.sleep(LEASE / 2)  # two of the keeper's rounds, had it gone on
            assert await stopping.storage.leases.holder(table.id) is None
        finally:
            await stopping.stop()

    asyncio.run(run())


def test_a_table_woken_while_the_keeper_takes_it_over_keeps_its_newest_fence(
    database_url: str,
) -> None:
    """A stopping node lets its table go; the other node's keeper takes the lease, and
    before it serves the table a person's request wakes the table there, taking the lease
    again: a newer fence (the request had asked who serves the table just before). The
    keeper, serving what it took, finds the table served: the table keeps the newer fence,
    so its moves are stored and the game goes on, where the keeper's older fence had every
    write refused and the table dropped by its own node."""
    settings = Settings(bot_delay=0.0, lease_seconds=LEASE)

    async def run() -> None:
        stopping = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await stopping.start()
        keeping = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await keeping.start()
        # Its keeper's round is played below, step by step: stopped from the start, it takes
        # nothing meanwhile (a busy machine may delay the other node's renewals past its lease).
        assert keeping.cluster.keeper is not None
        keeping.cluster.keeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await keeping.cluster.keeper
        try:
            users, table = await started_table(stopping)
            assert await play_moves(stopping, users, table.id, 2) == 2
            await stopping.cluster.hand_over()
            # The keeper's round, up to its wait for the tables it took...
            taken = await keeping.storage.leases.take(keeping.cluster.node, LEASE)
            assert taken == {table.id: 2}
            # ...meanwhile a request, which found no node serving it a moment before the
            # keeper took the lease, wakes the table, taking the lease again...
            woken = await keeping.cluster.wake(table.id)
            assert woken is not None and woken.fence == 3
            # ...and the round goes on with what it took.
            await keeping.cluster._take_over(taken)
            assert woken.fence == 3
            assert await play_moves(keeping, users, table.id, 3) == 3
            assert keeping.registry.tables[table.id] is woken and not woken.moved
        finally:
            await keeping.stop()
            await stopping.stop()

    asyncio.run(run())


async def play_moves(lobby: Lobby, users: list[User], table_id: int, count: int) -> int:
    """Play ``count`` random legal moves (fewer if the game ends); the moves played."""
    rng = random.Random(table_id)
    played = 0
    table = lobby.registry.tables[table_id]
    while played < count and table.status == "playing":
        assert table.state is not None
        seat = table.state.current_player()
        action = rng.choice(table.state.legal_actions())
        text = table.state.action_to_string(action)
        await lobby.tables.act(users[seat], table_id, text, table.seq)
        played += 1
    return played


async def started_table(lobby: Lobby) -> tuple[list[User], GameTable]:
    """Three guests at a two-round Wizard table of ``lobby``, started."""
    users = [(await lobby.accounts.guest(name, "127.0.0.1"))[1] for name in ("ana", "bob", "cat")]
    table = await lobby.tables.create_table(users[0], "main", "wizard", 3, {"rounds": "2"}, None)
    for seat, user in enumerate(users[1:], start=1):
        await lobby.tables.join(user, table.id, seat)
    await table.start(users[0].id)
    return users, table


def test_a_paused_node_can_store_nothing_of_a_table_taken_over(database_url: str) -> None:
    """The node serving a table stops renewing (paused); another takes the table over from
    the log once the lease has run out; the paused node's next move is refused and it lets
    the table go; the game ends on the other node with every move logged once."""
    settings = Settings(bot_delay=0.0, lease_seconds=LEASE)

    async def run() -> None:
        paused = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await paused.start()
        users, table = await started_table(paused)
        assert await play_moves(paused, users, table.id, 5) == 5
        assert paused.cluster.keeper is not None
        paused.cluster.keeper.cancel()  # no more renewals, as from a stopped process
        await asyncio.sleep(LEASE + 0.2)  # the lease runs out: the clock is what is tested
        other = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await other.start()
        try:
            taken = other.registry.tables[table.id]
            assert taken.seq == table.seq and taken.fence == 2
            state = table.state
            assert state is not None
            move = state.action_to_string(state.legal_actions()[0])
            seat = state.current_player()
            with pytest.raises(ServerError) as refused:
                await paused.tables.act(users[seat], table.id, move, table.seq)
            assert refused.value.code == "table_moved"
            assert table.id not in paused.registry.tables and table.moved
            played = await play_moves(other, users, table.id, 10_000)
            assert taken.status == "finished" and played > 0
            logged = await other.storage.tables.actions(table.id)
            assert [entry.seq for entry in logged] == list(range(taken.seq))
        finally:
            await other.stop()
            await paused.stop()

    asyncio.run(run())


def test_a_table_left_by_its_node_is_served_by_the_node_asked_for_it(database_url: str) -> None:
    """The node serving a table stops renewing its lease (paused); once the lease has run
    out, and before any keeper's round takes the table over, the other node asked for it
    serves it at once and answers as the table does (whose turn it is), never that there is
    no such table; the paused node lets it go."""
    settings = Settings(bot_delay=0.0, lease_seconds=LEASE)

    async def run() -> None:
        paused = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await paused.start()
        other = Lobby(SqlStorage(database_url), settings=settings, sole=False)
        await other.start()  # before the lease runs out: its start takes nothing over
        try:
            users, table = await started_table(paused)
            assert await play_moves(paused, users, table.id, 2) == 2
            for lobby in (paused, other):  # no renewal, no keeper's round
                assert lobby.cluster.keeper is not None
                lobby.cluster.keeper.cancel()
            await asyncio.sleep(LEASE + 0.2)  # the lease runs out: the clock is what is tested
            assert table.id not in other.registry.tables
            state = table.state
            assert state is not None
            move = state.action_to_string(state.legal_actions()[0])
            seat = state.current_player()
            with pytest.raises(ServerError) as refused:
                await other.tables.act(users[(seat + 1) % 3], table.id, move, table.seq)
            assert refused.value.code == "not_your_turn"
            taken = other.registry.tables[table.id]
            assert taken.seq == table.seq and taken.fence == 2
            with pytest.raises(ServerError) as moved:
                await paused.tables.act(users[seat], table.id, move, table.seq)
            assert moved.value.code == "table_moved"
            assert await play_moves(other, users, table.id, 3) == 3
        finally:
            await other.stop()
            await paused.stop()

    asyncio.run(run())


def test_a_request_for_a_table_changing_nodes_is_refused_as_moved_not_missing(
    database_url: str,
) -> None:
    """The node whose lease a table is under no longer serves it (it lost it, and the lease
    has not changed hands yet), or the lease is the asking node's and the table not yet served
    there (taken over there): a request for it is refused with ``table_moved``, to be sent
    again, never that there is no such table."""
    settings = Settings(bot_delay=0.0)

    async def run() -> None:
        bus = LocalPubSub()
        losing = Lobby(SqlStorage(database_url), settings=settings, sole=False, pubsub=bus)
        await losing.start()
        asking = Lobby(SqlStorage(database_url), settings=settings, sole=False, pubsub=bus)
        await asking.start()
        try:
            users, table = await started_table(losing)
            assert await asking.tables.view(users[0], table.id)  # forwarded, answered
            losing.cluster._forget(table)
            assert await asking.storage.leases.holder(table.id) == losing.cluster.node
            with pytest.raises(ServerError) as refused:
                await asking.tables.view(users[0], table.id)
            assert refused.value.code == "table_moved" and refused.value.status == 503
            node = asking.cluster.node  # its lease taken here, the table not served yet
            assert await asking.storage.leases.take(node, 10, [table.id], force=True)
            with pytest.raises(ServerError) as refused:
                await asking.tables.view(users[0], table.id)
            assert refused.value.code == "table_moved"
            with pytest.raises(ServerError) as missing:
                await asking.tables.view(users[0], 99_999)
            assert missing.value.code == "no_such_table" and missing.value.status == 404
        finally:
            await asking.stop()
            await losing.stop()

    asyncio.run(run())


@pytest.fixture
def postgres() -> Iterator[str]:
    yield from postgres_database()


@pytest.fixture
def two_nodes(
    tmp_path: Path,
    postgres: str,
    redis_share: str,  # noqa: F811  (the fixture)
) -> Iterator[list[Server]]:
    """Two nodes whose leases run out a second after a node stops renewing them."""
    with node_pair(tmp_path, postgres, LEASE) as nodes:
        yield nodes


@pytest.fixture
def steady_nodes(
    tmp_path: Path,
    postgres: str,
    redis_share: str,  # noqa: F811  (the fixture)
) -> Iterator[list[Server]]:
    """Two nodes that keep their tables (see ``STEADY_LEASE``)."""
    with node_pair(tmp_path, postgres, STEADY_LEASE) as nodes:
        yield nodes


@pytest.fixture(scope="module")
def shared_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    """Two nodes for the tests that change nothing of the nodes themselves, each at tables
    of its own."""
    with pytest.MonkeyPatch.context() as monkeypatch, share_of_redis(monkeypatch):
        for database in postgres_database():
            with node_pair(tmp_path_factory.mktemp("nodes"), database, STEADY_LEASE) as nodes:
                yield nodes


@contextmanager
def node_pair(folder: Path, database: str, lease: float) -> Iterator[list[Server]]:
    """Two nodes on one PostgreSQL database and one Redis server, their tables' leases
    lasting ``lease`` seconds: the first leaves its clients' sockets to a relay, the second
    holds them itself."""
    settings: dict[str, Any] = {"bus": REDIS_URL, "lease-seconds": lease, "rate": 1000}
    nodes = [
        Server(database, folder / f"node{index}.log", relays=relays, **settings)
        for index, relays in ((1, 1), (2, 0))
    ]
    try:
        for node in nodes:
            node.start()
        yield nodes
    finally:
        for node in nodes:
            node.stop()


async def look_from_the_second_node(first: Server, second: Server, ana: str, table: int) -> None:
    """While Ana is connected to the first node, the second lists her online and shows her
    present at her seat, and in the main room once she enters it, where she reads what Bob
    said there on the second node; once she is gone, no longer."""

    async def seen() -> tuple[list[str], bool, list[str]]:
        presence = await asyncio.to_thread(second.http.get, f"{second.url}/api/presence")
        info = await asyncio.to_thread(second.http.get, f"{second.url}/api/tables/{table}")
        room = await asyncio.to_thread(second.http.get, f"{second.url}/api/rooms/main")
        names = [person["name"] for person in presence.json()]
        return names, info.json()["seats"][0]["present"], room.json()["people"]

    async def until_seen(expected: tuple[list[str], bool, list[str]]) -> None:
        for _ in range(100):
            if await seen() == expected:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"the second node sees {await seen()}, not {expected}")

    async with websockets.connect(first.ws_url) as link:
        await link.send(json.dumps({"type": "hello", "version": 1, "token": ana}))
        await until_seen((["ana"], True, []))
        await link.send(json.dumps({"type": "enter", "room": "main"}))
        await until_seen((["ana"], True, ["ana"]))
        frame: dict[str, Any] = {}
        while (frame.get("type"), frame.get("room")) != ("chat", "main"):
            frame = json.loads(await asyncio.wait_for(link.recv(), 10))  # views, the room's list
        assert (frame["text"], frame["history"], frame["sender"]) == ("hi, room", True, "bob")
    await until_seen(([], False, []))


def test_people_on_two_nodes_play_one_game(steady_nodes: list[Server]) -> None:
    """Ana is connected to the first node, which serves her table; Bob, on the second,
    finds the table in the room, sits, adds bots, starts it and chats there: his requests
    reach the table's node, and its views reach him; his node knows when Ana is online."""
    first, second = steady_nodes
    ana, bob = first.guest("ana"), second.guest("bob")
    created = first.call(ana, "POST", "/api/tables", game="wizard", players=4)
    table = int(created.json()["table"])
    listed = second.http.get(f"{second.url}/api/rooms/main").json()
    assert [info["table"] for info in listed["tables"]] == [table]
    second.call(bob, "POST", f"/api/tables/{table}/join", seat=1).raise_for_status()
    for _ in range(2):
        second.call(bob, "POST", f"/api/tables/{table}/bots", level="random").raise_for_status()
    refused = second.call(bob, "POST", f"/api/tables/{table}/join", seat=0)
    assert refused.status_code == 409 and refused.json()["code"] == "already_seated"
    assert "seat 2" in refused.json()["message"]
    second.call(bob, "POST", f"/api/tables/{table}/start").raise_for_status()
    who = second.http.get(f"{second.url}/api/tables/{table}/who").json()  # asked across nodes
    assert who["people"][:2] == ["P1 ana", "P2 bob"]
    assert who["text"].startswith(f"At table {table}: seat 1: ana; seat 2: bob; seat 3: bot")
    in_french = second.http.get(
        f"{second.url}/api/tables/{table}/who", headers={"Accept-Language": "fr"}
    ).json()
    assert in_french["text"].startswith(f"À la table {table} : place 1 : ana; place 2 : bob")
    said = second.call(bob, "POST", "/api/chat", text="hello from afar", table=table)
    said.raise_for_status()
    second.call(bob, "POST", "/api/chat", text="hi, room", room="main").raise_for_status()
    asyncio.run(look_from_the_second_node(first, second, ana, table))
    players = [Player(first, ana, 0), Player(second, bob, 1)]

    async def play() -> None:
        await asyncio.wait_for(asyncio.gather(*(p.play({table}) for p in players)), 120)

    asyncio.run(play())
    record = second.record(table, "text")
    final = record.replay()
    assert final.is_terminal() and record.result == final.returns()
    for player in players:
        assert not player.errors
        assert player.views[table]["result"] == record.result
        assert len(player.acked) > 5
        for move in player.acked:
            assert record.actions[move.position] == move.action, move
    heard = [f for f in players[0].frames if f["type"] == "chat"]
    assert [line["text"] for line in heard] == ["hello from afar"]


async def kill_in_mid_game(nodes: list[Server], players: list[Player], table: int) -> None:
    """Play on the first node; after six acknowledged moves, kill it and send the players
    to the second; wait for the end."""
    playing = asyncio.gather(*(player.play({table}, reconnect=True) for player in players))
    while sum(len(player.acked) for player in players) < 6:
        await asyncio.sleep(0.02)
    nodes[0].kill()
    for player in players:
        player.server = nodes[1]
    await asyncio.wait_for(playing, 120)


def test_a_game_goes_on_after_its_node_is_killed(two_nodes: list[Server]) -> None:
    """The node serving a game is killed (kill -9) in the middle of it; its players
    reconnect to the other node, which takes the table over once the lease has run out,
    and the game ends there with every acknowledged move."""
    first, second = two_nodes
    tokens = [first.guest(name) for name in ("ana", "bob")]
    table = set_up_table(first, tokens, "wizard", 4, bots="random")
    players = [Player(first, token, seed) for seed, token in enumerate(tokens)]
    asyncio.run(kill_in_mid_game(two_nodes, players, table))
    record = second.record(table, "text")
    final = record.replay()
    assert final.is_terminal() and record.result == final.returns()
    acked = [move for player in players for move in player.acked]
    assert len(acked) > 6
    for move in acked:
        assert record.actions[move.position] == move.action, move
    assert "served here now" in second.log.read_text()


async def move_on_a_stopped_node(node: Server, token: str, table: int, view: dict[str, Any]) -> Any:
    """Send the seat's move to ``node`` while it is stopped, let it go on, and return its
    answer to the move: a refusal, or the view that acknowledges it."""
    assert node.process is not None
    async with websockets.connect(node.ws_url) as link:
        move = {"type": "act", "id": "late", "table": table, "seq": view["seq"]}
        await link.send(json.dumps({"type": "hello", "version": 1, "token": token}))
        await link.send(json.dumps({**move, "action": view["legal"][0]}))
        await asyncio.sleep(0.2)  # in the relay's hands, waiting for the stopped node
        os.kill(node.process.pid, signal.SIGCONT)
        while True:
            frame = json.loads(await asyncio.wait_for(link.recv(), 30))
            if frame.get("id") == "late" or frame.get("ack") == "late":
                return frame


def test_two_nodes_never_both_accept_moves_for_one_table(two_nodes: list[Server]) -> None:
    """The node serving a game is stopped (SIGSTOP) until the other has taken the table
    over; a move sent to it meanwhile is refused (its lease is gone) or goes to the table's
    new node, never played twice; the game ends on the other node."""
    first, second = two_nodes
    tokens = [first.guest(name) for name in ("ana", "bob", "cat", "dan")]
    table = set_up_table(first, tokens, "wizard", 4)
    assert first.process is not None
    views = [first.call(token, "GET", f"/api/tables/{table}/view").json() for token in tokens]
    to_act = views[0]["to_act"]
    os.kill(first.process.pid, signal.SIGSTOP)
    try:
        for _ in range(200):
            if second.http.get(f"{second.url}/api/tables/{table}").status_code == 200:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the second node did not take the table over")
    finally:
        answer = asyncio.run(move_on_a_stopped_node(first, tokens[to_act], table, views[to_act]))
    if answer["type"] == "error":
        assert answer["code"] == "table_moved", answer
    else:
        assert answer["type"] == "view" and answer["seq"] == views[to_act]["seq"] + 1
    players = [Player(second, token, seed) for seed, token in enumerate(tokens)]

    async def play() -> None:
        await asyncio.wait_for(asyncio.gather(*(p.play({table}) for p in players)), 120)

    asyncio.run(play())
    record = second.record(table, "text")
    assert record.replay().is_terminal()
    played = record.actions[views[to_act]["seq"]]
    if answer["type"] == "view":
        assert played == views[to_act]["legal"][0]
    assert "is served by another node now" in first.log.read_text()


@pytest.mark.parametrize("game", game_names())
def test_a_game_across_two_nodes_leaks_nothing(shared_nodes: list[Server], game: str) -> None:
    """The leak scan of every frame, with the table on the first node and half the players
    and a spectator on the second; bad moves sent to the second are refused, saying why."""
    first, second = shared_nodes
    names = tuple(f"{name}-{game}" for name in ("ana", "bob", "cat", "dan"))
    nodes = [first, second, first, second]  # seat i's node
    tokens = [node.guest(name) for node, name in zip(nodes, names, strict=True)]
    table = int(first.call(tokens[0], "POST", "/api/tables", game=game, players=4).json()["table"])
    for seat in (1, 2, 3):
        nodes[seat].call(tokens[seat], "POST", f"/api/tables/{table}/join", seat=seat)
    second.call(tokens[1], "POST", f"/api/tables/{table}/start").raise_for_status()
    view = second.call(tokens[1], "GET", f"/api/tables/{table}/view").json()
    to_act, seq, moves = view["to_act"], view["seq"], f"/api/tables/{table}/actions"
    waiting = next(seat for seat in (1, 3) if seat != to_act)
    answers = [
        second.call(tokens[waiting], "POST", moves, action="nonsense", seq=seq + 5).json(),
        second.call(tokens[waiting], "POST", moves, action="nonsense", seq=seq).json(),
        nodes[to_act].call(tokens[to_act], "POST", moves, action="nonsense", seq=seq).json(),
    ]
    assert [answer["code"] for answer in answers] == ["stale", "not_your_turn", "illegal"]
    assert str(seq + 5) in answers[0]["message"] and "nonsense" in answers[2]["message"]
    players = [
        Player(node, token, seat)
        for seat, (node, token) in enumerate(zip(nodes, tokens, strict=True))
    ]
    spectator = Player(second, second.guest(f"eve-{game}"), 9, watching=(table,))

    async def play() -> None:
        games = (client.play({table}) for client in [*players, spectator])
        await asyncio.wait_for(asyncio.gather(*games), 120)

    asyncio.run(play())
    record = second.record(table)
    assert record.replay().is_terminal()
    assert all(player.views[table]["result"] == record.result for player in players)
    assert {error["code"] for player in players for error in player.errors} <= {"rate_limited"}
    with psycopg.connect(first.database_url) as database:
        query = "SELECT seed FROM game_tables WHERE id = %s"
        (seed,) = database.execute(query, (table,)).fetchone() or (None,)
    views = [*((player, seat) for seat, player in enumerate(players)), (spectator, None)]
    assert_frames_leak_nothing(views, record, str(seed), game)


def test_the_documented_nginx_spreads_a_game_over_two_nodes(
    steady_nodes: list[Server], tmp_path: Path
) -> None:
    """The load balancer the deployment page shows (deploy/nginx/tapisvert.conf, only its addresses
    changed), in front of two nodes: each request goes to either node, each socket to either
    first node's relay or the second node, and a whole game is played through it."""
    nginx = nginx_or_skip()
    block = NGINX_CONFIG.read_text()
    for name, ports in (
        ("tapisvert", [node.port for node in steady_nodes]),
        ("tapisvert_sockets", [node.ws_port for node in steady_nodes]),
    ):
        upstream = "".join(f"    server 127.0.0.1:{port};\n" for port in ports)
        block = re.sub(rf"(upstream {name} \{{\n)(?:    server .*\n)+", rf"\g<1>{upstream}", block)
    balancer = Server("", tmp_path / "unused.log")  # its port and clients, no process
    block = block.replace("listen 80;", f"listen 127.0.0.1:{balancer.port};")
    config = nginx_config(tmp_path, block)
    process = subprocess.Popen([nginx, "-c", str(config), "-p", str(tmp_path), "-g", "daemon off;"])
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", balancer.port), timeout=1).close()
                break
            time.sleep(0.05)
        tokens = [balancer.guest(name) for name in ("ana", "bob", "cat", "dan")]
        table = set_up_table(balancer, tokens, "wizard", 4)
        players = [Player(balancer, token, seed) for seed, token in enumerate(tokens)]

        async def play() -> None:
            await asyncio.wait_for(asyncio.gather(*(p.play({table}) for p in players)), 120)

        asyncio.run(play())
    finally:
        process.terminate()
        process.wait(10)
    record = steady_nodes[1].record(table, "text")
    assert record.replay().is_terminal()
    for player in players:
        assert not player.errors
        for move in player.acked:
            assert record.actions[move.position] == move.action
