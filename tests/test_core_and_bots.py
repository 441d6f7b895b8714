"""The core contract, options, messages in both languages, and the bots."""

from __future__ import annotations

import dataclasses
import random
import statistics

import pytest

import tapisvert
from tapisvert import CHANCE, IllegalActionError, OptionError, load_game
from tapisvert.bots import make_bot
from tapisvert.bots.match import game_seeds, play_match
from tapisvert.core import game_class
from tapisvert.core.cache import IdentityCache, itemwise
from tapisvert.core.errors import SeatError
from tapisvert.core.observation import Observation
from tapisvert.games.wizard import WIZARD, WizardState


def test_registry_and_options() -> None:
    assert "wizard" in tapisvert.game_names()
    game = load_game("wizard", players=5, canadian="true")
    assert game.options["canadian"] is True
    assert game.options["hidden_bids"] is False
    with pytest.raises(OptionError, match="there is no option colour"):
        load_game("wizard", players=4, colour="red")
    with pytest.raises(OptionError, match="there is no game called chess"):
        load_game("chess")
    with pytest.raises(OptionError, match="Canadian rule needs open bids"):
        load_game("wizard", players=4, canadian=True, hidden_bids=True)
    with pytest.raises(OptionError, match="special6 is defined for 3 or 4 players"):
        load_game("wizard", players=5, rounds="special6")
    assert load_game("wizard", players=4, rounds="special6").round_numbers == (1, 2, 3, 9, 13, 15)
    with pytest.raises(OptionError, match="with 4 players the last round has 3 cards"):
        load_game("wizard", players=4, rounds="first5", suit_values=3, specials=0)


def test_a_mistaken_seat_or_player_count_says_what_is_expected() -> None:
    """Seats count from 0 in Python and from P1 in notation; either way a wrong one is
    refused saying so, and a count of players may be given as its digits, as options are."""
    assert load_game("wizard", players=4, first_dealer=1).first_dealer == 1
    assert load_game("wizard", players=4, first_dealer="P2").first_dealer == 1
    with pytest.raises(
        OptionError, match=r"from P1 to P4 \(from Python, a seat number from 0 to 3\)"
    ):
        load_game("wizard", players=4, first_dealer=4)
    with pytest.raises(OptionError, match="expected a seat such as P1"):
        load_game("wizard", players=4, first_dealer="1")
    assert load_game("wizard", players="4").players == 4
    with pytest.raises(OptionError, match="played by 2 to 6 players, not four"):
        load_game("wizard", players="four")


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_no_seat_outside_the_table_is_observed(name: str) -> None:
    """-1 would otherwise read the last seat's cards, counted from the end."""
    state = load_game(name, players=4).new_initial_state(seed=3)
    state.resolve_chance()
    for stranger in (-1, 4, 7):
        with pytest.raises(SeatError, match="the seats are 0 to 3 \\(P1 to P4\\)"):
            state.observation(stranger)
    assert state.observation(3).seat == 3 and state.observation(None).seat is None


def test_an_observation_is_read_back_by_its_games_class_only() -> None:
    state = load_game("wizard", players=4).new_initial_state(seed=3)
    state.resolve_chance()
    view = state.view(2)
    assert state.game.observation_class.from_dict(view) == state.observation(2)
    with pytest.raises(TypeError, match=r"game\.observation_class\.from_dict"):
        Observation.from_dict(view)


def test_errors_speak_french_too() -> None:
    state = load_game("wizard", players=3).new_initial_state(seed=1)
    state.resolve_chance()
    with pytest.raises(IllegalActionError) as caught:
        state.apply_string("bid 7")
    assert caught.value.render("fr") == "un pari est un nombre de plis de 0 à 1"
    assert isinstance(caught.value, ValueError)


def test_chance_is_explicit_and_seeded() -> None:
    game = load_game("wizard", players=4)
    first, second = game.new_initial_state(seed=8), game.new_initial_state(seed=8)
    first.resolve_chance()
    second.resolve_chance()
    assert first.history() == second.history()
    chance = game.new_initial_state()
    assert chance.current_player() == CHANCE
    outcomes = chance.chance_outcomes()
    assert sum(probability for _, probability in outcomes) == pytest.approx(1)
    chance.apply_action(outcomes[2][0])
    deal = dict(chance.chance_outcomes())
    assert sum(deal.values()) == pytest.approx(1)
    assert deal[WIZARD] == pytest.approx(4 / 60)


def test_illegal_input_changes_nothing() -> None:
    state = load_game("wizard", players=4, rounds="5").new_initial_state(seed=3)
    state.resolve_chance()
    before = (state.observation(None), state.history())
    for bad in ("bid 9", "play B7", "trump R", "bid -1", "hello", "bid"):
        with pytest.raises(IllegalActionError):
            state.apply_string(bad)
    for bad_action in (-5, 10_000):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad_action)
    assert (state.observation(None), state.history()) == before


def test_clone_is_independent() -> None:
    state = load_game("wizard", players=4).new_initial_state(seed=2)
    state.resolve_chance()
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert twin.history() != state.history()
    assert state.observation(None).bids == (None,) * 4
    assert isinstance(twin, WizardState)


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_history_since_an_earlier_position_is_the_tail_of_the_history(name: str) -> None:
    state = load_game(name, players=4).new_initial_state(seed=3)
    assert state.history_since(None) == state.history()
    generator = random.Random(3)
    earlier = state.clone()
    for _ in range(40):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.resolve_chance(generator)
        else:
            state.apply_action(generator.choice(state.legal_actions()))
    done = len(earlier.history())
    assert len(state.history()) > done
    assert state.history_since(earlier) == state.history()[done:]
    assert state.history_since(state) == []
    stranger = load_game(name, players=4).new_initial_state(seed=4)
    stranger.resolve_chance(generator)
    with pytest.raises(ValueError, match="does not pass through"):
        state.history_since(stranger)


SHARED_ATTRIBUTES = 29
"""The most attributes whose names CPython 3.11 shares among the instances of a class: from
the thirtieth, each instance keeps a dictionary of its own and every attribute read costs more
(a Fzzzt! position's thirtieth made its engine's decisions 3.8% more instructions)."""


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_a_position_keeps_few_enough_attributes_to_share_their_names(name: str) -> None:
    state = load_game(name, players=4).new_initial_state(seed=6)
    if not hasattr(state, "__dict__"):
        pytest.skip("compiled by mypyc: a position's attributes are native fields, no dictionary")
    rng = random.Random(6)
    while not state.is_terminal():
        state.resolve_chance(rng)
        state.observation(state.current_player())
        for position in (state, state.clone()):
            assert len(vars(position)) <= SHARED_ATTRIBUTES, sorted(vars(position))
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_observations_hold_exactly_their_fields(name: str) -> None:
    """Observations built with ``assemble`` equal those built by the dataclass's ``__init__``."""
    state = load_game(name, players=4).new_initial_state(seed=5)
    rng = random.Random(5)
    for _ in range(60):
        if state.is_terminal():
            break
        if state.current_player() == CHANCE:
            state.resolve_chance()
            continue
        for seat in [None, *range(4)]:
            observation = state.observation(seat)
            assert set(vars(observation)) == {
                field.name for field in dataclasses.fields(observation)
            }
            assert dataclasses.replace(observation) == observation
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_what_a_move_leaves_unchanged_is_the_same_object(name: str) -> None:
    """A field of a seat's observation equal to the one before the move is that object, so
    that its conversion is not made or kept again; the others are what they must be."""
    state = load_game(name, players=4).new_initial_state(seed=3)
    state.resolve_chance(random.Random(3))
    rng = random.Random(3)
    before = {seat: state.observation(seat) for seat in [None, *range(4)]}
    kept = changed = 0
    for _ in range(150):
        if state.is_terminal():
            break
        following = state.clone()
        following.apply_action(rng.choice(following.legal_actions()))
        if following.current_player() == CHANCE:
            following.resolve_chance(random.Random(rng.random()))
        for seat, earlier in before.items():
            now = following.observation(seat)
            assert now == dataclasses.replace(now)  # every field, as a fresh build holds it
            for field in dataclasses.fields(now):
                value, old = getattr(now, field.name), getattr(earlier, field.name)
                if type(value) is tuple and value and value == old:
                    assert value is old, field.name
                    kept += 1
                elif value != old:
                    changed += 1
            before[seat] = now
        state = following
    assert kept > 0 and changed > 0


def test_conversions_are_remembered_by_identity() -> None:
    calls: list[tuple[int, ...]] = []

    def convert(value: tuple[int, ...]) -> list[int]:
        calls.append(value)
        return list(value)

    cache = IdentityCache(convert, size=2)
    first, equal, third = (1, 2), tuple([1, 2]), (3,)
    assert cache(first) is cache(first)
    assert cache(equal) == [1, 2] and len(calls) == 2  # equal, yet another object
    cache(third)  # the oldest, ``first``, leaves
    cache(first)
    assert calls == [first, equal, third, first]

    parts: list[str] = []
    rounds = itemwise(lambda part: parts.append(part) or part.upper())
    one = ("a",)
    assert rounds(one) == ("A",)
    assert rounds((*one, "b")) == ("A", "B")
    assert parts == ["a", "b"]


def test_bots_receive_only_what_their_seat_sees() -> None:
    """Same observation, different hidden cards: a bot must choose the same action."""
    game = load_game("wizard", players=4, rounds="7")
    rng = random.Random(1)
    for seed in range(30):
        state = game.new_initial_state(seed)
        state.resolve_chance()
        while state.current_player() >= 0 and rng.random() < 0.9:
            state.apply_action(rng.choice(state.legal_actions()))
            if state.current_player() == CHANCE:
                state.resolve_chance()
        seat = state.current_player()
        if seat < 0:
            continue
        observation = state.observation(seat)
        other = game.sample_state(observation, random.Random(seed))
        for name in ("random", "heuristic"):
            choices = {
                make_bot(name, game).choose(
                    candidate.observation(seat), candidate.legal_actions(), random.Random(seed)
                )
                for candidate in (state, other)
            }
            assert len(choices) == 1


def test_heuristic_beats_random_by_a_clear_margin() -> None:
    game = load_game("wizard", players=4)
    margins = []
    for seed in game_seeds(7, 24):
        lineup = [make_bot("heuristic", game)] + [make_bot("random", game)] * 3
        scores = play_match(game, lineup, seed).returns()
        margins.append(scores[0] - statistics.fmean(scores[1:]))
    mean = statistics.fmean(margins)
    half_width = 1.96 * statistics.stdev(margins) / len(margins) ** 0.5
    assert mean - half_width > 200


def test_every_option_describes_a_control_its_parser_accepts() -> None:
    values = {"bool": [True, "false"], "seat": ["P1", "random"]}
    for name in tapisvert.game_names():
        cls = game_class(name)
        for spec in cls.option_specs:
            numbers = [str(spec.minimum or 0), str(spec.maximum or 7)]
            if spec.kind == "int" and spec.default is None:
                numbers.append("none")
            given = values.get(spec.kind, numbers if spec.kind == "int" else [])
            for value in [spec.default, *spec.choices, *given]:
                spec.parse(value)
            if spec.kind == "choice":
                with pytest.raises(ValueError):
                    spec.parse("nothing-like-it")
            if spec.minimum is not None:
                with pytest.raises(OptionError):
                    load_game(name, players=cls.max_players, **{spec.name: spec.minimum - 1})
            if spec.maximum is not None:
                with pytest.raises(OptionError):
                    load_game(name, players=cls.max_players, **{spec.name: spec.maximum + 1})


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    import string

    from tapisvert.i18n import catalogue

    english, french = catalogue("en"), catalogue("fr")
    assert set(english) == set(french)
    for key, template in english.items():
        fields = {name for _, name, _, _ in string.Formatter().parse(template) if name}
        assert fields == {
            name for _, name, _, _ in string.Formatter().parse(french[key]) if name
        }, key


def test_hidden_bids_stay_hidden_until_all_are_made() -> None:
    game = load_game("wizard", players=4, rounds="6", hidden_bids=True, first_dealer="P4")
    state = game.new_initial_state(seed=5)
    state.resolve_chance()
    if state.current_player() == 3:  # a turned Wizard: the dealer names trump first
        state.apply_string("trump B")
    state.apply_string("bid 2")
    state.apply_string("bid 1")
    assert state.observation(0).bids == (2, None, None, None)
    assert state.observation(1).bids == (None, 1, None, None)
    assert state.observation(None).bids == (None,) * 4
    sampled = {
        game.sample_state(state.observation(2), random.Random(seed)).observation(None).phase
        for seed in range(3)
    }
    assert sampled == {"bid"}
    samples = [game.sample_state(state.observation(2), random.Random(seed)) for seed in range(30)]
    hidden = {(sample.observation(0).bids[0], sample.observation(1).bids[1]) for sample in samples}
    assert len(hidden) > 5
    state.apply_string("bid 0")
    state.apply_string("bid 3")
    assert state.observation(2).bids == (2, 1, 0, 3)


def test_the_contracts_an_arena_reports() -> None:
    """A Wizard bid is made with exactly the tricks bid; a Luz bet with one more too, when it
    carries the safety bead; a game without bids has no contracts."""
    from tapisvert.games.luz.observation import DealSummary
    from tapisvert.games.wizard.observation import RoundSummary

    wizard = load_game("wizard", players=3).new_initial_state(1).observation(None)
    rounds = (
        RoundSummary(1, 0, 0, bids=(1, 0, 0), tricks=(1, 0, 0), points=(), played=()),
        RoundSummary(2, 1, 0, bids=(1, 0, 2), tricks=(0, 1, 1), points=(), played=()),
    )
    assert dataclasses.replace(wizard, past_rounds=rounds).contracts() == [(1, 2), (1, 2), (1, 2)]
    luz = load_game("luz", players=3).new_initial_state(1).observation(None)
    deals = (
        DealSummary(1, 0, bets=((1, 1), (1, 0), (0, 1)), tricks=(2, 2, 0), points=(), played=()),
    )
    assert dataclasses.replace(luz, past_deals=deals).contracts() == [(1, 1), (0, 1), (1, 1)]
    for name in ("abluxxen", "fzzzt"):
        assert load_game(name).new_initial_state(1).observation(None).contracts() is None
