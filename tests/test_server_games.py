"""Whole games of every game through the real server, and a scan of every frame for leaks."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from redis_support import relayed
from tapisvert.client import merged_view
from tapisvert.core.game import CHANCE
from tapisvert.core.registry import game_names
from tapisvert.server.storage import TableRow
from tapisvert.server.tables import GameTable

from server_support import Player, Server, assert_frames_leak_nothing, serving, set_up_table

GAMES = game_names()


@pytest.fixture(scope="module", params=["one-process", "relays"])
def server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Server]:
    """Clients' sockets held by the server itself (the default), or by relays over Redis."""
    folder = tmp_path_factory.mktemp("server")
    if request.param == "one-process":
        with serving(folder) as running:
            yield running
        return
    with relayed(folder) as running:
        yield running


def stored_seed(server: Server, table: int) -> int:
    path = server.database_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as database:
        (seed,) = database.execute("SELECT seed FROM game_tables WHERE id = ?", (table,)).fetchone()
    return int(seed)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_whole_game_between_people_bots_and_a_spectator_leaks_nothing(
    server: Server, game: str
) -> None:
    tokens = [server.guest(f"{game}-ana"), server.guest(f"{game}-bob")]
    table = set_up_table(server, tokens, game, 4)
    players = [Player(server, token, seed) for seed, token in enumerate(tokens)]
    spectator = Player(server, server.guest(f"{game}-eve"), 9, watching=(table,))

    async def play() -> None:
        await asyncio.gather(*(client.play({table}) for client in [*players, spectator]))

    asyncio.run(asyncio.wait_for(play(), 120))

    record = server.record(table)
    final = record.replay()
    assert final.is_terminal()
    assert all(client.views[table]["result"] == final.returns() for client in players)
    assert sum(len(client.acked) for client in players) > 0
    assert {error["code"] for client in players for error in client.errors} <= {"rate_limited"}
    seed = str(stored_seed(server, table))

    views = [(client, seat) for seat, client in enumerate(players)] + [(spectator, None)]
    assert_frames_leak_nothing(views, record, seed, game)


def test_acknowledged_moves_are_in_the_record(server: Server, tmp_path: Path) -> None:
    tokens = [server.guest("log-ana")]
    table = set_up_table(server, tokens, "fzzzt", 3)
    player = Player(server, tokens[0], 3)
    asyncio.run(asyncio.wait_for(player.play({table}), 60))
    record = server.record(table, "text")
    assert player.acked
    for move in player.acked:
        assert record.actions[move.position] == move.action
        assert record.actors is not None and record.actors[move.position] == f"P{move.seat + 1}"


def test_the_replay_of_a_finished_game_shows_every_hand_step_by_step(server: Server) -> None:
    token = server.guest("replay-ana")
    table = set_up_table(server, [token], "luz", 3)
    early = server.http.get(f"{server.url}/api/tables/{table}/replay")
    assert early.status_code == 409 and early.json()["code"] == "not_finished"
    player = Player(server, token, 5)
    asyncio.run(asyncio.wait_for(player.play({table}), 60))
    answer = server.http.get(f"{server.url}/api/tables/{table}/replay")
    assert answer.headers["content-encoding"] == "gzip"
    steps = answer.json()
    state = server.record(table).new_game().new_initial_state()
    expected = []
    for text in [None, *server.record(table).actions]:
        actor = None if text is None else state.current_player()
        if text is not None:
            state.apply_string(text)
        seats = [state.observation(seat).to_dict() for seat in range(3)]
        shown = (state.segment(), json.loads(json.dumps(seats)))
        if actor is None or actor >= 0:
            expected.append(shown)
        elif len(expected) == 1:  # the first step shows the deal, before the first move
            expected[0] = shown
    assert [(step["segment"], step["seats"]) for step in steps] == expected
    assert steps[0]["actor"] is None and steps[1]["actor"] in {"P1", "P2", "P3"}
    assert any(steps[0]["seats"][0]["hands"])  # the cards are dealt
    assert [step["segment"] for step in steps] == sorted(step["segment"] for step in steps)
    assert {0, 1, 2, 3} <= {step["segment"] for step in steps}  # Luz has four deals
    middle = steps[len(steps) // 2]  # each seat saw something else, and not as a spectator
    assert len({json.dumps(view) for view in [middle["view"], *middle["seats"]]}) == 4


@pytest.mark.parametrize(
    ("name", "options"),
    [(name, {}) for name in game_names()] + [("wizard", {"hidden_bids": "true"})],
)
def test_the_changes_each_seat_is_sent_make_its_view(name: str, options: dict[str, str]) -> None:
    """Frame after frame, what each seat and a spectator are sent (the changes to the part
    every seat shares, worked out once a move, and to their own) makes their observation
    and nothing else: with hidden bids, no seat is sent another's bid before all are in."""
    rng = random.Random(7)
    for seed in range(3):
        row = TableRow("main", name, 4, options, seed, None, "playing", [{}] * 4)
        table = GameTable(row, host=None)  # type: ignore[arg-type]  # frames need no host
        state = table.game.new_initial_state(seed)
        seen: dict[int | None, dict[str, Any]] = {}
        while True:
            if state.current_player() == CHANCE:
                state.resolve_chance(rng)
            table.state = state
            for seat in (0, 1, 2, 3, None):
                frame = json.loads(table.views.frame(seat, table.views.sent.get(seat)))
                seen[seat] = merged_view(seen.get(seat, {}), frame)
                wanted = json.loads(json.dumps(state.observation(seat).to_dict()))
                assert seen[seat] == wanted, (seed, table.seq, seat)
            if state.is_terminal():
                break
            state = state.clone()
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            table.seq += 1
