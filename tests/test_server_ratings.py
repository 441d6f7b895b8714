"""Ratings, leaderboards, profiles and presence, through the real server.

Every game here is a one-round Wizard for three, the person's seat dealing: the person
plays the last card of the game, so a test knows which move ends it.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tapisvert.server.ratings import Skill, rate

from server_support import Player, Server, merged_view, serving, sqlite_url

SHORT = {"rounds": "1", "first_dealer": "P1"}
START = Skill()


SETTINGS: dict[str, float | str] = {"bot-delay": 0.0, "rate": 300.0, "leaderboard-min-games": 2}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("ratings"), **SETTINGS) as running:
        yield running


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Server]:
    """A server of its own, whose bots' accounts have played nothing: the module's server
    has them play in the other tests, in whatever order the test processes take them."""
    with serving(tmp_path, **SETTINGS) as running:
        yield running


def table_with_bots(
    server: Server, token: str, levels: tuple[str, ...] = ("random", "easy"), **body: Any
) -> int:
    created = server.call(
        token, "POST", "/api/tables", game="wizard", players=1 + len(levels), options=SHORT, **body
    )
    created.raise_for_status()
    table = int(created.json()["table"])
    for level in levels:
        server.call(token, "POST", f"/api/tables/{table}/bots", level=level).raise_for_status()
    server.call(token, "POST", f"/api/tables/{table}/start").raise_for_status()
    return table


def play_out(server: Server, token: str, table: int, seed: int = 1) -> dict[str, Any]:
    """Play the person's seat to the end; the table's news once it is over."""
    player = Player(server, token, seed)
    asyncio.run(asyncio.wait_for(player.play({table}), 60))
    return dict(httpx.get(f"{server.url}/api/tables/{table}").json())


def profile(server: Server, name: str) -> dict[str, Any]:
    response = httpx.get(f"{server.url}/api/players/{name}")
    response.raise_for_status()
    return dict(response.json())


def test_a_rated_game_moves_each_account_and_the_table_shows_the_changes(
    fresh_server: Server,
) -> None:
    """Every seat starts from the same rating (the bots' accounts too: a fresh server), so
    the winner gains the most."""
    server = fresh_server
    ana = server.register("rated-ana")
    bot_games = {row["game"]: row["games"] for row in profile(server, "bot random")["ratings"]}
    table = table_with_bots(server, ana)
    info = play_out(server, ana, table)
    assert info["status"] == "finished" and info["rated"]
    changes = info["ratings"]
    assert changes is not None and len(changes) == 3 and all(changes)
    assert changes[0]["before"] == START.shown == 0.0
    places = sorted(range(3), key=lambda seat: -info["result"][seat])
    # whoever has the most points won this one-round game, and gained the most
    gains = [change["after"] - change["before"] for change in changes]
    assert gains[places[0]] > 0 and gains[places[0]] == max(gains)

    mine = profile(server, "rated-ana")
    assert not mine["guest"] and not mine["bot"]
    [wizard] = mine["ratings"]
    assert (wizard["game"], wizard["games"]) == ("wizard", 1)
    assert wizard["rating"] == changes[0]["after"]
    assert mine["games"] == [
        {"game": "wizard", "played": 1, "won": int(info["result"][0] == max(info["result"]))}
    ]
    [played] = mine["history"]
    assert played["table"] == table and played["seat"] == 0
    assert played["seats"] == ["rated-ana", "bot random", "bot easy"]
    assert (played["rating_before"], played["rating_after"]) == (0.0, changes[0]["after"])
    # what the rating graph is drawn from, and the games of this week
    [step] = mine["progress"]
    assert (step["game"], step["before"], step["rating"]) == ("wizard", 0.0, changes[0]["after"])
    assert step["finished_at"] == played["finished_at"]
    assert mine["week"] == 1 and mine["level"] is None
    # the bots' accounts moved too, once each
    bot = profile(server, "bot random")
    assert bot["bot"] and bot["level"] == "random"
    assert bot["ratings"][0]["games"] == bot_games.get("wizard", 0) + 1
    assert bot["progress"][-1]["rating"] == bot["ratings"][0]["rating"]
    # a finished game opens as a replay, every hand shown
    steps = httpx.get(f"{server.url}/api/tables/{table}/replay").json()
    assert all(len(seat["hand"]) == 1 for seat in steps[1]["seats"])


def test_guests_and_unrated_tables_change_no_rating(server: Server) -> None:
    guest = server.guest("rated-guest")
    table = table_with_bots(server, guest, ("medium", "hard"))
    info = play_out(server, guest, table, seed=2)
    assert info["ratings"][0] is None  # the guest
    assert info["ratings"][1] is not None and info["ratings"][2] is not None  # the bots
    seen = profile(server, "rated-guest")
    assert seen["guest"] and seen["ratings"] == [] and seen["progress"] == []
    assert seen["week"] == 1  # played, though not rated
    assert seen["history"][0]["rating_after"] is None and seen["games"][0]["played"] == 1

    bob = server.register("unrated-bob")
    hard_before = profile(server, "bot hard")["ratings"]
    table = table_with_bots(server, bob, ("medium", "hard"), rated=False)
    assert httpx.get(f"{server.url}/api/tables/{table}").json()["rated"] is False
    info = play_out(server, bob, table, seed=3)
    assert info["ratings"] == [None, None, None] and info["rated"] is False
    assert profile(server, "bot hard")["ratings"] == hard_before
    seen = profile(server, "unrated-bob")
    assert seen["ratings"] == [] and seen["history"][0]["table"] == table
    # a rematch keeps the table unrated
    rematch = server.call(bob, "POST", f"/api/tables/{table}/rematch").json()["table"]
    assert httpx.get(f"{server.url}/api/tables/{rematch}").json()["rated"] is False


def test_two_bots_of_one_level_rate_its_account_once(server: Server) -> None:
    eve = server.register("twin-eve")
    games_before = {row["game"]: row["games"] for row in profile(server, "bot easy")["ratings"]}
    table = table_with_bots(server, eve, ("easy", "easy"))
    info = play_out(server, eve, table, seed=4)
    rated = [change is not None for change in info["ratings"]]
    assert rated[0] and rated[1:].count(True) == 1
    assert profile(server, "bot easy")["ratings"][0]["games"] == games_before.get("wizard", 0) + 1


def test_a_person_a_bot_played_for_counts_last(server: Server) -> None:
    """They left at the start: the stand-in played all their moves, whatever it scored."""
    gil = server.register("leaver-gil")
    table = table_with_bots(server, gil, ("random", "random"))
    server.call(gil, "POST", f"/api/tables/{table}/leave").raise_for_status()
    deadline = time.monotonic() + 30
    while httpx.get(f"{server.url}/api/tables/{table}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    [played] = profile(server, "leaver-gil")["history"]
    assert played["absent"] and not played["won"] and played["place"] == 3
    assert played["rating_after"] < played["rating_before"]


def test_leaderboards_list_accounts_with_enough_games(server: Server) -> None:
    ida = server.register("board-ida")
    for seed in range(2):
        table = table_with_bots(server, ida, ("random", "medium"))
        play_out(server, ida, table, seed=10 + seed)
    board = httpx.get(f"{server.url}/api/leaderboards/wizard").json()
    assert board["minimum"] == 2
    names = [row["name"] for row in board["players"]]
    assert "board-ida" in names and "rated-ana" not in names  # one game only
    ratings = [row["rating"] for row in board["players"]]
    assert ratings == sorted(ratings, reverse=True)
    assert all(row["games"] >= 2 for row in board["players"])
    ida_seen = profile(server, "board-ida")
    first, second = ida_seen["progress"]  # oldest first, the last one's rating the current one
    assert first["finished_at"] <= second["finished_at"] and ida_seen["week"] == 2
    assert second["rating"] == ida_seen["ratings"][0]["rating"]
    assert first["rating"] == ida_seen["history"][1]["rating_after"] == second["before"]
    missing = httpx.get(f"{server.url}/api/leaderboards/chess", headers={"Accept-Language": "fr"})
    assert missing.status_code == 404 and "chess" in missing.json()["message"]
    nobody = httpx.get(f"{server.url}/api/players/nobody-here")
    assert nobody.status_code == 404 and nobody.json()["code"] == "no_such_player"


def test_presence_tells_who_is_online_and_where(server: Server) -> None:
    joe = server.register("present-joe")
    created = server.call(joe, "POST", "/api/tables", game="luz", players=3).json()
    table = created["table"]

    kim = server.register("present-kim")

    async def scenario() -> list[dict[str, Any]]:
        async with (
            websockets.connect(server.ws_url) as socket,
            websockets.connect(server.ws_url) as watching,
        ):
            await socket.send(json.dumps({"type": "hello", "version": 1, "token": joe}))
            await socket.recv()
            await watching.send(json.dumps({"type": "hello", "version": 1, "token": kim}))
            await watching.recv()
            await watching.send(json.dumps({"type": "watch", "table": table, "id": "w"}))
            answered = None
            while answered != "w":  # the views and notices of the table come first
                answered = json.loads(await watching.recv()).get("id")
            return list(httpx.get(f"{server.url}/api/presence").json())

    online = asyncio.run(scenario())
    [joe_now] = [present for present in online if present["name"] == "present-joe"]
    assert joe_now["tables"] == [{"table": table, "game": "luz", "status": "open", "seat": 0}]
    [kim_now] = [present for present in online if present["name"] == "present-kim"]
    assert kim_now["tables"] == [{"table": table, "game": "luz", "status": "open", "seat": None}]
    deadline = time.monotonic() + 10
    while any(p["name"] == "present-joe" for p in httpx.get(f"{server.url}/api/presence").json()):
        assert time.monotonic() < deadline, "gone, yet still shown online"
        time.sleep(0.05)


# -- the end of a game and its ratings: one transaction ---------------------------------


def results_of(database: Path, table: int) -> list[tuple[Any, ...]]:
    with sqlite3.connect(database) as connection:
        return connection.execute(
            "SELECT seat, mu_after FROM results WHERE table_id = ? ORDER BY seat", (table,)
        ).fetchall()


def status_of(database: Path, table: int) -> str:
    with sqlite3.connect(database) as connection:
        return str(
            connection.execute("SELECT status FROM game_tables WHERE id = ?", (table,)).fetchone()[
                0
            ]
        )


def rated_games(database: Path, name: str) -> int:
    with sqlite3.connect(database) as connection:
        found = connection.execute(
            "SELECT games FROM ratings JOIN users ON users.id = ratings.user_id WHERE name = ?",
            (name,),
        ).fetchone()
        return 0 if found is None else int(found[0])


class Seat:
    """The person at a short game: connects, plays to their last card and stops there."""

    def __init__(self, server: Server, token: str, table: int) -> None:
        self.server, self.token, self.table = server, token, table
        self.sent = 0

    async def last_turn(self, socket: Any) -> dict[str, Any]:
        """Play until the person's next move would be their last card; that view."""
        await socket.send(json.dumps({"type": "hello", "version": 1, "token": self.token}))
        view: dict[str, Any] = {}
        while True:
            frame = json.loads(await socket.recv())
            if frame["type"] != "view" or frame["table"] != self.table:
                continue
            view = {**frame, "view": merged_view(view.get("view", {}), frame)}
            if view["to_act"] == view["seat"] and view["legal"]:
                if view["legal"][0].startswith("play"):
                    return view
                await socket.send(json.dumps(self.move(view, view["legal"][0])))

    def move(self, view: dict[str, Any], action: str) -> dict[str, Any]:
        """A move with an id of its own: a move sent again is a new request."""
        self.sent += 1
        return {"type": "act", "id": f"m{self.sent}", "table": self.table, "seq": view["seq"],
                "action": action}  # fmt: skip


def test_a_game_that_cannot_be_rated_does_not_end(tmp_path: Path) -> None:
    """The ratings' write fails (a trigger refuses it): the last move is refused with them,
    and the game is not left finished and unrated. Once the database takes it, it ends."""
    database = tmp_path / "tapisvert.sqlite3"
    with serving(tmp_path, **{"bot-delay": 0.0}) as server:
        kim = server.register("refused-kim")
        table = table_with_bots(server, kim)
        seat = Seat(server, kim, table)

        async def scenario() -> None:
            async with websockets.connect(server.ws_url) as socket:
                view = await seat.last_turn(socket)
                with sqlite3.connect(database) as connection:
                    connection.execute(
                        "CREATE TRIGGER refuse BEFORE INSERT ON results "
                        "BEGIN SELECT RAISE(ABORT, 'refused'); END"
                    )
                await socket.send(json.dumps(seat.move(view, view["legal"][0])))
                while (frame := json.loads(await socket.recv()))["type"] != "error":
                    assert frame["type"] != "view" or frame["result"] is None
                assert frame["code"] == "storage"
                assert status_of(database, table) == "playing"
                assert results_of(database, table) == [] and rated_games(database, "bot easy") == 0
                with sqlite3.connect(database) as connection:
                    connection.execute("DROP TRIGGER refuse")
                await socket.send(json.dumps(seat.move(view, view["legal"][0])))
                while (frame := json.loads(await socket.recv()))["type"] != "view":
                    pass
                assert frame["result"] is not None

        asyncio.run(asyncio.wait_for(scenario(), 60))
        assert status_of(database, table) == "finished"
        assert len(results_of(database, table)) == 3 and rated_games(database, "bot easy") == 1


@pytest.mark.slow
def test_a_server_killed_as_a_game_ends_rates_it_exactly_once(tmp_path: Path) -> None:
    """kill -9 while the last move's transaction waits for the database (held locked here),
    then again just after the game ended: each game is rated once, never half."""
    database = tmp_path / "tapisvert.sqlite3"
    server = Server(sqlite_url(tmp_path), tmp_path / "server.log", **{"bot-delay": 0.0}).start()
    try:
        lou = server.register("killed-lou")
        table = table_with_bots(server, lou)
        seat = Seat(server, lou, table)

        async def last_move_killed() -> None:
            async with websockets.connect(server.ws_url) as socket:
                view = await seat.last_turn(socket)
                locker = sqlite3.connect(database, isolation_level=None)
                locker.execute("BEGIN IMMEDIATE")  # the server's next commit waits for it
                await socket.send(json.dumps(seat.move(view, view["legal"][0])))
                await asyncio.sleep(0.5)
                server.kill()
                locker.execute("ROLLBACK")
                locker.close()

        asyncio.run(asyncio.wait_for(last_move_killed(), 60))
        assert status_of(database, table) == "playing" and results_of(database, table) == []
        assert rated_games(database, "killed-lou") == 0

        server.start()

        async def last_move_again() -> dict[str, Any]:
            async with websockets.connect(server.ws_url) as socket:
                view = await seat.last_turn(socket)
                await socket.send(json.dumps(seat.move(view, view["legal"][0])))
                while True:
                    frame = json.loads(await socket.recv())
                    if frame["type"] == "view" and frame["result"] is not None:
                        return dict(frame)

        asyncio.run(asyncio.wait_for(last_move_again(), 60))
        server.kill()  # just after the end
        finished = results_of(database, table)
        assert status_of(database, table) == "finished" and len(finished) == 3
        assert rated_games(database, "killed-lou") == 1
        server.start()  # the finished table comes back, and is not rated again
        info = httpx.get(f"{server.url}/api/tables/{table}").json()
        assert info["status"] == "finished" and all(info["ratings"])
        assert results_of(database, table) == finished
        assert rated_games(database, "killed-lou") == 1
    finally:
        server.stop()


def test_ratings_follow_from_the_results_in_order(server: Server) -> None:
    """Every rated result starts from the rating the account's previous one left, and the
    rating stored is the last: no game was rated twice or skipped."""
    max_ = server.register("chain-max")
    for seed in range(2):
        play_out(server, max_, table_with_bots(server, max_, ("hard", "random")), seed=20 + seed)
    database = Path(server.database_url.removeprefix("sqlite:///"))
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT table_id, user_id, game, place, mu_before, sigma_before, mu_after, "
            "sigma_after FROM results WHERE rated ORDER BY id"
        ).fetchall()
        stored = {
            (user, game): (mu, sigma, games)
            for user, game, mu, sigma, games in connection.execute(
                "SELECT user_id, game, mu, sigma, games FROM ratings"
            )
        }
    chained: dict[tuple[int, str], tuple[float, float, int]] = {}
    by_table: dict[int, list[tuple[Any, ...]]] = {}
    for table, user, game, place, mu0, sigma0, mu1, sigma1 in rows:
        previous = chained.get((user, game), (START.mu, START.sigma, 0))
        assert (mu0, sigma0) == pytest.approx(previous[:2])
        chained[(user, game)] = (mu1, sigma1, previous[2] + 1)
        by_table.setdefault(table, []).append((place, Skill(mu0, sigma0), Skill(mu1, sigma1)))
    assert chained.keys() == stored.keys()
    for key, (mu, sigma, games) in chained.items():
        assert (mu, sigma) == pytest.approx(stored[key][:2]) and games == stored[key][2]
    for seats in by_table.values():
        afters = rate([before for _, before, _ in seats], [place for place, _, _ in seats])
        for (_, _, after), expected in zip(seats, afters, strict=True):
            assert (after.mu, after.sigma) == pytest.approx((expected.mu, expected.sigma))
