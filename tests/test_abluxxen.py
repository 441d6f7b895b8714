"""Abluxxen: the worked examples A1–A13 and property tests over random games."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapisvert import CHANCE, IllegalActionError, OptionError, load_game
from tapisvert.core.tuples import added, replaced
from tapisvert.games.abluxxen import AbluxxenState, CardSet, legal_sets, set_to_string
from tapisvert.games.abluxxen.bot import AbluxxenHeuristicBot
from tapisvert.games.abluxxen.cards import DECK_COUNTS, JOKER, counts_of, string_to_set
from tapisvert.games.abluxxen.rules import GameSummary, set_action
from tapisvert.games.abluxxen.search import heuristic_in_play_out
from tapisvert.testing import check_game

from conftest import random_playthrough

A, B, C, D = range(4)


def kinds(text: str) -> list[int]:
    return [JOKER if word == "X" else int(word) for word in text.split()]


def position(
    hands: list[str],
    stacks: list[str] | None = None,
    display: str = "1 2 3 4 5 6",
    pile: str | None = None,
    duel: bool = False,
    dummy: str = "",
    **options: object,
) -> AbluxxenState:
    """A position at the start of A's turn. ``stacks`` hold sets like ``5x3`` or ``13x1+J``;
    the pile holds ``pile`` (default: every card not placed elsewhere)."""
    game = load_game("abluxxen", players=len(hands), start_player="P1", duel=duel, **options)
    state = game.new_initial_state()
    assert isinstance(state, AbluxxenState)
    state._hands = tuple(counts_of(kinds(hand)) for hand in hands)
    state.lay_stacks(
        tuple(
            tuple(string_to_set(s) for s in (stack.split() if stack else []))
            for stack in (stacks or [""] * len(hands))
        )
    )
    state._display = tuple((card,) for card in kinds(display))
    state._dummy = counts_of(kinds(dummy))
    state._deal_queue = ()
    placed = [c for hand in hands for c in kinds(hand)] + kinds(display) + kinds(dummy)
    placed += [c for stack in state._stacks for played in stack for c in played.cards()]
    remaining = list(DECK_COUNTS)
    for card in placed:
        remaining[card] -= 1
    assert min(remaining) >= 0
    state._pile = counts_of(kinds(pile)) if pile is not None else tuple(remaining)
    state._begin_turn()
    return state


def test_a1_legal_plays() -> None:
    sets = {set_to_string(s) for s in legal_sets(counts_of(kinds("5 5 7 X")))}
    assert sets == {"5x1", "5x2", "5x1+J", "5x2+J", "7x1", "7x1+J", "J"}
    state = position(["5 5 7 X", "1", "1", "1"])
    with pytest.raises(IllegalActionError, match="you cannot play 5x3"):
        state.apply_string("set 5x3")
    with pytest.raises(IllegalActionError, match="is not a set"):
        state.apply_string("set 5+7")


@given(st.tuples(*(st.integers(0, most) for most in DECK_COUNTS)))
def test_a_hand_offers_every_set_it_can_play_in_order(hand: tuple[int, ...]) -> None:
    """The moves offered (read from tables by value) are ``legal_sets``' sets, in its order."""
    state = position(["1", "2"])
    state._hands = (hand, state._hands[1])
    assert state.legal_actions() == [set_action(played) for played in legal_sets(hand)]


def test_a2_size_and_value_must_both_fit() -> None:
    state = position(["7 7 7 1", "2", "2", "2"], ["", "5x3", "4x2", "9x3"])
    state.apply_string("set 7x3")
    assert state.observation(None).victim == B
    assert state.observation(None).pending_steals == ()


def test_a3_jokers_alone_count_fourteen() -> None:
    state = position(["X X 1", "2", "2", "2"], ["", "13x2", "Jx2", "13x1+J"])
    state.apply_string("set Jx2")
    assert state.observation(None).victim == B
    assert state.observation(None).pending_steals == (D,)


def test_a4_jokers_take_the_value_of_their_numbers() -> None:
    state = position(["9 X X 1", "2", "2", "2"], ["", "8x2+J", "10x3", ""])
    state.apply_string("set 9x1+2J")
    assert state.observation(None).victim == B
    assert state.observation(None).pending_steals == ()


def test_a5_take_then_draw_card_by_card_then_refill() -> None:
    state = position(
        ["9 9 9 1", "2", "2", "2"], ["", "5x3", "", ""], display="2 4 4 9 11 13", pile="6 1 8 3 3"
    )
    state.apply_string("set 9x3")
    state.apply_string("take")
    assert sorted(state.hand(A)) == kinds("1 5 5 5")
    assert state.observation(None).known_in_hand[A] == (5, 5, 5)
    assert state.current_player() == B
    state.apply_string("draw display 6")  # the 13
    state.apply_string("draw display 5")  # the 11
    assert [entry[0] for entry in state._display] == kinds("2 4 4 9")
    state.apply_string("draw pile")
    state.apply_string("pile 6")
    assert sorted(state.hand(B)) == kinds("2 6 11 13")
    assert state.observation(A).known_in_hand[B] == (11, 13)
    state.apply_string("refill 1")
    state.apply_string("refill 8")
    assert [entry[0] for entry in state._display] == kinds("2 4 4 9 1 8")
    assert state.observation(None).stacks[B] == ()


@pytest.mark.parametrize("choice", ["keep", "discard"])
def test_a6_decline_then_keep_or_discard(choice: str) -> None:
    state = position(["9 9 9 1", "2", "2", "2"], ["", "5x3", "", ""])
    state.apply_string("set 9x3")
    state.apply_string("decline")
    assert state.current_player() == B
    state.apply_string(choice)
    if choice == "keep":
        assert sorted(state.hand(B)) == kinds("2 5 5 5")
        assert state.current_player() == B  # B's own turn now: nothing to draw
        assert state.observation(None).phase == "play"
    else:
        assert state.observation(None).discard == (5, 5, 5)
        assert state.observation(None).drawer == B
        assert state.observation(None).draws_left == 3


def test_a7_order_of_resolution() -> None:
    state = position(["10 10 1", "2", "2", "2"], ["", "6x2", "9x2", ""])
    state.apply_string("set 10x2")
    assert state.observation(None).victim == B
    assert state.observation(None).pending_steals == (C,)
    state.apply_string("decline")
    state.apply_string("keep")
    assert state.observation(None).victim == C


def test_a8_last_card_ends_the_game_before_steals() -> None:
    state = position(["8 8", "2", "2 2", "2"], ["", "", "3x2", ""])
    state.apply_string("set 8x2")
    assert state.is_terminal()
    assert state.observation(None).stacks[C] == (CardSet(3, 2, 0),)


def test_a9_exhaustion_mid_turn() -> None:
    state = position(["3 3 3 1", "5", "5", "5"], ["", "2x3", "1x3", ""], display="4 12", pile="")
    state.apply_string("set 3x3")
    state.apply_string("take")
    state.apply_string("draw display 2")
    state.apply_string("draw display 1")
    assert state.is_terminal()
    assert sorted(state.hand(B)) == kinds("4 5 12")
    assert state.observation(None).stacks[C] == (CardSet(1, 3, 0),)


def test_a10_a11_scoring_and_ties() -> None:
    state = position(["", "1 1 1 1 1 1", "1 1", "2 2 2 2 2 2 2 2 3 3 3"], display="")
    state.lay_stacks(
        (
            (CardSet(13, 7, 0), CardSet(12, 7, 0)),
            (CardSet(11, 8, 0), CardSet(10, 1, 0)),
            (CardSet(9, 8, 0), CardSet(8, 3, 0)),
            (CardSet(7, 4, 0),),
        )
    )
    assert state.returns() == [14.0, 3.0, 9.0, -7.0]
    assert state.winners() == [A]
    state._hands = (counts_of(kinds("4")), counts_of([]), counts_of(kinds("5 5 5")), counts_of([]))
    state.lay_stacks(
        (
            (CardSet(13, 7, 0), CardSet(12, 3, 0)),
            (),
            (CardSet(11, 8, 0), CardSet(10, 4, 0)),
            (),
        )
    )
    assert state.returns()[A] == state.returns()[C] == 9.0
    assert state.winners() == [A, C]


def test_a_series_adds_the_games_and_moves_the_start_player_left() -> None:
    """Rules section 7: as many games as players, the start player one seat to the left."""
    state = position(["8 8", "1 2", "3 4"], display="5 6", series=True)
    state.apply_string("set 8x2")  # A's hand is empty: game 1 ends, 2 - 0, 0 - 2, 0 - 2
    first = GameSummary(1, A, (2, -2, -2))
    observed = state.observation(B)
    assert state.current_player() == CHANCE and not state.is_terminal()
    assert (observed.game_number, observed.games, observed.starter) == (2, 3, B)
    assert observed.past_games == (first,)
    assert observed.scores == (2, -2, -2) and observed.game_scores == (0, 0, 0)
    assert observed.hand_sizes == (0, 0, 0) and observed.stacks == ((), (), ())
    assert state.segment() == 1
    state.resolve_chance(random.Random(5))
    assert state.current_player() == B and len(state.hand(B)) == 13
    assert state.returns() == [2.0 + state.score(A), -2.0 + state.score(B), -2.0 + state.score(C)]
    states = random_playthrough(state, random.Random(5))
    final = states[-1]
    assert isinstance(final, AbluxxenState) and final.is_terminal()
    summaries = final.observation(None).past_games
    assert [(g.game_number, g.starter) for g in summaries] == [(1, A), (2, B), (3, C)]
    totals = [sum(g.points[seat] for g in summaries) for seat in range(3)]
    assert summaries[-1].points == tuple(final.score(seat) for seat in range(3))
    assert final.returns() == [float(total) for total in totals]
    assert final.winners() == [seat for seat in range(3) if totals[seat] == max(totals)]
    assert final.observation(A).to_dict()["past_games"][0] == first._asdict()


def test_a_series_to_a_target_ends_with_the_game_that_reaches_it() -> None:
    game = load_game("abluxxen", players=3, series_target="25")
    assert game.games is None
    states = random_playthrough(game.new_initial_state(seed=8), random.Random(8))
    games = states[-1].observation(None).past_games
    running = [
        sum(g.points[seat] for g in games[: count + 1])
        for count in range(len(games))
        for seat in range(3)
    ]
    assert max(running[-3:]) >= 25 > max(running[:-3], default=0)
    with pytest.raises(OptionError, match="series target is a score of at least 1"):
        load_game("abluxxen", players=3, series_target=0)
    with pytest.raises(OptionError, match="series_target"):
        load_game("abluxxen", players=3, series_target="-5")


def test_a12_duel_dummy_first_then_the_opponent() -> None:
    state = position(["8 8 3", "1"], ["", "5x2"], dummy="1 1 2 4 4 4 6 7 7 9 10 11 12", duel=True)
    state.apply_string("set 8x2")
    # The imaginary player is resolved first (A chooses now); B waits its turn.
    assert state.observation(None).phase == "dummy_choice"
    assert state.observation(None).pending_steals == (B,)
    assert state.current_player() == A
    assert {state.action_to_string(a) for a in state.legal_actions()} == {
        "steal dummy 1",
        "steal dummy 7",
    }
    state.apply_string("steal dummy 7")
    assert sorted(state.hand(A)) == kinds("3 7 7")
    while state.is_chance_node():
        state.apply_string("dummy 5")
    assert len(state.observation(None).dummy) == 13
    assert state.observation(None).victim == B


def test_a13_duel_thirteen_goes_on_the_display() -> None:
    state = position(
        ["8 8 3", "1"],
        ["", ""],
        display="2 3 5 8 9 11",
        dummy="1 1 2 4 4 4 6 7 7 9 10 11 12",
        duel=True,
    )
    state.apply_string("set 8x2")
    state.apply_string("steal dummy 1")
    state.apply_string("dummy 13")
    assert state.observation(None).display[0] == (2, 13)
    state.apply_string("dummy 5")
    state.apply_string("dummy 6")
    # Later, B draws "2+13" as one draw.
    state._hands = replaced(state._hands, B, counts_of(kinds("1")))
    state._owe(B, 2)
    state._advance()
    state.apply_string("draw display 1")
    state.apply_string("draw display 1")
    assert sorted(state.hand(B)) == kinds("1 2 3 13")


def test_duel_setup() -> None:
    state = load_game("abluxxen", players=2, duel=True).new_initial_state(seed=3)
    state.resolve_chance()
    observed = state.observation(None)
    assert observed.hand_sizes == (13, 13)
    assert all(state.hand(seat).count(JOKER) >= 2 for seat in (0, 1))
    assert len(observed.dummy) == 13
    assert 13 not in observed.dummy and JOKER not in observed.dummy


# -- properties -----------------------------------------------------------------------------

players_st = st.integers(min_value=2, max_value=5)
seed_st = st.integers(min_value=0, max_value=2**32)
SETTINGS = settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])


def game_states(
    players: int, seed: int, duel: bool = False, series: bool = False
) -> list[AbluxxenState]:
    game = load_game("abluxxen", players=players, duel=duel and players == 2, series=series)
    return random_playthrough(game.new_initial_state(seed), random.Random(seed))  # type: ignore[arg-type, return-value]


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])  # a test each: they run in parallel
@settings(max_examples=6, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seed_st, duel=st.booleans(), series=st.booleans())
def test_abluxxen_conforms(players: int, seed: int, duel: bool, series: bool) -> None:
    """The conformance kit: termination, all 109 cards, notation, clones, refusals, samples,
    records."""
    game = load_game("abluxxen", players=players, duel=duel and players == 2, series=series)
    check_game(game, games=1, seed=seed, every=11)
    assert sum(DECK_COUNTS) == 109


@SETTINGS
@given(
    players=players_st,
    seed=st.integers(min_value=10**12, max_value=2**62),
    duel=st.booleans(),
    series=st.booleans(),
)
def test_hidden_cards_do_not_leak(players: int, seed: int, duel: bool, series: bool) -> None:
    """Swapping an unknown card of a hand with a pile card changes no other seat's view."""
    rng = random.Random(seed)
    for state in game_states(players, seed, duel, series)[::5]:
        for seat in range(players):
            assert str(seed) not in json.dumps(state.observation(seat).to_dict())
        for owner in range(players):
            unknown = [
                card for card in range(14) if state._hands[owner][card] > state._known[owner][card]
            ]
            in_pile = [card for card in range(14) if state._pile[card]]
            if not unknown or not in_pile:
                continue
            out, into = rng.choice(unknown), rng.choice(in_pile)
            if out == into:
                continue
            swapped = state.clone()
            hand = added(added(swapped._hands[owner], out, -1), into, 1)
            swapped._hands = replaced(swapped._hands, owner, hand)
            swapped._pile = added(added(swapped._pile, into, -1), out, 1)
            for seat in range(players):
                if seat != owner:
                    assert swapped.observation(seat) == state.observation(seat)
            assert swapped.observation(None) == state.observation(None)


@SETTINGS
@given(players=players_st, seed=seed_st, duel=st.booleans(), series=st.booleans())
def test_the_play_outs_heuristic_plays_as_the_heuristic_bot(
    players: int, seed: int, duel: bool, series: bool
) -> None:
    """The move a play-out reads off the position is the heuristic bot's, from the seat's own
    view: the same at every decision of a game, and blind to the other hands."""
    rng = random.Random(seed)
    bot = AbluxxenHeuristicBot()
    for state in [s for s in game_states(players, seed, duel, series) if s.current_player() >= 0]:
        seat = state.current_player()
        legal = state.legal_actions()
        expected = bot.choose(state.observation(seat), legal, rng)
        assert heuristic_in_play_out(state, legal, rng) == expected
        assert state.seat_view(seat) == state.observation(seat).seat_view()


@SETTINGS
@given(players=players_st, seed=seed_st, duel=st.booleans(), series=st.booleans())
def test_sampled_states_match_the_observation(
    players: int, seed: int, duel: bool, series: bool
) -> None:
    rng = random.Random(seed)
    states = game_states(players, seed, duel, series)
    for state in [s for s in states if s.current_player() >= 0][::7]:
        seat = state.current_player()
        observation = state.observation(seat)
        sample = state.game.sample_state(observation, rng)
        assert sample.observation(seat) == observation
        assert sorted(sample.legal_actions()) == sorted(state.legal_actions())
        assert sample.every_card() == state.every_card()


@settings(max_examples=200)
@given(hand=st.lists(st.integers(0, 3), min_size=14, max_size=14))
def test_playable_agrees_with_the_listed_sets(hand: list[int]) -> None:
    from tapisvert.games.abluxxen.cards import is_playable

    listed = set(legal_sets(hand))
    candidates = [CardSet(v, n, j) for v in range(1, 15) for n in range(0, 4) for j in range(0, 4)]
    assert {played for played in candidates if is_playable(played, hand)} == listed
