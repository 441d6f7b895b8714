"""Luz: the worked examples L1–L12, the knowledge against brute force, uniform sampling,
and property tests over random games."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from tapisvert import CHANCE, IllegalActionError, load_game
from tapisvert.core.display import render_state
from tapisvert.games.luz import LuzObservation, LuzState, deal_score, trick_winner
from tapisvert.games.luz.cards import (
    COLOURS,
    MAX_VALUE,
    card,
    card_to_string,
    colour_of,
    final_ranking,
    string_to_card,
    value_of,
)
from tapisvert.games.luz.knowledge import Gap, colour_values, hand_gaps, sample_hand
from tapisvert.testing import check_game

from conftest import random_playthrough


def cards(text: str) -> list[int]:
    return [string_to_card(word) for word in text.split()]


def luz_position(
    fixed: dict[int, str], voids: dict[int, str] | None = None, players: int = 4, first: int = 0
) -> LuzState:
    """A first deal where seat ``s`` holds ``fixed[s]`` plus filler cards avoiding ``voids[s]``."""
    game = load_game("luz", players=players, first_player=f"P{first + 1}")
    remaining = [c for c in game.deck if c not in {x for t in fixed.values() for x in cards(t)}]
    hands = []
    for seat in range(players):
        hand = cards(fixed.get(seat, ""))
        banned = set((voids or {}).get(seat, ""))
        for filler in list(remaining):
            if len(hand) == 10:
                break
            if COLOURS[colour_of(filler)] not in banned:
                hand.append(filler)
                remaining.remove(filler)
        assert len(hand) == 10
        hands.append(hand)
    state = game.new_initial_state()
    assert isinstance(state, LuzState)
    for index in range(10 * players):
        state.apply_action(hands[(first + index) % players][index // players])
    return state


def slot_of(state: LuzState, seat: int, text: str) -> int:
    return state._hands[seat].index(string_to_card(text))


def bet_all(state: LuzState, bets: str = "0 0 0 0") -> None:
    for bet in bets.split():
        state.apply_string(f"bet {bet}")


def play(state: LuzState, *moves: tuple[int, str]) -> None:
    for seat, text in moves:
        assert state.current_player() == seat
        state.apply_string(f"play {slot_of(state, seat, text)}")


@pytest.mark.parametrize(("players", "size"), [(3, 40), (4, 50), (5, 60)])
def test_l1_deck_size(players: int, size: int) -> None:
    game = load_game("luz", players=players)
    assert len(game.deck) == size
    assert max(value_of(c) for c in game.deck) == {3: 8, 4: 10, 5: 12}[players]
    state = game.new_initial_state(seed=players)
    state.resolve_chance()
    assert all(len(state.hand(seat)) == 10 for seat in range(players))
    assert len(state.set_aside()) == 10


def test_l2_follow_colour_by_position() -> None:
    state = luz_position({0: "G4", 1: "R1 R2 Y1 G5 B1 B2 B3 P1 P2 P3"})
    bet_all(state)
    play(state, (0, "G4"))
    assert state.observation(1).colours[1] == (0, 0, 1, 2, 3, 3, 3, 4, 4, 4)
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["play 3"]
    with pytest.raises(IllegalActionError, match="you must follow green: play position 3"):
        state.apply_string("play 0")


def test_l3_void_in_led_colour() -> None:
    state = luz_position({0: "P2", 2: "R1 R2 R3 Y1 Y2 G1 G2 B1 B2 B3"}, voids={1: "P"})
    bet_all(state)
    play(state, (0, "P2"), (1, state_card_to_play(state, 1)))
    assert len(state.legal_actions()) == 10


def state_card_to_play(state: LuzState, seat: int) -> str:
    return card_to_string(state._hands[seat][state.legal_actions()[0] - 100])


@pytest.mark.parametrize(
    ("moves", "voids", "winner"),
    [
        ("R7 R10 Y2 B9", {2: "R", 3: "RY"}, 2),  # L4: the only yellow wins
        ("G3 G9 R10 G5", {2: "GY"}, 1),  # L5: highest of the led colour; R10 cannot win
        ("Y4 R10 Y9 Y1", {1: "Y"}, 2),  # L6: yellow led
    ],
)
def test_l4_l5_l6_trick_winner(moves: str, voids: dict[int, str], winner: int) -> None:
    assert trick_winner(cards(moves)) == winner
    fixed = dict(enumerate(moves.split()))
    state = luz_position(fixed, voids=voids)
    bet_all(state)
    play(state, *enumerate(moves.split()))
    assert state.tricks_won()[winner] == 1
    assert state.current_player() == winner  # the winner leads the next trick


def test_l7_l8_l9_scoring_with_the_placeholder_table() -> None:
    assert [deal_score(t, 3, 0, 2) for t in (3, 5, 0)] == [20, -10, -15]
    assert [deal_score(t, 2, 1, 2) for t in (2, 3, 4, 1)] == [10, 10, -10, -5]
    assert deal_score(3, 2, 1, 4) == 20
    assert [deal_score(t, 0, 1, 1) for t in (0, 1, 2)] == [5, 5, -10]


def test_l10_bets_are_unrestricted() -> None:
    state = luz_position({})
    bet_all(state, "3 4 2 3")
    assert state.observation(None).bets == ((3, 0), (4, 0), (2, 0), (3, 0))
    assert state.observation(None).phase == "play"
    limited = load_game("luz", players=4, bet_bead_supply=15).new_initial_state(seed=1)
    limited.resolve_chance()
    bet_all(limited, "9 5")
    with pytest.raises(IllegalActionError, match="only 1 bet beads are left"):
        limited.apply_string("bet 2")


def test_l11_final_ranking_and_tie_breaks() -> None:
    # Deal 4's first player is D (seat 3).
    assert final_ranking([55, 55, 40, 30], [20, 10, 0, 0], 3)[0] == 0
    assert final_ranking([55, 55, 40, 30], [20, 20, 0, 0], 3)[0] == 0
    assert final_ranking([55, 55, 40, 30], [20, 20, 0, 0], 1)[0] == 1
    game = load_game("luz", players=4, first_player="P1")
    final = random_playthrough(game.new_initial_state(seed=2), random.Random(2))[-1]
    assert final.observation(None).past_deals[-1].first_player == 3


def test_l12_information_model() -> None:
    state = luz_position({0: "R2 R9 Y5 G1 G7 G8 B3 P6 P9 P10"})
    own = state.observation(0)
    assert own.colours[0] == (0, 0, 1, 2, 2, 2, 3, 4, 4, 4)
    assert own.values[0] == (None,) * 10
    for other in (1, 2, 3):
        assert state.observation(other).values[0] == (2, 9, 5, 1, 7, 8, 3, 6, 9, 10)
    bet_all(state)
    state.apply_string("play 4")
    seen = state.observation(0)
    assert seen.trick[0].card == string_to_card("G7")
    assert all(value < 7 for value in seen.knowledge[3] or ())
    assert all(value > 7 for value in seen.knowledge[5] or ())
    assert 1 in (seen.knowledge[3] or ()) and 8 in (seen.knowledge[5] or ())


# -- knowledge against brute force ----------------------------------------------------------


def brute_force_possible(
    slot_colours: list[int], revealed: dict[int, int], unknown: set[int]
) -> list[set[int]]:
    hidden = [slot for slot in range(len(slot_colours)) if slot not in revealed]
    possible: list[set[int]] = [set() for _ in slot_colours]
    # Every way to fill the hidden slots in order (a hand is sorted, so no other order can
    # pass): each set of unknown cards, sorted, is one candidate hand.
    for chosen in itertools.combinations(sorted(unknown), len(hidden)):
        hand = dict(revealed) | dict(zip(hidden, chosen, strict=True))
        ordered = [hand[slot] for slot in range(len(slot_colours))]
        if any(colour_of(c) != slot_colours[s] for s, c in enumerate(ordered)):
            continue
        if ordered != sorted(ordered):
            continue
        for slot in hidden:
            possible[slot].add(value_of(hand[slot]))
    return possible


def possible_values(gaps: list[Gap], hand_size: int) -> list[tuple[int, ...] | None]:
    """For each slot, the values it may still hold, from its gaps (``None``: no gap's): the
    deduction from what a seat saw alone, as a reference."""
    possible: list[tuple[int, ...] | None] = [None] * hand_size
    for _, slots, candidates in gaps:
        values = [candidate % MAX_VALUE + 1 for candidate in candidates]
        spare = len(candidates) - len(slots) + 1
        for index, slot in enumerate(slots):
            possible[slot] = tuple(values[index : index + spare])
    return possible


@pytest.mark.slow
@settings(max_examples=150)
@given(data=st.data())
def test_knowledge_matches_brute_force_on_small_decks(data: st.DataObject) -> None:
    colours, values = data.draw(st.integers(2, 3)), data.draw(st.integers(3, 6))
    small_deck = [
        card(colour, value) for colour in range(colours) for value in range(1, values + 1)
    ]
    hand_size = data.draw(st.integers(2, min(6, len(small_deck) - 1)))
    hand = sorted(data.draw(st.permutations(small_deck))[:hand_size])
    revealed = {slot: hand[slot] for slot in range(hand_size) if data.draw(st.booleans())}
    others = [c for c in small_deck if c not in hand]
    seen_elsewhere = set(
        data.draw(st.permutations(others))[: data.draw(st.integers(0, len(others)))]
    )
    unknown = set(small_deck) - seen_elsewhere - set(revealed.values())
    slot_colours = [colour_of(c) for c in hand]
    expected = brute_force_possible(slot_colours, revealed, unknown)
    computed = possible_values(hand_gaps(slot_colours, revealed, unknown), hand_size)
    # The engine's way, colour by colour: the hand as it is (played slots negative) and the
    # unseen cards out of it (set aside).
    held = [-1 if slot in revealed else c for slot, c in enumerate(hand)]
    by_engine: list[tuple[int, ...] | None] = [None] * hand_size
    for colour in range(colours):
        slots = [slot for slot, c in enumerate(hand) if colour_of(c) == colour]
        aside = sorted(c for c in unknown - set(hand) if colour_of(c) == colour)
        colour_values(by_engine, slots, hand, held, aside, colour * MAX_VALUE)
    assert by_engine == computed
    for slot in range(hand_size):
        if slot in revealed:
            assert computed[slot] is None
        else:
            assert set(computed[slot] or ()) == expected[slot]
            assert value_of(hand[slot]) in expected[slot]


def test_sampling_is_uniform_over_consistent_hands() -> None:
    # Green slots around a revealed G5, yellow slots with no reveal: 6 * 3 * 3 = 54 hands.
    slot_colours = [1, 1, 2, 2, 2, 2]
    revealed = {3: card(2, 5)}
    unknown = {card(1, v) for v in (2, 4, 7)} | {card(2, v) for v in (1, 2, 3, 4, 6, 8, 9)}
    gaps = hand_gaps(slot_colours, revealed, unknown)
    rng = random.Random(7)
    draws = 54_000
    counts = Counter(tuple(sorted(sample_hand(gaps, rng).items())) for _ in range(draws))
    consistent = {
        tuple(sorted({s: c for s, c in enumerate(h) if s not in revealed}.items()))
        for h in itertools.permutations(sorted(unknown), 5)
        for h in [[*h[:3], revealed[3], *h[3:]]]
        if [colour_of(c) for c in h] == slot_colours and list(h) == sorted(h)
    }
    assert set(counts) == consistent
    assert len(consistent) == 3 * 4 * 3
    expected = draws / len(consistent)
    assert all(abs(count - expected) < 5 * expected**0.5 for count in counts.values())
    chi_square = sum((count - expected) ** 2 / expected for count in counts.values())
    assert chi_square < 80  # 35 degrees of freedom: p < 0.001 above ~66


# -- properties over random games -----------------------------------------------------------

players_st = st.integers(min_value=3, max_value=5)
seed_st = st.integers(min_value=0, max_value=2**32)
SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])


def game_states(players: int, seed: int) -> list[LuzState]:
    state = load_game("luz", players=players).new_initial_state(seed)
    assert isinstance(state, LuzState)
    return random_playthrough(state, random.Random(seed))  # type: ignore[arg-type, return-value]


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])  # a test each: they run in parallel
@settings(max_examples=4, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seed_st, rotates=st.booleans())
def test_luz_conforms(players: int, seed: int, rotates: bool) -> None:
    """The conformance kit: termination, cards, notation, clones, refusals, samples, records."""
    game = load_game("luz", players=players, first_player_rotates=rotates)
    check_game(game, games=1, seed=seed, every=11)


@SETTINGS
@given(players=players_st, seed=st.integers(min_value=10**12, max_value=2**62))
def test_no_seat_ever_sees_its_own_values(players: int, seed: int) -> None:
    for state in game_states(players, seed)[::7]:
        for seat in range(players):
            observation = state.observation(seat)
            assert all(value is None for value in observation.values[seat])
            text = json.dumps(observation.to_dict())
            assert str(seed) not in text
            own = {card_to_string(c) for c in state.hand(seat)}
            shown = observation.to_dict()["hands"][seat]
            assert not own & set(shown)
            for slot, held in enumerate(state._hands[seat]):
                if held >= 0:
                    assert value_of(held) in (observation.knowledge[slot] or ())
        assert all(value is None for values in state.observation(None).values for value in values)


@SETTINGS
@given(players=players_st, seed=seed_st)
def test_sampled_states_match_the_observation(players: int, seed: int) -> None:
    rng = random.Random(seed)
    positions = [s for s in game_states(players, seed) if s.current_player() >= 0][::9]
    for state in positions:
        seat = state.current_player()
        observation = state.observation(seat)
        sample = state.game.sample_state(observation, rng)
        assert sample.observation(seat) == observation
        assert sorted(sample.legal_actions()) == sorted(state.legal_actions())
        spectator = state.observation(None)
        assert state.game.sample_state(spectator, rng).observation(None) == spectator


def knowledge_from_the_observation(observation: LuzObservation, deck: list[int]) -> list[object]:
    """What the seat can deduce, from scratch: the cards it has not seen are the deck less
    the others' cards and every card played."""
    seat = observation.seat
    assert seat is not None
    plays = [p for t in observation.completed_tricks for p in t.plays] + list(observation.trick)
    seen = {play.card for play in plays}
    for other, (colours, values) in enumerate(
        zip(observation.colours, observation.values, strict=True)
    ):
        if other != seat:
            seen.update(card(c, v) for c, v in zip(colours, values, strict=True) if v is not None)
    revealed = {play.slot: play.card for play in plays if play.seat == seat}
    slot_colours = [
        colour_of(revealed[slot]) if slot in revealed else colour
        for slot, colour in enumerate(observation.colours[seat])
    ]
    unknown = set(deck) - seen
    return possible_values(hand_gaps(slot_colours, revealed, unknown), len(slot_colours))


@SETTINGS
@given(players=players_st, seed=seed_st)
def test_knowledge_kept_up_to_date_equals_knowledge_deduced_afresh(players: int, seed: int) -> None:
    """As a server does: every seat's observation after every move, on the table's state,
    so that a seat's knowledge is deduced once and then updated as it plays."""
    state = load_game("luz", players=players).new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            state.resolve_chance(rng)
            continue
        for seat in range(players):
            observation = state.observation(seat)
            if observation.colours[seat]:
                expected = knowledge_from_the_observation(observation, state.game.deck)
                assert list(observation.knowledge) == expected
        following = state.clone()
        following.apply_action(rng.choice(state.legal_actions()))
        state = following


def test_a_shorter_game_shows_its_own_number_of_deals() -> None:
    """A game of two deals (an option that shrinks it) says "of 2", on the table in a
    terminal as in the observation a client reads."""
    state = load_game("luz", players=4, deals=2).new_initial_state(seed=5)
    state.resolve_chance()
    observation = state.observation(0)
    assert isinstance(observation, LuzObservation) and observation.deals == 2
    assert state.view(0)["deals"] == 2
    console = Console(width=120, record=True)
    console.print(render_state(state, 0, "en"))
    assert "Deal 1 of 2" in console.export_text()
    console = Console(width=120, record=True)
    console.print(render_state(state, 0, "fr"))
    assert "Donne 1 sur 2" in console.export_text()
