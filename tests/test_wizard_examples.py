"""The worked examples W1–W15 of the Wizard rules specification, one test each."""

from __future__ import annotations

import pytest

from tapisvert import IllegalActionError, load_game
from tapisvert.games.wizard import NO_TRUMP, string_to_card, trick_winner
from tapisvert.games.wizard.cards import round_score

from conftest import legal_strings, wizard_position


def cards(text: str) -> list[int]:
    return [string_to_card(word) for word in text.split()]


@pytest.mark.parametrize(("players", "rounds"), [(3, 20), (4, 15), (5, 12), (6, 10)])
def test_w1_game_length_and_last_round(players: int, rounds: int) -> None:
    game = load_game("wizard", players=players)
    assert len(game.round_numbers) == rounds
    last = load_game("wizard", players=players, rounds=str(rounds))
    state = last.new_initial_state(seed=players)
    state.resolve_chance()
    assert all(len(state.hand(seat)) == 60 // players for seat in range(players))
    assert state.undealt() == []
    observation = state.observation(0)
    assert observation.trump_card is None
    assert observation.trump == NO_TRUMP


def test_w2_trump_from_the_turned_card() -> None:
    hands = [["B1", "B2", "B3"], ["R1", "R2", "R3"], ["G1", "G2", "G3"], ["Y1", "Y2", "Y3"]]
    green = wizard_position(hands, turned="G9", bids=[])
    assert green.trump == 2
    jester = wizard_position(hands, turned="J", bids=[])
    assert jester.trump == NO_TRUMP
    wizard = wizard_position(hands, turned="W", bids=[])
    assert wizard.current_player() == 3  # the dealer, P4, chooses
    assert wizard.observation(3).hand == tuple(cards("Y1 Y2 Y3"))
    assert legal_strings(wizard) == {"B", "R", "G", "Y"}
    with pytest.raises(IllegalActionError):
        wizard.apply_string("trump -")
    wizard.apply_string("trump R")
    assert wizard.trump == 1


def test_w3_follow_suit_with_specials_allowed() -> None:
    hands = [
        ["R7", "G1", "G2", "G3"],
        ["R3", "B9", "W", "J"],
        ["Y1"] * 0 + ["Y1", "Y2", "Y3", "Y4"],
        ["B1", "B2", "B3", "B4"],
    ]
    state = wizard_position(hands, turned="G9", plays=["R7"])
    assert legal_strings(state) == {"R3", "W", "J"}
    with pytest.raises(IllegalActionError, match="you must follow red: you hold R3"):
        state.apply_string("play B9")


def test_w4_void_in_led_suit() -> None:
    hands = [["R7", "G1", "G2"], ["B9", "G3", "J"], ["Y1", "Y2", "Y3"], ["B1", "B2", "B3"]]
    hands[1] = ["B9", "G2", "J"]
    hands[0] = ["R7", "G1", "G4"]
    state = wizard_position(hands, turned="G9", plays=["R7"])
    assert legal_strings(state) == {"B9", "G2", "J"}


def test_w5_wizard_led() -> None:
    hands = [
        ["W", "G1", "G2", "G3"],
        ["R3", "B9", "J", "W"],
        ["Y1", "Y2", "Y3", "Y4"],
        ["B1", "B2", "B3", "B4"],
    ]
    state = wizard_position(hands, turned="G9", plays=["W"])
    assert legal_strings(state) == {"R3", "B9", "J", "W"}


def test_w6_jester_led_second_card_fixes_suit() -> None:
    hands = [["J", "G1", "G4"], ["R3", "B9", "G5"], ["B2", "G13", "W"], ["Y1", "Y2", "Y3"]]
    hands[1] = ["R3", "B9", "Y4"]
    state = wizard_position(hands, turned="G9", plays=["J"])
    assert legal_strings(state) == {"R3", "B9", "Y4"}
    state.apply_string("play B9")
    assert legal_strings(state) == {"B2", "W"}


def test_w7_two_jesters_then_a_suit_card() -> None:
    hands = [["J", "B1"], ["J", "B2"], ["G4", "B3"], ["G1", "R12"]]
    state = wizard_position(hands, turned="Y9", plays=["J", "J", "G4"])
    assert legal_strings(state) == {"G1"}


def test_w8_jester_led_wizard_second() -> None:
    hands = [["J", "B1"], ["W", "B2"], ["R3", "B9"], ["Y1", "Y2"]]
    state = wizard_position(hands, turned="G9", bids=[0, 1, 0, 0], plays=["J", "W"])
    assert legal_strings(state) == {"R3", "B9"}
    state.apply_string("play R3")
    state.apply_string("play Y1")
    assert state.tricks_won() == (0, 1, 0, 0)
    assert trick_winner(cards("J W R3 Y1"), NO_TRUMP) == 1


def test_w9_trump_beats_led_suit() -> None:
    assert trick_winner(cards("R7 R12 B2 J"), 0) == 2
    hands = [["R7"], ["R12"], ["B2"], ["J"]]
    state = wizard_position(hands, turned="B5", plays=["R7", "R12", "B2", "J"])
    assert state.returns()[2] == -10  # P3 bid 0 but took the trick


def test_w10_first_wizard_wins() -> None:
    assert trick_winner(cards("G5 W R13 W"), 1) == 1
    hands = [["G5"], ["W"], ["R13"], ["W"]]
    state = wizard_position(hands, turned="R1", bids=[0, 1, 0, 0], plays=["G5", "W", "R13", "W"])
    assert state.returns() == [20.0, 30.0, 20.0, 20.0]


def test_w11_all_jesters_first_wins() -> None:
    hands = [["J"], ["J"], ["J"], ["J"]]
    # Dealer P2, so P3 bids first (bid 1) and leads.
    state = wizard_position(hands, turned="B1", dealer=1, bids=[1, 0, 0, 0], plays=["J"] * 4)
    assert state.returns() == [20.0, 20.0, 30.0, 20.0]


def test_w12_no_trump_round() -> None:
    assert trick_winner(cards("Y4 Y11 B13 Y10"), NO_TRUMP) == 1
    hands = [["Y4"], ["Y11"], ["B13"], ["Y10"]]
    state = wizard_position(hands, turned="J", bids=[0, 1, 0, 0], plays=["Y4", "Y11", "B13", "Y10"])
    assert state.returns() == [20.0, 30.0, 20.0, 20.0]


@pytest.mark.parametrize(
    ("bid", "took", "points"), [(0, 0, 20), (3, 3, 50), (2, 5, -30), (4, 1, -30), (1, 0, -10)]
)
def test_w13_scoring(bid: int, took: int, points: int) -> None:
    assert round_score(bid, took) == points


def test_w14_canadian_rule() -> None:
    hands = [[f"B{value}" for value in range(1 + 5 * seat, 6 + 5 * seat)] for seat in range(2)]
    hands += [[f"R{value}" for value in range(1, 6)], [f"G{value}" for value in range(1, 6)]]
    state = wizard_position(hands, turned="Y1", dealer=0, bids=[1, 2, 0], canadian=True)
    assert state.current_player() == 0
    assert legal_strings(state) == {"0", "1", "3", "4", "5"}
    with pytest.raises(IllegalActionError, match="may not bid 2"):
        state.apply_string("bid 2")
    small = wizard_position(
        [["B1"], ["B2"], ["B3"]], turned="Y1", dealer=0, bids=[0, 0], canadian=True
    )
    assert legal_strings(small) == {"0"}
    free = wizard_position([["B1"], ["B2"], ["B3"]], turned="Y1", dealer=0, bids=[0, 0])
    assert legal_strings(free) == {"0", "1"}


def test_w15_cumulative_game() -> None:
    game = load_game("wizard", players=3, rounds="1,2,3", first_dealer="P3")
    state = game.new_initial_state()
    rounds = [
        # dealer, hands (P1, P2, P3), turned, bids in order, plays in order
        (2, [["W"], ["B1"], ["B2"]], "G1", [1, 0, 0], ["W", "B1", "B2"]),
        (
            0,
            [["J", "J"], ["W", "B3"], ["B4", "B5"]],
            "J",
            [1, 0, 1],
            ["W", "B4", "J", "B3", "B5", "J"],
        ),
        (
            1,
            [["W", "W", "J"], ["J", "J", "J"], ["W", "B1", "B2"]],
            "B3",
            [1, 2, 1],
            ["W", "J", "J", "B1", "W", "J", "W", "J", "B2"],
        ),
    ]
    expected_totals = [[30, 20, 20], [20, 50, 10], [60, 40, 40]]
    for (dealer, hands, turned, bids, plays), totals in zip(rounds, expected_totals, strict=True):
        size = len(hands[0])
        for index in range(3 * size):
            seat = (dealer + 1 + index) % 3
            state.apply_string(f"deal {hands[seat][index // 3]}")
        state.apply_string(f"turn {turned}")
        for bid in bids:
            state.apply_string(f"bid {bid}")
        for card in plays:
            state.apply_string(f"play {card}")
        assert state.returns() == [float(total) for total in totals]
    assert state.is_terminal()
    assert state.winners() == [0]
    summary = state.observation(None).past_rounds
    assert [round_.points for round_ in summary] == [(30, 20, 20), (-10, 30, -10), (40, -10, 30)]
