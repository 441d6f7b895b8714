"""Property tests over seeded random Wizard games for 3 to 6 players."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapisvert import CHANCE, load_game
from tapisvert.games.wizard import WizardState
from tapisvert.games.wizard.cards import (
    FULL_DECK_CARDS,
    HAND_PARTS,
    SUIT_CARDS,
    card_count,
    hand_of,
    hand_parts,
    joined_hand,
    kinds_in,
    part_count,
    part_kinds,
    round_score,
)
from tapisvert.games.wizard.observation import CompletedTrick, RoundSummary
from tapisvert.games.wizard.sampler import revealed_voids
from tapisvert.testing import check_game

from conftest import random_playthrough

players_st = st.integers(min_value=3, max_value=6)
seed_st = st.integers(min_value=0, max_value=2**32)
SETTINGS = settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])


def short_game(players: int, seed: int) -> WizardState:
    """Three rounds chosen by the seed, so that every round size gets exercised."""
    last = 60 // players
    picks = sorted(random.Random(seed).sample(range(1, last + 1), 3))
    game = load_game("wizard", players=players, rounds=",".join(map(str, picks)))
    state = game.new_initial_state(seed)
    assert isinstance(state, WizardState)
    return state


def accounted_cards(state: WizardState) -> int:
    public = state.observation(None)
    tricks = public.completed_tricks
    if public.phase == "end":
        tricks = public.past_rounds[-1].played
    on_table = sum(len(trick.cards) for trick in tricks) + len(public.trick)
    turned = 0 if public.trump_card is None else 1
    in_hands = sum(len(state.hand(seat)) for seat in range(public.players))
    return in_hands + len(state.undealt()) + on_table + turned


@SETTINGS
@given(players=players_st, seed=seed_st)
def test_full_random_games_terminate(players: int, seed: int) -> None:
    state = load_game("wizard", players=players).new_initial_state(seed)
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.resolve_chance()
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
        assert steps < 2000
    assert len(state.observation(None).past_rounds) == 60 // players


@SETTINGS
@given(players=players_st, seed=seed_st)
def test_sixty_cards_at_every_step_and_scores_follow_the_formula(players: int, seed: int) -> None:
    states = random_playthrough(short_game(players, seed), random.Random(seed))
    for state in states:
        assert accounted_cards(state) == 60
    final = states[-1]
    totals = [0] * players
    for summary in final.observation(None).past_rounds:
        assert sum(summary.tricks) == summary.round_number
        assert all(
            points == round_score(bid, took)
            for points, bid, took in zip(summary.points, summary.bids, summary.tricks, strict=True)
        )
        totals = [total + points for total, points in zip(totals, summary.points, strict=True)]
        played = [card for trick in summary.played for card in trick.cards]
        assert len(played) == summary.round_number * players
    assert final.returns() == [float(total) for total in totals]


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5, 6])  # a test each: they run in parallel
@settings(max_examples=3, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seed_st, canadian=st.booleans(), hidden_bids=st.booleans())
def test_wizard_conforms(players: int, seed: int, canadian: bool, hidden_bids: bool) -> None:
    """The conformance kit on short games: cards, notation, clones, refusals, samples, records."""
    rounds = short_game(players, seed).game.options["rounds"]
    hidden_bids = hidden_bids and not canadian  # the Canadian rule needs open bids
    game = load_game(
        "wizard", players=players, rounds=rounds, canadian=canadian, hidden_bids=hidden_bids
    )
    check_game(game, games=1, seed=seed)


@SETTINGS
@given(players=players_st, seed=st.integers(min_value=10**12, max_value=2**62))
def test_observations_leak_nothing(players: int, seed: int) -> None:
    state = short_game(players, seed)
    states = random_playthrough(state, random.Random(seed))
    for snapshot in states[::3]:
        for seat in range(players):
            observation = snapshot.observation(seat)
            assert list(observation.hand) == snapshot.hand(seat)
            text = json.dumps(observation.to_dict())
            assert str(seed) not in text
            visible = set(observation.hand) | set(observation.trick)
            visible |= {card for trick in observation.completed_tricks for card in trick.cards}
            if observation.trump_card is not None:
                visible.add(observation.trump_card)
            hidden = {
                card for other in range(players) if other != seat for card in snapshot.hand(other)
            } | set(snapshot.undealt())
            suit_cards_seen = {card for card in visible if card < SUIT_CARDS}
            assert not (suit_cards_seen & hidden)
        spectator = snapshot.observation(None)
        assert spectator.hand == ()


def mid_round_positions(players: int, seed: int) -> list[WizardState]:
    states = random_playthrough(short_game(players, seed), random.Random(seed))
    return [
        state
        for state in states
        if state.current_player() >= 0 and state.observation(None).phase == "play"
    ][::5]


@SETTINGS
@given(players=players_st, seed=seed_st)
def test_sampled_states_match_the_observation_and_respect_voids(players: int, seed: int) -> None:
    rng = random.Random(seed)
    for state in mid_round_positions(players, seed):
        seat = state.current_player()
        observation = state.observation(seat)
        voids = revealed_voids(observation)
        for _ in range(3):
            sample = state.game.sample_state(observation, rng)
            assert sample.observation(seat) == observation
            for other, suits in voids.items():
                held = {card // 13 for card in sample.hand(other) if card < SUIT_CARDS}
                assert not (held & suits)
            assert sorted(sample.legal_actions()) == sorted(state.legal_actions())


def test_sampled_states_vary_what_the_seat_cannot_see() -> None:
    game = load_game("wizard", players=4, rounds="8")
    state = game.new_initial_state(seed=11)
    state.resolve_chance()
    observation = state.observation(state.current_player())
    rng = random.Random(5)
    others = {
        tuple(tuple(sample.hand(seat)) for seat in range(4) if seat != observation.seat)
        for sample in (game.sample_state(observation, rng) for _ in range(20))
    }
    assert len(others) > 15


hand_st = st.lists(st.integers(min_value=0, max_value=59), max_size=20, unique=True).map(
    lambda cards: hand_of(FULL_DECK_CARDS[index] for index in cards)
)


@SETTINGS
@given(hand=hand_st)
def test_a_hand_in_parts_is_the_same_hand(hand: int) -> None:
    parts = hand_parts(hand)
    assert len(parts) == HAND_PARTS
    assert all(0 <= part < 2**13 for part in parts)
    assert joined_hand(parts) == hand
    assert part_kinds(parts) == kinds_in(hand)
    assert part_count(parts) == card_count(hand)


@SETTINGS
@given(players=players_st, seed=seed_st)
def test_observations_name_the_tricks_and_rounds_the_state_keeps(players: int, seed: int) -> None:
    state = short_game(players, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.resolve_chance(rng)
            continue
        public = state.observation(None)
        assert all(type(trick) is CompletedTrick for trick in public.completed_tricks)
        assert public.completed_tricks == state._completed
        for summary, kept in zip(public.past_rounds, state._past_rounds, strict=True):
            assert type(summary) is RoundSummary
            assert all(type(trick) is CompletedTrick for trick in summary.played)
            assert summary == kept
        for seat in range(players):
            assert joined_hand(state._hands[seat]) == hand_of(state.hand(seat))
        state.apply_action(rng.choice(state.legal_actions()))
    assert len(state.observation(None).past_rounds) == 3


@pytest.mark.parametrize(
    ("players", "rounds"),
    [(players, rounds) for rounds in ("first5", "first7") for players in range(3, 7)]
    + [(3, "special6"), (4, "special6")],
)
def test_every_short_game_deals_and_ends(players: int, rounds: str) -> None:
    state = load_game("wizard", players=players, rounds=rounds).new_initial_state(7)
    random_playthrough(state, random.Random(7))
    assert state.is_terminal()
    assert len(state.observation(None).past_rounds) == len(state.game.round_numbers)


@SETTINGS
@given(players=players_st, seed=seed_st)
def test_a_world_drawn_at_the_start_or_the_end_shows_what_the_seat_sees(
    players: int, seed: int
) -> None:
    state = short_game(players, seed)
    game = state.game
    rng = random.Random(seed)
    for seat in (None, *range(players)):
        assert game.sample_state(state.observation(seat), rng).observation(seat) == (
            state.observation(seat)
        )
    random_playthrough(state, rng)
    for seat in (None, *range(players)):
        seen = state.observation(seat)
        drawn = game.sample_state(seen, rng)
        assert drawn.is_terminal()
        assert drawn.observation(seat) == seen
        assert drawn.every_card() == state.every_card()
        assert drawn.returns() == state.returns()
