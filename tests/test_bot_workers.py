"""Search bots think in worker processes: the same decisions as at home, none on the event loop,
and a worker that dies costs one quick decision, not the table."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tapisvert import CHANCE, load_game
from tapisvert.bots import make_bot
from tapisvert.bots.search import BUDGET_SCALE_VARIABLE
from tapisvert.server.thinking import BotJob, BotWorkers

from server_support import Player, Server, serving, set_up_table

SCALE = "0.05"
"""Search budgets small enough that a decision ends by its iterations, not its clock: the
same inputs then make the same choice in any process."""


@pytest.fixture
def small_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers are spawned with this process's environment."""
    monkeypatch.setenv(BUDGET_SCALE_VARIABLE, SCALE)


def decisions(game_name: str, count: int) -> list[tuple[object, list[int], str]]:
    """Observations, legal actions and seeds of the first ``count`` decisions of a game."""
    state = load_game(game_name, players=4).new_initial_state(seed=3)
    rng = random.Random(3)
    found = []
    while len(found) < count:
        if state.current_player() == CHANCE:
            state.resolve_chance(rng)
            continue
        seat, legal = state.current_player(), state.legal_actions()
        found.append((state.observation(seat), legal, f"seed-{len(found)}"))
        state.apply_action(rng.choice(legal))
    return found


@pytest.mark.parametrize("game_name", ["wizard", "fzzzt"])
def test_a_worker_decides_as_this_process_would(small_searches: None, game_name: str) -> None:
    game = load_game(game_name, players=4)
    workers = BotWorkers(1)

    async def ask() -> list[int]:
        return [
            await workers.choose(BotJob(game_name, 4, {}, "medium", observation, legal, seed))  # type: ignore[arg-type]
            for observation, legal, seed in decisions(game_name, 6)
        ]

    try:
        remote = asyncio.run(ask())
    finally:
        asyncio.run(workers.close())
    bot = make_bot("medium", game)
    home = [
        bot.choose(observation, legal, random.Random(seed))  # type: ignore[arg-type]
        for observation, legal, seed in decisions(game_name, 6)
    ]
    assert remote == home


def test_quick_bots_start_no_worker_and_search_bots_do(small_searches: None) -> None:
    workers = BotWorkers(1)
    ((observation, legal, seed),) = decisions("wizard", 1)
    before = {child.pid for child in multiprocessing.active_children()}

    async def ask(level: str) -> int:
        return await workers.choose(BotJob("wizard", 4, {}, level, observation, legal, seed))  # type: ignore[arg-type]

    def started() -> set[int | None]:
        return {child.pid for child in multiprocessing.active_children()} - before

    try:
        assert asyncio.run(ask("easy")) in legal
        assert not started()
        assert asyncio.run(ask("hard")) in legal
        assert len(started()) == 1  # one worker, another process than this one
    finally:
        asyncio.run(workers.close())


def test_a_dead_worker_costs_one_quick_decision(small_searches: None) -> None:
    workers = BotWorkers(1)
    found = decisions("luz", 3)

    async def ask(index: int) -> int:
        observation, legal, seed = found[index]
        return await workers.choose(BotJob("luz", 4, {}, "medium", observation, legal, seed))  # type: ignore[arg-type]

    try:
        assert asyncio.run(ask(0)) in found[0][1]
        for child in multiprocessing.active_children():
            os.kill(child.pid or 0, signal.SIGKILL)
        observation, legal, seed = found[1]
        easy = make_bot("easy", load_game("luz", players=4))
        assert asyncio.run(ask(1)) == easy.choose(observation, legal, random.Random(seed))  # type: ignore[arg-type]
        assert asyncio.run(ask(2)) in found[2][1]  # a new worker took over
    finally:
        asyncio.run(workers.close())


@pytest.fixture
def server_with_workers(small_searches: None, tmp_path: Path) -> Iterator[Server]:
    with serving(tmp_path, **{"bot-workers": 1}) as running:
        yield running


def play_with_medium_bots(server: Server, name: str, game: str) -> int:
    """A person and two ``medium`` bots play a whole game; answers the table."""
    token = server.guest(name)
    table = set_up_table(server, [token], game, 3, bots="medium")
    asyncio.run(asyncio.wait_for(Player(server, token, 1).play({table}), 180))
    return table


@pytest.mark.slow
def test_a_table_of_search_bots_plays_to_the_end(server_with_workers: Server) -> None:
    table = play_with_medium_bots(server_with_workers, "thinker", "wizard")
    record = server_with_workers.record(table, "text")
    assert record.replay().is_terminal()
    assert {"P2", "P3"} <= set(record.actors or [])  # the two bots played


@pytest.mark.slow
def test_workers_end_when_their_server_is_killed(server_with_workers: Server) -> None:
    server = server_with_workers
    play_with_medium_bots(server, "orphan", "luz")
    workers = server.bot_workers()
    assert workers  # the bots thought in them
    server.kill()
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
