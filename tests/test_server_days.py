"""Games over days through the real server: a clock of a day a move, stored with each
position; the table sleeping out of memory while nobody is at it and waking on a request;
its clock running out (time moved by setting the stored deadline back, as if the day had
passed, not waited for) under each rule; the "Your turn" list, the in-page notice, and
ratings kept apart from live ones."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from redis_support import REDIS_URL, share_of_redis

from server_support import Server, engine_for, link, of_type, postgres_database, sqlite_url

DAY = 86400.0
SETTINGS: dict[str, float | str] = {
    "asleep-after": 0.3,
    "lease-seconds": 1.0,
    "rate": 300.0,
    "leaderboard-min-games": 0,
}
"""A table nobody is at sleeps after 0.3 s; a node looks for clocks run out every 0.25 s."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    started = Server(sqlite_url(tmp_path), tmp_path / "server.log", **SETTINGS).start()
    try:
        yield started
    finally:
        started.stop()


def table_over_days(server: Server, tokens: list[str], timeout: str = "bot") -> int:
    """A one-round Wizard game of these people and an easy bot, a day a move, started."""
    created = server.call(
        tokens[0],
        "POST",
        "/api/tables",
        game="wizard",
        players=len(tokens) + 1,
        options={"rounds": "1"},
        clock=DAY,
        timeout=timeout,
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    for seat, token in enumerate(tokens[1:], start=1):
        server.call(token, "POST", f"/api/tables/{table}/join", seat=seat).raise_for_status()
    server.call(tokens[0], "POST", f"/api/tables/{table}/bots", level="easy").raise_for_status()
    server.call(tokens[0], "POST", f"/api/tables/{table}/start").raise_for_status()
    return table


def in_database(server: Server, statement: str, **values: Any) -> list[Any]:
    """The rows ``statement`` reads from the server's database (none for a change)."""
    engine = engine_for(server.database_url)
    with engine.begin() as connection:
        result = connection.execute(text(statement), values)
        rows = list(result.all()) if result.returns_rows else []
    engine.dispose()
    return rows


def running_lease(server: Server, table: int) -> str | None:
    """The node whose lease of the table runs now, if one does."""
    rows = in_database(
        server,
        "SELECT node FROM table_leases WHERE table_id = :id AND expires_at >= :now",
        id=table,
        now=time.time(),
    )
    return str(rows[0].node) if rows else None


def stored(server: Server, table: int) -> dict[str, Any]:
    """The table's row as the database holds it, and whether a node's lease of it runs."""
    (row,) = in_database(
        server, "SELECT asleep, deadline, to_act, seats FROM game_tables WHERE id = :id", id=table
    )
    leased = running_lease(server, table) is not None
    return {**row._asdict(), "asleep": bool(row.asleep), "leased": leased}


def move_time(server: Server, table: int) -> None:
    """The clock of the person to act runs out: its stored deadline is set a second back."""
    in_database(
        server,
        "UPDATE game_tables SET deadline = :past WHERE id = :id",
        past=time.time() - 1.0,
        id=table,
    )


def wait_for(check: Any, seconds: float = 30.0) -> Any:
    """``check()``'s first true value, asked every 50 ms."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not within {seconds} s")


def my_turn(server: Server, token: str) -> list[dict[str, Any]]:
    response = server.call(token, "GET", "/api/turns")
    response.raise_for_status()
    turns: list[dict[str, Any]] = response.json()["your_turn"]
    return turns


def play_first_legal(server: Server, token: str, table: int) -> dict[str, Any]:
    """The person plays their first legal move, as a visit of a minute would."""
    view = server.call(token, "GET", f"/api/tables/{table}/view").json()
    assert view.get("legal"), view
    played = server.call(
        token, "POST", f"/api/tables/{table}/actions", seq=view["seq"], action=view["legal"][0]
    )
    played.raise_for_status()
    return dict(view)


def test_a_table_over_days_sleeps_wakes_and_a_bot_plays_a_late_move(server: Server) -> None:
    tokens = [server.register(name) for name in ("ana", "bob")]
    table = table_over_days(server, tokens)
    said = server.call(tokens[0], "POST", "/api/chat", table=table, text="see you tomorrow")
    assert said.status_code == 200, said.text
    first = wait_for(lambda: my_turn(server, tokens[0]) or my_turn(server, tokens[1]))
    assert first[0]["table"] == table and first[0]["game"] == "wizard"
    assert DAY - 120 < first[0]["deadline"] - time.time() <= DAY
    # nobody is connected: the table leaves memory, its lease goes, the clock stays stored
    row = wait_for(lambda: (found := stored(server, table))["asleep"] and found)
    assert not row["leased"] and row["deadline"] == pytest.approx(first[0]["deadline"])
    info = server.http.get(f"{server.url}/api/tables/{table}").json()
    assert info["status"] == "playing" and info["clock"] == DAY  # told without waking it
    assert stored(server, table)["asleep"]
    # the person to act comes by: the table wakes and takes the move
    to_act = tokens[0] if my_turn(server, tokens[0]) else tokens[1]
    other = tokens[1] if to_act == tokens[0] else tokens[0]
    view = play_first_legal(server, to_act, table)
    assert wait_for(lambda: my_turn(server, other))[0]["table"] == table
    assert my_turn(server, to_act) == []
    wait_for(lambda: stored(server, table)["asleep"] and not stored(server, table)["leased"])
    # a day later: the late person's move is a bot's, their seat stays theirs
    before = stored(server, table)
    move_time(server, table)
    wait_for(lambda: stored(server, table)["to_act"] != before["to_act"])
    after = stored(server, table)
    assert all(not seat.get("replaced") for seat in _seats(after))
    stand_ins = in_database(
        server, "SELECT actor FROM actions WHERE table_id = :id AND stand_in", id=table
    )
    late_seat = 1 - view["seat"]
    assert [actor for (actor,) in stand_ins] == [late_seat]
    # asleep again, it kept what was said and what happened: the late person reads both
    wait_for(lambda: stored(server, table)["asleep"])

    async def come_back() -> list[dict[str, Any]]:
        async with link(server, other) as late:
            await late.answer(type="watch", table=table)
            return [frame for frame in late.seen if frame.get("history")]

    told = asyncio.run(come_back())
    assert "see you tomorrow" in [frame.get("text") for frame in told if frame["type"] == "chat"]
    timed_out = [frame for frame in told if frame.get("key") == "server.notice.timeout_move"]
    late_name = "ana" if other == tokens[0] else "bob"
    assert timed_out and timed_out[0]["text"].startswith(f"{late_name} ran out of time")


def _seats(row: dict[str, Any]) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = json.loads(row["seats"])
    return seats


def test_running_out_of_time_loses_the_game_under_the_lose_rule(server: Server) -> None:
    tokens = [server.register(name) for name in ("cleo", "dan")]
    table = table_over_days(server, tokens, timeout="lose")
    late = wait_for(lambda: next((token for token in tokens if my_turn(server, token)), None))
    punctual = tokens[1] if late == tokens[0] else tokens[0]
    late_seat = tokens.index(late)
    wait_for(lambda: stored(server, table)["asleep"])
    move_time(server, table)
    wait_for(lambda: _seats(stored(server, table))[late_seat].get("forfeited"))
    refused = server.call(late, "POST", f"/api/tables/{table}/actions", seq=0, action="bid 0")
    assert refused.status_code == 409
    assert refused.json()["code"] == "forfeited"
    assert "ran out of time" in refused.json()["message"]
    # the other plays their moves as they come by, the table sleeping in between
    while server.http.get(f"{server.url}/api/tables/{table}").json()["status"] == "playing":
        if my_turn(server, punctual):
            play_first_legal(server, punctual, table)
        time.sleep(0.05)
    info = server.http.get(f"{server.url}/api/tables/{table}").json()
    assert info["status"] == "finished"
    profile = server.http.get(f"{server.url}/api/players/{'cleo' if late_seat == 0 else 'dan'}")
    lost = profile.json()["history"][0]
    assert lost["absent"] and lost["place"] == 3 and not lost["won"]
    # rated over days, apart from live games
    days = server.http.get(f"{server.url}/api/leaderboards/wizard", params={"speed": "days"})
    live = server.http.get(f"{server.url}/api/leaderboards/wizard")
    assert {player["name"] for player in days.json()["players"]} >= {"cleo", "dan"}
    assert days.json()["speed"] == "days"
    assert all(player["name"] not in ("cleo", "dan") for player in live.json()["players"])
    ratings = server.http.get(f"{server.url}/api/players/dan").json()["ratings"]
    assert [(rating["game"], rating["speed"]) for rating in ratings] == [("wizard", "days")]


def test_the_clock_survives_a_restart_and_a_person_online_is_told_of_their_turn(
    server: Server,
) -> None:
    tokens = [server.register(name) for name in ("eve", "finn")]
    table = table_over_days(server, tokens)
    waiting = wait_for(
        lambda: next(
            ((token, turns) for token in tokens if (turns := my_turn(server, token))), None
        )
    )
    to_act, turns = waiting
    other = tokens[1] if to_act == tokens[0] else tokens[0]
    server.stop()
    server.start()
    assert my_turn(server, to_act) == turns  # the same deadline, not a fresh day

    async def told() -> dict[str, Any]:
        async with link(server, other) as person:
            await asyncio.sleep(0.5)  # online, and nowhere near the table
            await asyncio.to_thread(play_first_legal, server, to_act, table)
            return await person.expect(of_type("your_turn", table=table), 20)

    frame = asyncio.run(told())
    assert frame["game"] == "wizard"
    assert DAY - 120 < frame["deadline"] - time.time() <= DAY


def test_a_clock_longer_than_a_week_or_an_unknown_rule_is_refused(server: Server) -> None:
    token = server.register("gus")
    expected = {
        8 * DAY: "the time per move (in seconds: 86400 for a day) must be at most 604800",
        DAY: "the rule for a clock that runs out must be one of: 'bot', 'lose'",
    }
    for clock, timeout in ((8 * DAY, "bot"), (DAY, "never")):
        refused = server.call(
            token,
            "POST",
            "/api/tables",
            game="wizard",
            players=3,
            options={},
            clock=clock,
            timeout=timeout,
        )
        assert refused.status_code == 400, refused.text
        assert refused.json() == {"code": "malformed", "message": expected[clock]}


@pytest.fixture
def two_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Server]]:
    """Two nodes on one new PostgreSQL database and Redis."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(share_of_redis(monkeypatch))
        database = stack.enter_context(contextlib.contextmanager(postgres_database)())
        settings = {**SETTINGS, "bus": REDIS_URL, "log-level": "info"}  # a table waking is told
        nodes = [Server(database, tmp_path / f"node{n}.log", **settings) for n in (1, 2)]
        try:
            yield [node.start() for node in nodes]
        finally:
            for node in nodes:
                node.stop()


@pytest.mark.slow
def test_a_table_asleep_wakes_on_whichever_node_is_asked(two_nodes: list[Server]) -> None:
    """A table made on the first node sleeps; a move sent to the second wakes it there;
    asleep again, its clock runs out and a node plays the late move."""
    first, second = two_nodes
    tokens = [first.register(name) for name in ("kim", "lou")]
    table = table_over_days(first, tokens)
    wait_for(lambda: stored(first, table)["asleep"] and not stored(first, table)["leased"])
    to_act = wait_for(lambda: next((token for token in tokens if my_turn(second, token)), None))
    play_first_legal(second, to_act, table)
    # the second node's own log says so: its lease may be gone already (the table sleeps
    # 0.3 s after the move, which a busy machine takes to ask the database)
    woke = f"table {table} wakes: someone came"
    assert wait_for(lambda: woke in second.log.read_text())
    wait_for(lambda: stored(first, table)["asleep"] and not stored(first, table)["leased"])
    before = stored(first, table)["to_act"]
    move_time(first, table)
    wait_for(lambda: stored(first, table)["to_act"] != before)
