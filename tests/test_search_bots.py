"""Search bots and the arena: no bot can see more than its seat, and the arena's report."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from tapisvert import CHANCE, load_game
from tapisvert.arena import run_arena, save_plots
from tapisvert.bots import bot_names, make_bot
from tapisvert.bots.base import Bot
from tapisvert.bots.search import HalvingBot, ISMCTSBot, PIMCBot, SearchSettings
from tapisvert.compiled import engine_in_use
from tapisvert.core.game import State
from tapisvert.games.abluxxen.rules import SET_BASE, TAKE
from tapisvert.games.abluxxen.search import SHORTLIST, strongest_sets
from tapisvert.games.wizard.rules import WizardState
from tapisvert.games.wizard.sampler import revealed_voids

GAMES = {"wizard": {"rounds": "4"}, "luz": {}, "abluxxen": {}, "fzzzt": {}}


def small_budget(bot: Bot) -> Bot:
    """The same bot with a test-sized budget: the decision logic is unchanged."""
    if isinstance(bot, ISMCTSBot | PIMCBot | HalvingBot):
        settings = bot.searcher.settings
        bot.searcher.settings = dataclasses.replace(settings, iterations=12, seconds=None)
    elif hasattr(bot, "simulations"):
        bot.simulations = 12  # OpenSpiel's IS-MCTS, where OpenSpiel is installed
    return bot


def decision_points(game_name: str, count: int) -> list[tuple[State, int]]:
    game = load_game(game_name, players=3, **GAMES[game_name])
    rng = random.Random(4)
    points = []
    for seed in range(count):
        state = game.new_initial_state(seed)
        for _ in range(rng.randrange(1, 40)):
            if state.is_terminal():
                break
            if state.current_player() == CHANCE:
                state.resolve_chance()
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        while state.current_player() == CHANCE:
            state.resolve_chance()
        if not state.is_terminal():
            points.append((state, state.current_player()))
    return points


@pytest.mark.slow
@pytest.mark.parametrize("game_name", sorted(GAMES))
def test_no_bot_sees_what_its_seat_cannot(game_name: str) -> None:
    """Two states that differ only in what the seat cannot see: every bot picks alike."""
    game = load_game(game_name, players=3, **GAMES[game_name])
    names = bot_names(game_name)
    assert {"random", "easy", "medium", "hard", "pimc", "ismcts", "halving"} <= set(names)
    for state, seat in decision_points(game_name, 6):
        observation = state.observation(seat)
        twin = game.sample_state(observation, random.Random(seat))
        assert twin.observation(seat) == observation
        for name in names:
            choices = {
                small_budget(make_bot(name, game)).choose(
                    world.observation(seat), world.legal_actions(), random.Random(9)
                )
                for world in (state, twin)
            }
            assert len(choices) == 1, (game_name, name)


def test_search_finds_the_only_winning_line() -> None:
    """P1 bid 1 and plays last: B9 takes this trick and loses the next; B1 takes none."""
    from conftest import wizard_position

    state = wizard_position(
        [["B9", "B1"], ["B2", "B10"], ["B3", "R6"]],
        turned="G1",
        dealer=0,
        bids=[0, 0, 1],
        plays=["B2", "B3"],
    )
    assert state.current_player() == 0
    for bot in (
        ISMCTSBot(state.game, SearchSettings(iterations=60, rollout="random")),
        PIMCBot(state.game, SearchSettings(iterations=40, rollout="random")),
        HalvingBot(state.game, SearchSettings(iterations=40, rollout="random")),
    ):
        action = bot.choose(state.observation(0), state.legal_actions(), random.Random(1))
        assert state.action_to_string(action) == "play B9"


def test_arena_rotates_seats_and_reports(tmp_path: Path) -> None:
    report = run_arena(
        "wizard", ["easy", "random", "random"], deals=4, seed=3, options={"rounds": "first5"}
    )
    assert [entry.games for entry in report.entries] == [12, 12, 12]
    easy = report.entries[0]
    assert easy.margin_per_game.mean > 0
    assert easy.margin_per_segment is not None and easy.contracts_made is not None
    assert abs(sum(entry.win_rate for entry in report.entries) - 1) < 1e-9
    paths = save_plots(report, tmp_path)
    assert all(path.stat().st_size > 1000 for path in paths)
    again = run_arena(
        "wizard",
        ["easy", "random", "random"],
        deals=4,
        seed=3,
        options={"rounds": "first5"},
        workers=2,
    )
    assert [e.scores for e in again.entries] == [e.scores for e in report.entries]


def test_each_level_searches_as_its_game_profile_says() -> None:
    """Fzzzt!'s ``hard`` halves its options; its ``medium`` is a weaker kind, IS-MCTS."""
    kinds = {
        (game_name, level): type(make_bot(level, load_game(game_name, players=4, **options)))
        for game_name, options in GAMES.items()
        for level in ("medium", "hard")
    }
    assert kinds[("fzzzt", "hard")] is HalvingBot
    assert kinds[("fzzzt", "medium")] is ISMCTSBot
    assert kinds[("abluxxen", "hard")] is kinds[("abluxxen", "medium")] is HalvingBot
    assert kinds[("wizard", "hard")] is kinds[("luz", "medium")] is ISMCTSBot


def test_abluxxen_search_weighs_the_sets_the_heuristic_rates_best() -> None:
    """The shortlist keeps the heuristic's own set among a few; other decisions stay whole."""
    game = load_game("abluxxen", players=3)
    heuristic = make_bot("easy", game)
    set_decisions = 0
    for state, seat in decision_points("abluxxen", 30):
        observation = state.observation(seat)
        legal = state.legal_actions()
        shortlist = strongest_sets(observation, legal)
        if SET_BASE <= legal[0] < TAKE and len(legal) > SHORTLIST:
            set_decisions += 1
            assert len(shortlist) == SHORTLIST and set(shortlist) < set(legal)
            assert heuristic.choose(observation, legal, random.Random(1)) in shortlist
        else:
            assert sorted(shortlist) == sorted(legal)
    assert set_decisions > 0


def test_an_unshared_observation_is_the_observation_built_anew() -> None:
    """What a search keys its tree by equals the observation, without the position before's
    objects: a bid leaves the hand sizes as they were, and only ``observation`` keeps them."""
    game = load_game("wizard", players=4, rounds="3")
    state = game.new_initial_state(5)
    state.resolve_chance()
    while state.observation(0).phase != "bid":
        state.apply_action(state.legal_actions()[0])
    before = state.observation(0)
    searched = state.clone()
    state.apply_action(state.legal_actions()[0])
    searched.apply_action(searched.legal_actions()[0])
    kept, anew = state.observation(0), searched.unshared_observation(0)
    assert anew == kept
    assert kept.hand_sizes is before.hand_sizes
    assert anew.hand_sizes == before.hand_sizes and anew.hand_sizes is not before.hand_sizes


def test_wizard_draws_the_same_worlds_from_an_observation_used_again() -> None:
    """The sampler works out once what an observation hides (a search draws from the same
    one at every iteration); drawing again from it, where revealed voids make the draw
    adjust each seat's room, gives the worlds that a fresh equal observation gives."""
    game = load_game("wizard", players=4, rounds="8")
    rng = random.Random(3)
    for seed in range(200):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.resolve_chance(rng)
                continue
            seat = state.current_player()
            observation = state.observation(seat)
            if observation.phase == "play" and observation.completed_tricks:
                voided = revealed_voids(observation)
                if any(voided.values()):
                    break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        else:
            continue
        for draw in range(20):
            again = game.sample_state(observation, random.Random(draw))
            fresh = game.sample_state(state.unshared_observation(seat), random.Random(draw))
            assert again.every_card() == fresh.every_card()
            assert [again.observation(other) for other in range(4)] == [
                fresh.observation(other) for other in range(4)
            ]
            assert again.observation(seat) == observation
        return
    raise AssertionError("no position with a revealed void in 200 deals")


PUBLIC_VARIANTS = {
    "wizard": {"rounds": "4"},
    "wizard, hidden bids": {"rounds": "4", "hidden_bids": "true"},
    "luz": {},
    "abluxxen": {},
    "fzzzt": {},
}


@pytest.mark.parametrize("variant", sorted(PUBLIC_VARIANTS))
def test_a_public_action_tells_every_seat_all_that_changes(variant: str) -> None:
    """Where ``public_action`` says so, a seat's observation after the action is the same in
    every world its observation before allows: the action told it all (what a search keys its
    tree by instead of the observation)."""
    game = load_game(variant.split(",")[0], players=4, **PUBLIC_VARIANTS[variant])
    rng = random.Random(8)
    public = 0
    for seed in range(12):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            if state.current_player() == CHANCE:
                state.resolve_chance(rng)
                continue
            action = rng.choice(state.legal_actions())
            if state.public_action(action):
                public += 1
                for seat in range(game.players):
                    world = game.sample_state(state.observation(seat), rng)
                    if action in world.legal_actions():
                        after = state.clone()
                        after.apply_action(action)
                        world.apply_action(action)
                        assert world.observation(seat) == after.observation(seat), (seed, seat)
            state.apply_action(action)
    assert public or not variant.startswith("wizard")


@pytest.mark.skipif(
    engine_in_use() == "compiled",
    reason="a compiled class's methods cannot be replaced; the pure-Python pass checks this",
)
def test_a_search_keyed_by_public_actions_grows_the_tree_observations_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keying an information set by the one before it and a public action gives the tree,
    visits and values that keying every one by the bot's observation gives."""
    game = load_game("wizard", players=4, rounds="6")
    points = []
    for seed in range(5):
        state = game.new_initial_state(seed)
        state.resolve_chance()
        for _ in range(seed * 3):  # bids, then cards
            state.apply_action(state.legal_actions()[-1])
        points.append(state)

    def trees() -> list[list[list[tuple[int, int, int, float]]]]:
        grown = []
        for state in points:
            bot = ISMCTSBot(game, SearchSettings(rollout="random"))
            tree: dict[object, dict[int, Any]] = {}
            observation = state.observation(state.current_player())
            rng = random.Random(2)
            for _ in range(200):
                bot._iterate(observation, tree, rng)
            grown.append(
                sorted(
                    sorted((a, e.visits, e.available, round(e.total, 9)) for a, e in edges.items())
                    for edges in tree.values()
                )
            )
        return grown

    by_actions = trees()
    monkeypatch.setattr(WizardState, "public_action", lambda self, action: False)
    assert trees() == by_actions
    assert all(len(tree) > 30 for tree in by_actions)  # information sets, dozens deep
