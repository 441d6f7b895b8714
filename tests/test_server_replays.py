"""Replays of finished games: built away from the live tables, once, and within bounds."""

from __future__ import annotations

import asyncio
import gzip
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from tapisvert.core.game import CHANCE
from tapisvert.core.records import Record, record_of
from tapisvert.core.registry import load_game
from tapisvert.server.errors import ServerError
from tapisvert.server.replays import BUILDS_WAITING, Replays, replay_steps

from server_support import Player, Server, serving, set_up_table


def random_record(seed: int, game: str = "wizard", players: int = 3) -> Record:
    rng = random.Random(seed)
    state = load_game(game, players).new_initial_state()
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return record_of(state, [f"P{seat + 1}" for seat in range(players)])


class Finished:
    """The records of finished tables, counting how often each was asked for."""

    def __init__(self, count: int) -> None:
        self.records = {table: random_record(table) for table in range(1, count + 1)}
        self.asked: Counter[int] = Counter()

    async def __call__(self, table_id: int) -> Record:
        self.asked[table_id] += 1
        await asyncio.sleep(0)
        return self.records[table_id]


@pytest.mark.slow
def test_a_replay_is_every_step_built_once_then_kept_and_its_worker_stops_when_idle() -> None:
    finished = Finished(2)

    async def scenario() -> None:
        replays = Replays(finished, idle_seconds=0.5)
        try:
            together = await asyncio.gather(*(replays.replay(1) for _ in range(5)))
            assert finished.asked[1] == 1  # the other four waited for the same build
            assert len(set(together)) == 1
            steps = orjson.loads(gzip.decompress(together[0]))
            assert steps == orjson.loads(orjson.dumps(replay_steps(finished.records[1])))
            assert await replays.replay(1) == together[0]
            assert finished.asked[1] == 1  # kept: not rebuilt
            assert replays.kept_size == len(together[0]) and replays.running
            for _ in range(100):
                await asyncio.sleep(0.05)
                if not replays.running:
                    break
            assert not replays.running  # the worker's memory went back with it
            assert await replays.replay(2) != together[0]  # and it comes back when asked
        finally:
            await replays.close()

    asyncio.run(scenario())


@pytest.mark.slow
def test_kept_replays_stay_within_their_bytes() -> None:
    finished = Finished(4)

    async def scenario() -> None:
        replays = Replays(finished, kept_bytes=1)  # nothing fits
        try:
            first = await replays.replay(1)
            assert replays.kept_size == 0 and len(first) > 1
            await replays.replay(1)
            assert finished.asked[1] == 2
        finally:
            await replays.close()
        replays = Replays(finished, kept_bytes=2 * len(first))
        try:
            for table in (1, 2, 3, 4):
                await replays.replay(table)
            assert 0 < replays.kept_size <= 2 * len(first)
            await replays.replay(4)
            assert finished.asked[4] == 1  # the latest stays
        finally:
            await replays.close()

    asyncio.run(scenario())


def test_builds_beyond_the_bound_are_refused_as_busy() -> None:
    finished = Finished(BUILDS_WAITING + 1)

    async def scenario() -> None:
        replays = Replays(finished)
        try:
            asked = [replays.replay(table) for table in finished.records]
            answers = await asyncio.gather(*asked, return_exceptions=True)
            refused = [answer for answer in answers if isinstance(answer, ServerError)]
            assert [refusal.code for refusal in refused] == ["replays_busy"]
            assert refused[0].status == 503
            assert "try again" in refused[0].render("en")
            assert await replays.replay(BUILDS_WAITING + 1)  # once the others are built
        finally:
            await replays.close()

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("replays"), rate=3000.0) as running:
        yield running


@pytest.mark.slow
def test_replays_asked_in_a_loop_while_a_game_is_played_leave_the_game_unharmed(
    server: Server, tmp_path: Path
) -> None:
    """Once, replays were built in threads sharing the live tables' caches: they failed
    with 500 and broke a live move's views."""
    token = server.guest("replay-loop")
    done = set_up_table(server, [token], "wizard", 4)
    asyncio.run(asyncio.wait_for(Player(server, token, 1).play({done}), 120))
    live = set_up_table(server, [token], "wizard", 4)
    answers: list[tuple[int, bytes]] = []
    playing = threading.Event()
    playing.set()

    def ask(address: str) -> None:
        with httpx.Client(timeout=30, headers={"X-Forwarded-For": address}) as client:
            while playing.is_set():
                response = client.get(f"{server.url}/api/tables/{done}/replay")
                answers.append((response.status_code, response.content))
                time.sleep(0.02)

    askers = [threading.Thread(target=ask, args=(f"192.0.2.{n}",)) for n in range(1, 5)]
    for asker in askers:
        asker.start()
    player = Player(server, token, 2)
    try:
        asyncio.run(asyncio.wait_for(player.play({live}), 120))
    finally:
        playing.clear()
        for asker in askers:
            asker.join()
    assert answers and {status for status, _ in answers} == {200}
    assert len({body for _, body in answers}) == 1
    plain = server.http.get(
        f"{server.url}/api/tables/{done}/replay", headers={"Accept-Encoding": "gzip;q=0"}
    )
    assert "content-encoding" not in plain.headers and plain.headers["vary"] == "Accept-Encoding"
    assert plain.content == answers[0][1]  # the same steps, decompressed by the server
    assert player.errors == [] and player.acked
    final = server.record(live).replay()
    assert player.views[live]["result"] == final.returns()
    assert "Traceback" not in server.log.read_text()
