"""Taking back a misclick: at an unrated table at once (with the bots' replies), at a rated
one with every other player's consent; never past a card dealt or drawn, never past another
person's move; the log, the counts and a restart agree with the table."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tapisvert.core.game import CHANCE
from tapisvert.core.registry import game_names, load_game
from tapisvert.server.errors import ServerError
from tapisvert.server.lobby import Lobby, Settings, User
from tapisvert.server.results import counted
from tapisvert.server.storage import SqlStorage
from tapisvert.server.tables import GameTable

from server_support import sqlite_url, until

SETTINGS = Settings(bot_delay=0.0, absence_grace=3600.0)


@asynccontextmanager
async def running_lobby(folder: Path) -> AsyncIterator[Lobby]:
    lobby = Lobby(SqlStorage(sqlite_url(folder)), settings=SETTINGS)
    await lobby.start()
    try:
        yield lobby
    finally:
        await lobby.stop()


async def refused(work: Awaitable[object]) -> str:
    with pytest.raises(ServerError) as refusal:
        await work
    return refusal.value.code


SHORTER = {"wizard": {"rounds": "first5"}}
"""Options that keep a game short where it is long: the take-backs are the same."""


async def table_with_bots(lobby: Lobby, user: User, game: str, rated: bool) -> GameTable:
    options = SHORTER.get(game, {})
    table = await lobby.tables.create_table(user, "main", game, 3, options, None, rated)
    for _ in range(2):
        await lobby.tables.add_bot(user, table.id, "random", None)
    await lobby.tables.start_game(user, table.id)
    return table


def my_turn_or_over(table: GameTable, seat: int = 0) -> Callable[[], bool]:
    return lambda: (
        table.status != "playing"
        or (table.state is not None and table.state.current_player() == seat)
    )


async def logged_actions(lobby: Lobby, table: GameTable) -> list[int]:
    return [entry.action for entry in await lobby.storage.tables.actions(table.id)]


def test_an_unrated_table_takes_back_a_move_and_the_bots_replies_until_cards_are_dealt(
    tmp_path: Path,
) -> None:
    """Every game, played to its end by a person who often takes a move back: what is taken
    back is exactly the person's move and the bots' after it, whenever no chance outcome came
    since, and nothing when one did; the log replays to the same end."""
    chooser = random.Random(11)
    outcomes: dict[str, dict[str, int]] = {}

    async def play(lobby: Lobby, user: User, game: str) -> None:
        table = await table_with_bots(lobby, user, game, rated=False)
        counts = outcomes.setdefault(game, {"taken": 0, "refused": 0})
        while True:
            await until(my_turn_or_over(table))
            if table.status != "playing":
                break
            assert table.state is not None
            before, seq_before = table.state.history(), table.seq
            await lobby.tables.act(
                user, table.id, chooser.choice(table.state.legal_strings()), table.seq
            )
            await until(my_turn_or_over(table))
            if table.status != "playing" or chooser.random() < 0.4:
                continue
            entries = await lobby.storage.tables.actions(table.id)
            if any(entry.actor == CHANCE for entry in entries[seq_before:]):
                code = await refused(lobby.tables.take_back(user, table.id, table.seq))
                assert code == "nothing_to_take_back"
                counts["refused"] += 1
                continue
            assert table.views.frame(0) and table.take_backs.may_ask(0)
            assert await lobby.tables.take_back(user, table.id, table.seq) == seq_before
            assert table.seq == seq_before
            assert table.state is not None and table.state.history() == before
            assert await logged_actions(lobby, table) == before
            counts["taken"] += 1
        entries = await lobby.storage.tables.actions(table.id)
        players = len(table.seats)
        assert counted([0] * players, [0] * players, entries) == (table.moves, table.stand_in_moves)
        replayed = load_game(game, players, **SHORTER.get(game, {})).new_initial_state()
        for entry in entries:
            replayed.apply_action(entry.action)
        assert table.state is not None and replayed.returns() == table.state.returns()
        assert table.results is not None

    async def run() -> None:
        async with running_lobby(tmp_path) as lobby:
            _, user = await lobby.accounts.guest("ann", "127.0.0.1")
            for game in game_names():
                await play(lobby, user, game)

    asyncio.run(run())
    assert all(counts["taken"] > 0 for counts in outcomes.values()), outcomes
    assert sum(counts["refused"] for counts in outcomes.values()) > 0, outcomes


def test_a_move_taken_back_stays_taken_back_after_a_restart(tmp_path: Path) -> None:
    async def run() -> None:
        async with running_lobby(tmp_path) as lobby:
            _, user = await lobby.accounts.guest("ann", "127.0.0.1")
            table = await table_with_bots(lobby, user, "wizard", rated=False)
            await until(my_turn_or_over(table))
            assert table.state is not None
            before, seq_before = table.state.history(), table.seq
            await lobby.tables.act(user, table.id, table.state.legal_strings()[0], table.seq)
            await until(lambda: table.seq > seq_before)
            await lobby.tables.take_back(user, table.id, None)
            table_id = table.id
        async with running_lobby(tmp_path) as again:
            restored = again.registry.tables[table_id]
            assert restored.seq == seq_before
            assert restored.state is not None and restored.state.history() == before
            await again.tables.act(user, table_id, restored.state.legal_strings()[-1], seq_before)
            assert restored.seq > seq_before

    asyncio.run(run())


def test_a_rated_table_takes_a_move_back_once_every_other_player_agrees(tmp_path: Path) -> None:
    async def run() -> None:
        async with running_lobby(tmp_path) as lobby:
            people = [(await lobby.accounts.guest(name, "127.0.0.1"))[1] for name in "abc"]
            table = await lobby.tables.create_table(people[0], "main", "wizard", 3, {}, None)
            for person in people[1:]:
                await lobby.tables.join(person, table.id, None)
            await lobby.tables.start_game(people[0], table.id)
            state = table.state
            assert state is not None
            mover = people[state.current_player()]
            first, second = (person for person in people if person is not mover)
            before, seq_before = state.history(), table.seq
            assert await refused(lobby.tables.take_back(mover, table.id, None)) == (
                "nothing_to_take_back"
            )
            await lobby.tables.act(mover, table.id, state.legal_strings()[0], seq_before)
            assert table.take_backs.may_ask(table.seat_of(mover.id))
            assert await refused(lobby.tables.take_back(first, table.id, None, "yes")) == (
                "no_take_back_asked"
            )

            assert await lobby.tables.take_back(mover, table.id, None) == seq_before + 1
            asked = table.info().take_back
            assert asked is not None and asked.seat == table.seat_of(mover.id)
            assert await refused(lobby.tables.take_back(mover, table.id, None, "yes")) == (
                "own_take_back"
            )
            await lobby.tables.take_back(first, table.id, None, "no")
            assert table.info().take_back is None and table.seq == seq_before + 1

            await lobby.tables.take_back(mover, table.id, None)
            await lobby.tables.take_back(first, table.id, None, "yes")
            assert table.seq == seq_before + 1  # the second player has not answered yet
            assert await lobby.tables.take_back(second, table.id, None, "yes") == seq_before
            assert table.state is not None and table.state.history() == before
            assert table.info().take_back is None
            assert await logged_actions(lobby, table) == before

            await lobby.tables.act(mover, table.id, table.state.legal_strings()[0], seq_before)
            await lobby.tables.take_back(mover, table.id, None)
            nxt = people[table.state.current_player()]
            await lobby.tables.act(nxt, table.id, table.state.legal_strings()[0], table.seq)
            assert table.info().take_back is None  # a move played: the request lapses
            assert await refused(lobby.tables.take_back(first, table.id, None, "yes")) == (
                "no_take_back_asked"
            )
            assert await refused(lobby.tables.take_back(mover, table.id, None)) == (
                "too_late_to_take_back_rated"
            )
            assert not table.take_backs.may_ask(table.seat_of(mover.id))

    asyncio.run(run())


def test_a_rated_table_with_bots_has_no_take_back(tmp_path: Path) -> None:
    async def run() -> None:
        async with running_lobby(tmp_path) as lobby:
            _, user = await lobby.accounts.guest("ann", "127.0.0.1")
            table = await table_with_bots(lobby, user, "luz", rated=True)
            await until(my_turn_or_over(table))
            assert table.state is not None
            seq = table.seq
            await lobby.tables.act(user, table.id, table.state.legal_strings()[0], seq)
            code = await refused(lobby.tables.take_back(user, table.id, None))
            assert code in ("take_back_needs_people", "too_late_to_take_back_rated")
            assert not table.take_backs.may_ask(0)
            assert table.seq > seq

    asyncio.run(run())
