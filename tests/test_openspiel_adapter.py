"""The games as OpenSpiel Python games: OpenSpiel's own checks, and no hidden information."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tapisvert import load_game
from tapisvert.bots import make_bot
from tapisvert.bots.match import play_match

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed for this Python"
)
from tapisvert.envs.openspiel import register  # noqa: E402

SHORT = {
    "wizard": (4, {"rounds": "1,2"}),
    "luz": (3, {}),
    "abluxxen": (2, {}),
    "fzzzt": (2, {}),
}


@pytest.mark.parametrize("name", sorted(SHORT))
def test_openspiel_random_simulations_pass(name: str) -> None:
    players, options = SHORT[name]
    game = pyspiel.load_game(register(name, players=players, **options))
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("name", sorted(SHORT))
def test_new_states_and_clones_share_no_position(name: str) -> None:
    """Every new state starts as a copy of one kept initial state, and OpenSpiel's clones
    start as new states: playing on one leaves the others, and the next new state, alone."""
    players, options = SHORT[name]
    game = pyspiel.load_game(register(name, players=players, **options))
    fresh = str(game.new_initial_state().state.history())
    played = game.new_initial_state()
    untouched = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(40):
        if played.is_terminal():
            break
        copy = played.clone()
        before = copy.history()
        played.apply_action(rng.choice(played.legal_actions()))
        assert copy.history() == before and copy.state is not played.state
    assert played.history()
    assert str(untouched.state.history()) == fresh == str(game.new_initial_state().state.history())
    assert untouched.legal_actions() == game.new_initial_state().legal_actions()


def test_the_parameters_are_the_players_and_the_options() -> None:
    name = register("wizard", players=4, rounds="1,2")
    game = pyspiel.load_game(name, {"players": 3, "rounds": "3"})
    assert game.num_players() == 3
    assert game.max_game_length() == 3 * 4 + 1
    assert (game.min_utility(), game.max_utility()) == (-30.0, 50.0)
    again = pyspiel.load_game(register("wizard", players=5, rounds="2"))
    assert (again.num_players(), again.max_game_length()) == (5, 5 * 3 + 1)


def test_fzzzt_tells_openspiel_its_longest_game() -> None:
    game = pyspiel.load_game(register("fzzzt", players=3), {"versus_scoring": True})
    assert game.max_game_length() == load_game("fzzzt", 3, versus_scoring=True).longest_game
    # Bids and dones, then at most one placement per unit and phase (fewer than 54 items).
    assert game.max_game_length() == 5 * (8 * 3 + 3) + 5 * 10


def played(game: Any, moves: int, rng: random.Random) -> Any:
    """A state ``moves`` steps (chance included) into a random game."""
    state = game.new_initial_state()
    for _ in range(moves):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("rounds", ["1,2", "3", "first5"])
def test_the_parameters_and_a_state_survive_serialisation(rounds: str) -> None:
    """A list of rounds is written with semicolons, a single round with one after it, so
    that the game string reads back as the same game, and a serialised state as itself."""
    game = pyspiel.load_game(register("wizard", players=4, rounds=rounds))
    parameters = str(game).removesuffix(")").split("(")[1].split(",")
    assert {"1,2": "rounds=1;2", "3": "rounds=3;"}.get(rounds, f"rounds={rounds}") in parameters
    assert game.rules.options["rounds"] == rounds
    assert pyspiel.load_game(str(game)).rules.options == game.rules.options
    state = played(game, 25, random.Random(rounds))
    copy, twin = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(copy) == str(game)
    assert twin.history() == state.history()
    assert [seat_views(twin, seat) for seat in range(4)] == [
        seat_views(state, seat) for seat in range(4)
    ]
    assert twin.legal_actions() == state.legal_actions()
    given = pyspiel.load_game(game.get_type().short_name, {"rounds": rounds})
    assert str(given) == str(game)


@pytest.mark.parametrize("name", sorted(SHORT))
def test_openspiel_random_simulations_pass_with_serialisation(name: str) -> None:
    players, options = SHORT[name]
    game = pyspiel.load_game(register(name, players=players, **options))
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def seat_views(state: Any, seat: int) -> tuple[str, list[float], str, list[float]]:
    return (
        state.information_state_string(seat),
        list(state.information_state_tensor(seat)),
        state.observation_string(seat),
        list(state.observation_tensor(seat)),
    )


@pytest.mark.parametrize("name", sorted(SHORT))
def test_a_seat_is_told_the_same_in_states_it_cannot_tell_apart(name: str) -> None:
    """Information states come from the seat's observation: a state drawn from it, with
    other hands, gives the seat the same strings and tensors, and another seat others."""
    players, options = SHORT[name]
    game = pyspiel.load_game(register(name, players=players, **options))
    rng = random.Random(5)
    redrawn = checked = 0
    for _ in range(30):
        state = game.new_initial_state()
        for _ in range(rng.randrange(1, 12)):
            while state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, weights)[0])
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        if state.is_terminal():
            continue
        checked += 1
        seat = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(rng.randrange(2**31), 0.0, 1.0)
        twin = state.resample_from_infostate(seat, sampler)
        assert seat_views(twin, seat) == seat_views(state, seat)
        assert twin.legal_actions() == state.legal_actions()
        observed = game.encoding.encode(state.state.observation(seat))
        assert list(state.observation_tensor(seat)) == observed.tolist()
        other = (seat + 1) % players
        assert state.information_state_string(other) != state.information_state_string(seat)
        redrawn += twin.information_state_string(other) != state.information_state_string(other)
    assert checked >= 5
    assert redrawn >= 2


def test_openspiel_ismcts_plays_in_the_arena() -> None:
    """OpenSpiel's IS-MCTS is a bot like ours, reproducible from its generator."""
    game = load_game("wizard", players=3, rounds="1,2")
    bot = make_bot("openspiel-ismcts", game)
    bot.simulations = 20  # type: ignore[attr-defined]
    finished = [
        play_match(game, [bot, make_bot("easy", game), make_bot("random", game)], seed=3)
        for _ in range(2)
    ]
    assert all(state.is_terminal() for state in finished)
    assert finished[0].history() == finished[1].history()


@pytest.mark.parametrize(
    ("given", "in_game_string"),
    [
        ({"rounds": 1}, "rounds=1;"),
        ({"rounds": "1"}, "rounds=1;"),
        ({"rounds": "1,2"}, "rounds=1;2"),
    ],
)
def test_options_take_python_values_and_game_strings_their_semicolons(
    given: dict[str, Any], in_game_string: str
) -> None:
    name = register("wizard", players=3, **given)
    game = pyspiel.load_game(name)
    assert game.rules.options["rounds"] == load_game("wizard", 3, **given).options["rounds"]
    assert in_game_string in str(game)
    again = pyspiel.load_game(f"{name}(players=3,{in_game_string})")
    assert again.rules.options == game.rules.options
    switched = pyspiel.load_game(register("wizard", players=3, canadian="true"))
    assert switched.rules.options["canadian"] is True


def test_pyspiel_checks_a_parameters_type_before_the_game_is_built() -> None:
    """Why ``pyspiel.load_game`` cannot take ``rounds=1``: documented in docs/research.md."""
    name = register("wizard", players=3)
    with pytest.raises(pyspiel.SpielError, match="Expected type: kString, got kInt"):
        pyspiel.load_game(name, {"rounds": 1})
    with pytest.raises(pyspiel.SpielError, match="Expected type: kString, got kInt"):
        pyspiel.load_game(f"{name}(players=3,rounds=1)")


def test_an_option_whose_default_is_none_is_a_text_parameter() -> None:
    """A seat drawn at random, a size the game derives: ``""`` stands for ``None``, which no
    OpenSpiel parameter can be, and a seat is written as in the notation."""
    name = register("wizard", players=4, rounds="1")
    assert "first_dealer=," in str(pyspiel.load_game(name))
    chosen = pyspiel.load_game(name, {"first_dealer": "P2"})
    assert chosen.rules.options["first_dealer"] == 1
    assert chosen.rules.first_dealer == 1
    assert pyspiel.load_game(str(chosen)).rules.options == chosen.rules.options
    assert pyspiel.load_game(name, {"first_dealer": ""}).rules.options["first_dealer"] is None
    dealt = pyspiel.load_game(register("wizard", players=4, rounds="1", first_dealer=2))
    assert "first_dealer=P3," in str(dealt)
    luz = register("luz", players=3, bet_bead_supply=4)
    assert pyspiel.load_game(luz, {"bet_bead_supply": ""}).rules.options["bet_bead_supply"] is None
    assert pyspiel.load_game(luz).rules.options["bet_bead_supply"] == 4
