"""TablesVectorEnv: Gymnasium's vector API over many tables, each row the seat's own tensor
and mask, seeded tables that repeat, and a new game the step after one ends."""

from __future__ import annotations

from typing import Any, cast

import numpy
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from tapisvert.envs.pettingzoo import env
from tapisvert.envs.vector import DEAL_SEEDS, TablesVectorEnv
from tapisvert.games.luz.encoding import LuzEncoding

CASES: list[tuple[str, int, dict[str, object]]] = [
    ("wizard", 4, {"rounds": "1,2", "hidden_bids": True}),
    ("luz", 3, {}),
    ("abluxxen", 2, {"duel": True}),
    ("fzzzt", 3, {}),
]
TABLES = 3


def _case_id(case: tuple[str, int, dict[str, object]]) -> str:
    return case[0]


def _choose(masks: numpy.ndarray[Any, Any], rng: numpy.random.Generator) -> numpy.ndarray[Any, Any]:
    """A random index each mask allows (any index where a mask allows none)."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_rows_are_the_single_environments_tensors_and_masks(
    case: tuple[str, int, dict[str, object]],
) -> None:
    """Each table plays as a PettingZoo environment dealt the same game, step by step: the
    same seat, tensor (the seat's observation's: no more than it may see), mask and payments,
    and after a game's end the next game of the table's generator."""
    name, players, options = case
    tables = TablesVectorEnv(name, TABLES, players, **options)
    assert tables.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    observations, infos = tables.reset(seed=11)
    deals = [numpy.random.default_rng(11 + index) for index in range(TABLES)]
    singles = [env(name, players, **options) for _ in range(TABLES)]
    for single, deal in zip(singles, deals, strict=True):
        single.reset(seed=int(deal.integers(DEAL_SEEDS)))
    encoding = tables.encoding
    rng = numpy.random.default_rng(3)
    ended = [False] * TABLES
    games_ended = 0
    for _ in range(400):
        assert tables.observation_space.contains(observations)
        assert observations["observation"].dtype == numpy.float32
        assert observations["action_mask"].dtype == numpy.int8
        assert observations["observation"].shape == (TABLES, *encoding.shape)
        for index, single in enumerate(singles):
            seat = int(infos["seat"][index])
            state = single.table.state
            assert numpy.array_equal(
                observations["observation"][index], encoding.encode(state.observation(seat))
            )
            if ended[index]:
                assert not observations["action_mask"][index].any()
                continue
            assert single.agent_selection == f"player_{seat}"
            seen = single.observe(single.agent_selection)
            assert numpy.array_equal(observations["observation"][index], seen["observation"])
            assert numpy.array_equal(observations["action_mask"][index], seen["action_mask"])
        chosen = _choose(observations["action_mask"], rng)
        observations, rewards, terminated, truncated, infos = tables.step(chosen)
        assert rewards.shape == (TABLES,) and infos["rewards"].shape == (TABLES, players)
        assert not truncated.any()
        for index, single in enumerate(singles):
            if ended[index]:  # the step after the end: a new game, nothing paid
                assert not terminated[index] and rewards[index] == 0
                single.reset(seed=int(deals[index].integers(DEAL_SEEDS)))
                ended[index] = False
                continue
            acting = single.agent_selection
            single.step(int(chosen[index]))
            paid = [single.rewards[agent] for agent in single.possible_agents]
            assert infos["rewards"][index].tolist() == paid
            assert rewards[index] == single.rewards[acting]
            assert terminated[index] == single.terminations[acting]
            ended[index] = bool(terminated[index])
            games_ended += ended[index]
    assert games_ended > 0


def test_seeds_repeat_and_differ() -> None:
    def run(seed: int) -> list[Any]:
        tables = TablesVectorEnv("wizard", 4, 3, rounds="1,2")
        observations, _ = tables.reset(seed=seed)
        rng = numpy.random.default_rng(0)
        seen = [observations]
        for _ in range(30):
            seen.append(tables.step(_choose(seen[-1]["action_mask"], rng))[0])
        return seen

    assert data_equivalence(run(5), run(5), exact=True)
    assert not data_equivalence(run(5), run(6))


def test_one_seed_per_table_deals_as_the_single_seat_environment() -> None:
    tables = TablesVectorEnv("luz", 2, 4)
    observations, _ = tables.reset(seed=[8, 9])
    again, _ = TablesVectorEnv("luz", 2, 4).reset(seed=8)
    assert numpy.array_equal(observations["observation"][0], again["observation"][0])
    assert numpy.array_equal(observations["observation"][1], again["observation"][1])
    with pytest.raises(ValueError, match="one per table"):
        tables.reset(seed=[1, 2, 3])


def test_a_refused_index_changes_nothing() -> None:
    tables = TablesVectorEnv("wizard", 2, 3, copy=False)
    observations, _ = tables.reset(seed=1)
    before = [table.state.history() for table in tables.tables]
    masks = observations["action_mask"]
    chosen = numpy.array([numpy.flatnonzero(masks[0])[0], numpy.flatnonzero(masks[1] == 0)[0]])
    with pytest.raises(ValueError, match="not a legal action index at table 1"):
        tables.step(chosen)
    assert [table.state.history() for table in tables.tables] == before
    assert numpy.array_equal(observations["action_mask"], masks)
    with pytest.raises(ValueError, match="one action index per table"):
        tables.step(chosen[:1])
    with pytest.raises(ValueError, match="at least 1"):
        TablesVectorEnv("wizard", 0, 3)


def test_batches_are_copies_unless_asked_otherwise() -> None:
    copied = TablesVectorEnv("fzzzt", 2, 2)
    first, _ = copied.reset(seed=1)
    second, *_ = copied.step(_choose(first["action_mask"], numpy.random.default_rng(1)))
    assert not numpy.shares_memory(first["observation"], second["observation"])
    shared = TablesVectorEnv("fzzzt", 2, 2, copy=False)
    first, _ = shared.reset(seed=1)
    second, *_ = shared.step(_choose(first["action_mask"], numpy.random.default_rng(1)))
    assert second["observation"] is first["observation"]


def test_the_tables_encoding_keeps_every_seats_template() -> None:
    """More tables than an encoding keeps templates for by default (``TEMPLATES_KEPT``): the
    tables' one encoding keeps a template for every seat of each, so that a seat's tensor
    starts from that seat's last one rather than from nothing at every step (kept for only
    64 of these 160 seats, each would be evicted before its next turn)."""
    tables = TablesVectorEnv("luz", 40, 4, copy=False)
    observations, _ = tables.reset(seed=1)
    rng = numpy.random.default_rng(0)
    for _ in range(12):
        observations, *_ = tables.step(_choose(observations["action_mask"], rng))
    assert {id(table.encoding) for table in tables.tables} == {id(tables.encoding)}
    templates = cast(LuzEncoding, tables.encoding)._templates
    assert templates.kept >= 40 * 5
    written = templates._entries.keys()
    assert len(written) == 40 * 4  # one state per table in these 12 steps, every seat
    for table in tables.tables:
        assert {seat for state, seat in written if state == id(table.state)} == {0, 1, 2, 3}


def test_gymnasiums_episode_statistics_count_whole_games() -> None:
    """Gymnasium's own vector wrapper reads the autoresets as episodes: a 3-player game of
    rounds 1 and 2 takes 3 + 3 bids and 3 + 6 cards, and a trump choice per turned Wizard."""
    tables = RecordEpisodeStatistics(TablesVectorEnv("wizard", 4, 3, rounds="1,2"))
    observations, _ = tables.reset(seed=1)
    rng = numpy.random.default_rng(0)
    lengths: list[int] = []
    for _ in range(100):
        observations, _, _, _, infos = tables.step(_choose(observations["action_mask"], rng))
        if "episode" in infos:
            lengths += infos["episode"]["l"][infos["_episode"]].tolist()
    assert len(lengths) >= 4 * 5
    assert set(lengths) <= {15, 16, 17} and 15 in lengths


def test_the_step_after_a_games_end_takes_any_index_and_ignores_it() -> None:
    """A table's row at its game's end has an all-zero mask (nothing to choose; docs/research.md
    says how to pick anyway): the next step takes any index there, even one outside the
    action space, and deals the table's next game whatever it was."""
    runs = [TablesVectorEnv("wizard", 2, 3, rounds="1") for _ in range(2)]
    masks = runs[0].reset(seed=4)[0]["action_mask"]
    runs[1].reset(seed=4)
    rng = numpy.random.default_rng(0)
    terminated = numpy.zeros(2, dtype=numpy.bool_)
    while not terminated.any():
        chosen = _choose(masks, rng)
        steps = [run.step(chosen) for run in runs]
        masks, terminated = steps[0][0]["action_mask"], steps[0][2]
    ended = int(numpy.flatnonzero(terminated)[0])
    assert not masks[ended].any()
    picked = _choose(masks, rng)  # index 0 where a mask allows none
    odd = picked.copy()
    odd[ended] = -1
    after = runs[0].step(picked), runs[1].step(odd)
    assert data_equivalence(after[0], after[1], exact=True)
    assert after[0][0]["action_mask"][ended].any() and after[0][1][ended] == 0
