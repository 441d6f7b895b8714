"""The games' small variants: the same games shrunk by their own options until OpenSpiel's
exact tools solve them, registered through the adapter (``benchmarks/exploitability.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from tapisvert import load_game
from tapisvert.core.errors import OptionError
from tapisvert.core.registry import SmallVariant, game_names, plugin
from tapisvert.testing import check_game

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed for this Python"
)
from open_spiel.python import policy  # noqa: E402
from open_spiel.python.algorithms import cfr, exploitability  # noqa: E402

from tapisvert.envs.openspiel import (  # noqa: E402
    bot_policy,
    register,
    register_small,
    same_choices,
    shared_information_states,
)

VARIANTS = [variant for name in game_names() for variant in plugin(name).small_variants]


def small_game(variant: SmallVariant) -> Any:
    return pyspiel.load_game(register_small(variant))


def test_three_games_declare_a_small_variant() -> None:
    """Wizard, Luz and Abluxxen; Fzzzt! has none (docs/research.md says why)."""
    declared = {name for name in game_names() if plugin(name).small_variants}
    assert declared == {"wizard", "luz", "abluxxen"}


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_a_small_variant_passes_the_conformance_kit(variant: SmallVariant) -> None:
    name = next(name for name in game_names() if variant in plugin(name).small_variants)
    check_game(load_game(name, variant.players, **variant.options), games=5, seed=3)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_a_small_variant_passes_openspiels_random_simulations(variant: SmallVariant) -> None:
    game = small_game(variant)
    assert game.num_players() == variant.players
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_a_small_variant_has_the_information_states_it_declares(variant: SmallVariant) -> None:
    """Counted over the whole game tree: few enough for tabular CFR within minutes."""
    table = policy.TabularPolicy(small_game(variant))
    assert len(table.state_lookup) == variant.information_states <= 5000


def test_a_small_variant_is_registered_by_name_under_a_name_of_its_own() -> None:
    """docs/research.md lists the variants by name; registering one leaves the defaults of
    the whole game's registration alone."""
    whole = register("wizard", players=4, rounds="1,2")
    small = register_small("wizard-6-cards")
    assert small == "python_tapisvert_wizard_6_cards"
    variant = next(each for each in VARIANTS if each.name == "wizard-6-cards")
    assert register_small(variant) == small
    game = pyspiel.load_game(small)
    assert game.num_players() == 2 and game.rules.deck_size == 6
    assert game.rules.options == load_game("wizard", 2, **variant.options).options
    assert pyspiel.load_game(str(game)).rules.options == game.rules.options
    kept = pyspiel.load_game(whole)
    assert kept.num_players() == 4 and kept.rules.options["rounds"] == "1,2"


def test_an_unknown_small_variant_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="there is no small variant 'wizard-7-cards'") as refused:
        register_small("wizard-7-cards")
    assert all(variant.name in str(refused.value) for variant in VARIANTS)
    stranger = SmallVariant("wizard-6-cards", 3, {}, information_states=0)
    with pytest.raises(ValueError, match="'wizard-6-cards' is declared as"):
        register_small(stranger)


def test_the_defaults_are_the_whole_games() -> None:
    wizard = load_game("wizard")
    assert wizard.players == 3 and wizard.deck_size == 60 and len(wizard.round_numbers) == 20
    luz = load_game("luz", 4)
    assert (len(luz.deck), luz.hand_size, luz.deals) == (50, 10, 4)
    abluxxen = load_game("abluxxen", 3)
    assert (sum(abluxxen.deck_counts), abluxxen.hand_size, abluxxen.display_size) == (109, 13, 6)


@pytest.mark.parametrize(
    ("name", "players", "options", "english", "french"),
    [
        ("wizard", 2, {}, "at most 41 cards", "au plus 41 cartes"),
        ("wizard", 6, {"suit_values": 1, "specials": 0}, "too small", "trop petit"),
        ("wizard", 3, {"suit_values": 14}, "from 1 to 13", "from 1 to 13"),
        ("luz", 3, {"colours": 2, "colour_values": 1}, "deck's 2", "les 2 du paquet"),
        ("luz", 3, {"colours": 1}, "from 2 to 5", "from 2 to 5"),
        ("abluxxen", 2, {"highest": 1, "copies": 1}, "needs 32 cards and the deck has 6", "en a 6"),
        ("abluxxen", 2, {"duel": True, "jokers": 4}, "whole deck", "paquet"),
    ],
)
def test_a_deck_too_big_or_too_small_is_refused_in_both_languages(
    name: str, players: int, options: dict[str, object], english: str, french: str
) -> None:
    with pytest.raises(OptionError) as refused:
        load_game(name, players, **options)
    assert english in refused.value.render("en")
    assert french in refused.value.render("fr")


def test_two_play_wizard_with_a_small_deck_only() -> None:
    assert load_game("wizard", 2, suit_values=9, specials=2).round_numbers[-1] == 20
    with pytest.raises(OptionError):
        load_game("wizard", 2, suit_values=9, specials=3)


def test_a_few_cfr_iterations_beat_the_uniform_policy() -> None:
    variant = min(VARIANTS, key=lambda each: each.information_states)
    game = small_game(variant)
    uniform = exploitability.nash_conv(game, policy.TabularPolicy(game))
    solver = cfr.CFRPlusSolver(game)
    for _ in range(3):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(game, solver.average_policy()) < uniform / 2


def test_a_bot_chooses_alike_in_states_it_cannot_tell_apart() -> None:
    """Its policy is one of the information state: the benchmark builds it at one state."""
    game = small_game(next(each for each in VARIANTS if each.name == "wizard-6-cards"))
    groups = shared_information_states(game)
    assert same_choices(game, "easy", groups, limit=10_000) > 50
    assert same_choices(game, "random", groups, limit=10_000) > 50


def test_a_deterministic_bots_policy_picks_one_action_per_information_state() -> None:
    game = small_game(next(each for each in VARIANTS if each.name == "wizard-6-cards"))
    table = bot_policy(game, "easy", samples=3)
    rows = table.action_probability_array
    assert ((rows == 0) | (rows == 1)).all() and (rows.sum(axis=1) == 1).all()
    assert exploitability.nash_conv(game, table) != exploitability.nash_conv(
        game, policy.TabularPolicy(game)
    )
