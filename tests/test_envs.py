"""The PettingZoo and Gymnasium environments pass their libraries' own checks, and pay a
game's final scores."""

from __future__ import annotations

import warnings

import numpy
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from tapisvert.envs.gymnasium import SingleSeatEnv
from tapisvert.envs.pettingzoo import env

CASES: list[tuple[str, int, dict[str, object]]] = [
    ("wizard", 4, {"rounds": "first5", "hidden_bids": True}),
    ("luz", 3, {}),
    ("abluxxen", 2, {"duel": True}),
    ("fzzzt", 3, {}),
]


def _case_id(case: tuple[str, int, dict[str, object]]) -> str:
    return case[0]


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_pettingzoo_api_and_seed(case: tuple[str, int, dict[str, object]]) -> None:
    name, players, options = case
    api_test(env(name, players, **options), num_cycles=300)
    seed_test(lambda: env(name, players, **options), num_cycles=300)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_pettingzoo_rewards_add_up_to_the_scores(case: tuple[str, int, dict[str, object]]) -> None:
    name, players, options = case
    table = env(name, players, render_mode="ansi", **options)
    table.reset(seed=5)
    rng = numpy.random.default_rng(5)
    totals = dict.fromkeys(table.agents, 0.0)
    payments = 0
    for agent in table.agent_iter():
        observation, reward, terminated, truncated, _ = table.last()
        totals[agent] += float(reward)
        payments += reward != 0
        if terminated or truncated:
            table.step(None)
            continue
        legal = numpy.flatnonzero(observation["action_mask"])
        table.step(int(rng.choice(legal)))
    scores = table.table.state.returns()
    assert list(totals.values()) == scores
    assert payments > 0
    assert isinstance(table.render(), str)


def test_pettingzoo_refuses_an_index_the_mask_does_not_allow() -> None:
    table = env("luz", 4)
    table.reset(seed=2)
    mask = table.observe(table.agent_selection)["action_mask"]
    with pytest.raises(ValueError):
        table.step(int(numpy.flatnonzero(mask == 0)[0]))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_gymnasium_single_seat(case: tuple[str, int, dict[str, object]]) -> None:
    name, players, options = case
    seat = SingleSeatEnv(name, players, seat=1, opponents="easy", render_mode="ansi", **options)
    with warnings.catch_warnings():
        warnings.filterwarnings("error")
        warnings.filterwarnings("ignore", message=".*spec.*")
        check_env(seat)
    observation, _ = seat.reset(seed=4)
    total, done = 0.0, False
    while not done:
        legal = numpy.flatnonzero(observation["action_mask"])
        observation, reward, done, _, info = seat.step(int(legal[-1]))
        total += float(reward)
        assert not info
    assert total == seat.table.state.returns()[1]
    assert isinstance(seat.render(), str)


def test_gymnasium_ends_an_episode_on_an_illegal_index() -> None:
    seat = SingleSeatEnv("wizard", 3, opponents=["random", "easy"], illegal_reward=-5.0)
    observation, _ = seat.reset(seed=1)
    illegal = int(numpy.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = seat.step(illegal)
    assert (reward, terminated, info) == (-5.0, True, {"illegal_action": True})
    with pytest.raises(ValueError):
        SingleSeatEnv("wizard", 3, opponents=["easy"])


@pytest.mark.parametrize("index", [-1, 79, 10**6])
def test_gymnasium_refuses_an_index_outside_the_action_space(index: int) -> None:
    """Outside ``Discrete(79)`` is a mistake in the caller's code, not a move: it raises,
    and the episode goes on (an illegal index inside the space ends it, as above)."""
    seat = SingleSeatEnv("wizard", 3, opponents="random")
    observation, _ = seat.reset(seed=1)
    before = seat.table.state.history()
    with pytest.raises(ValueError, match=r"outside the action space Discrete\(79\)"):
        seat.step(index)
    assert seat.table.state.history() == before
    legal = int(numpy.flatnonzero(observation["action_mask"])[0])
    _, _, terminated, _, info = seat.step(legal)
    assert not terminated and not info
