"""Observations and legal actions as JSON and back (``tapisvert.core.wire``): for every installed
game, and the duel of ``tests/plugins``, at every decision of random games played to their end,
what the seat sees comes back equal, of the same types all the way down, and a bot decides on
it exactly as on the original; data that is not an observation is refused.

``scripts/test`` runs this on the compiled engine too, where a type declared in a compiled
module would have lost its field types (each observation is in a module that is not compiled)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from tapisvert.bots import make_bot
from tapisvert.bots.search import BUDGET_SCALE_VARIABLE
from tapisvert.core import CHANCE, Game, Observation, game_class, game_names, load_game, registry
from tapisvert.core.errors import OptionError
from tapisvert.core.wire import (
    DataError,
    actions_from_data,
    actions_to_data,
    observation_from_data,
    observation_to_data,
)
from test_bot_workers import SCALE
from test_conformance_kit import duel_game

SEARCH_EVERY = 25
"""A search bot decides on both observations at every this many decisions (the easy and the
random bot at every one)."""


@pytest.fixture(autouse=True)
def duel_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The duel is known by name for the length of a test, as if it were installed."""
    monkeypatch.setitem(registry.plugins(), "duel", duel_game.PLUGIN)
    yield


def games() -> list[str]:
    return sorted({*game_names(), "duel"})


def variants(name: str) -> list[Game[Any]]:
    """The game with its default and with most players, with each of its yes-or-no options
    switched from its default (where the default players allow it), and its small variants."""
    cls = game_class(name)
    found = [load_game(name), cls(cls.max_players)]
    for spec in cls.option_specs:
        if spec.kind == "bool":
            try:
                found.append(load_game(name, **{spec.name: not spec.default}))
            except OptionError:
                continue
    small = registry.plugin(name).small_variants
    return [*found, *(load_game(name, each.players, **each.options) for each in small)]


def to_json_and_back(game: str, observation: Observation) -> Observation:
    """Through bytes, as a job travels."""
    sent = orjson.dumps(observation_to_data(game, observation))
    return observation_from_data(game, orjson.loads(sent))


def same(one: object, other: object) -> bool:
    """Equal, and of the same type at every level (a named tuple is not a plain tuple)."""
    if type(one) is not type(other):
        return False
    if isinstance(one, tuple | list):
        assert isinstance(other, tuple | list)
        return len(one) == len(other) and all(map(same, one, other))
    if dataclasses.is_dataclass(one):
        return all(
            same(getattr(one, field.name), getattr(other, field.name))
            for field in dataclasses.fields(one)
        )
    return one == other


@pytest.mark.parametrize("name", games())
def test_every_decision_survives_json(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUDGET_SCALE_VARIABLE, SCALE)
    for number, game in enumerate(variants(name)):
        bots = [make_bot(level, game) for level in ("random", "easy")]
        search = make_bot("medium", game)
        state = game.new_initial_state(seed=number)
        rng = random.Random(f"{name}:{number}")
        decisions = 0
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.resolve_chance(rng)
                continue
            seat, legal = state.current_player(), state.legal_actions()
            observation = state.observation(seat)
            back = to_json_and_back(name, observation)
            where = f"{game!r}, decision {decisions}"
            assert back == observation and same(back, observation), where
            legal_back = actions_from_data(orjson.loads(orjson.dumps(actions_to_data(legal))))
            assert same(legal_back, legal), where
            deciding = [*bots, search] if decisions % SEARCH_EVERY == 0 else bots
            for bot in deciding:
                seed = f"{where}: {type(bot).__name__}"
                here = bot.choose(observation, legal, random.Random(seed))
                assert bot.choose(back, legal_back, random.Random(seed)) == here, where
            if decisions % SEARCH_EVERY == 0:  # what the others and a spectator see, too
                for other in [*range(game.players), None]:
                    seen = state.observation(other)
                    assert same(to_json_and_back(name, seen), seen), f"{where}, seat {other}"
            state.apply_action(rng.choice(legal))
            decisions += 1
        assert decisions > 0


@pytest.mark.parametrize("name", games())
def test_data_that_is_no_observation_is_refused(name: str) -> None:
    game = load_game(name)
    state = game.new_initial_state(seed=1)
    state.resolve_chance(random.Random(1))
    observation = state.observation(state.current_player())
    data = observation_to_data(name, observation)
    assert isinstance(data, dict) and data["seat"] == observation.seat
    assert same(observation_from_data(name, data), observation)
    field = next(key for key, value in data.items() if isinstance(value, list) and value)
    wrong: list[object] = [
        None,
        [],
        "observation",
        {},
        {key: value for key, value in data.items() if key != field},
        {**data, "seat": "0"},
        {**data, "seat": 0.0},
        {**data, "seat": True},
        {**data, field: "x"},
        {**data, field: {"a": 1}},
        {**data, "seat": 2**70},
        {**data, "seat": object()},
    ]
    for given in wrong:
        with pytest.raises(DataError):
            observation_from_data(name, given)


def test_only_a_games_own_observations_are_written() -> None:
    names = game_names()
    state = load_game(names[0]).new_initial_state(seed=1)
    state.resolve_chance(random.Random(1))
    observation = state.observation(0)
    with pytest.raises(TypeError):
        observation_to_data(names[1], observation)
    with pytest.raises(TypeError):
        observation_to_data(names[0], Observation(seat=0))
    with pytest.raises(OptionError):
        observation_to_data("no-such-game", observation)
    broken = dataclasses.replace(observation, seat="zero")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        observation_to_data(names[0], broken)


def test_actions_are_a_list_of_integers() -> None:
    assert actions_to_data((3, 2**56 + 5)) == [3, 2**56 + 5]
    assert actions_from_data([3, 2**56 + 5]) == [3, 2**56 + 5]
    for wrong in [None, 3, "3", ["3"], [1.0], [True], {"0": 1}, [[1]]]:
        with pytest.raises(DataError):
            actions_from_data(wrong)
