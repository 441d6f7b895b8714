"""Fzzzt!: the worked examples F1–F14, set counting against brute force, and properties."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapisvert import IllegalActionError, load_game
from tapisvert.core.tuples import replaced, without
from tapisvert.games.fzzzt import DONE, FzzztState, card_named, completed_sets, unit_score
from tapisvert.games.fzzzt.cards import CARDS, SYMBOL_BITS, UNITS, strength, symbols
from tapisvert.games.fzzzt.rules import (
    GONE,
    HIDDEN,
    PHASE_PRODUCTION,
    Placement,
    bid_cards,
)
from tapisvert.testing import check_game

from conftest import random_playthrough


def c(text: str) -> list[int]:
    return [card_named(word) for word in text.split()]


def new_game(players: int = 3, mechanics: str = "M1 M2 M3", **options: object) -> FzzztState:
    """A game whose seats got the given mechanic cards, in seat order."""
    state = load_game("fzzzt", players=players, **options).new_initial_state(seed=1)
    assert isinstance(state, FzzztState)
    for mechanic in mechanics.split():
        state.apply_string(f"mechanic {mechanic}")
    return state


def piles_owned(state: FzzztState) -> tuple[tuple[int, ...], ...]:
    """Each seat's cards in hand, draw pile, discard pile and bid, sorted: what it owns."""
    return tuple(
        tuple(sorted((*hand, *draw, *discard, *(bid or ()))))
        for hand, draw, discard, bid in zip(
            state._hands, state._draw, state._discard, state._bids, strict=True
        )
    )


def set_up(state: FzzztState, **piles: tuple[tuple[int, ...], ...]) -> None:
    """Put cards in hands (``_hands``), draw or discard piles by hand, as a test's position
    needs: the rules keep what each seat owns as cards are won and placed, so it is counted
    again here."""
    for name, cards in piles.items():
        setattr(state, name, cards)
    for seat, owned in enumerate(piles_owned(state)):
        state._own(seat, owned)


def reveal(state: FzzztState, *names: str) -> None:
    for card in names:
        state.apply_string(f"reveal {card}")


def bid(state: FzzztState, *bids: str) -> None:
    for cards in bids:
        state.apply_string(f"bid {cards}")


def test_f1_setup_and_game_length() -> None:
    state = new_game()
    assert state.hand(0) == sorted(c("M1 S1a S1b S1c"))
    assert strength(state.hand(0)) == 6
    assert state.observation(None).chief == 0
    assert len(state.pool()) == 43
    assert set(c("S4a S4b S4c")) <= set(state.pool())
    for players, options, left in (
        (3, {}, 3),
        (3, {"unused_starting_robots": "box"}, 0),
        (2, {}, 6),
    ):
        game = load_game("fzzzt", players=players, **options)
        final = random_playthrough(game.new_initial_state(seed=players), random.Random(5))[-1]
        assert isinstance(final, FzzztState)
        assert final.is_terminal()
        assert final.observation(None).round == 5
        assert len(final.pool()) == left


def test_f2_belt_reveal() -> None:
    state = new_game()
    order = ["R21", "P04", "F1", "R09", "R02", "U1", "R13", "P10"]
    visible: list[int] = []
    revealed = 0
    for auction in range(8):
        while state.is_chance_node():
            reveal(state, order[revealed])
            revealed += 1
        belt = state.observation(None).belt
        visible.append(sum(1 for card in belt if card not in (HIDDEN, GONE)))
        while not state.is_chance_node() and state.observation(None).auction == auction:
            state.apply_action(state.legal_actions()[0])
            if state.observation(None).phase == "production":
                break
    assert visible == [1, 3, 2, 1, 4, 3, 2, 1]


def test_f3_auction_resolution() -> None:
    state = new_game()
    set_up(
        state, _hands=replaced(state._hands, 1, tuple(sorted((*state.hand(1), card_named("F2")))))
    )
    state._pool = without(state._pool, card_named("F2"))
    reveal(state, "R21")
    bid(state, "S1c S1a", "F2", "M3")
    result = state.observation(None).last_auction
    assert result is not None and result.winner == 0
    assert sorted(state.observation(None).discards[0]) == sorted(c("S1c S1a R21"))
    assert card_named("F2") in state.hand(1)
    assert card_named("M3") in state.hand(2)
    assert state.observation(None).chief == 1
    # A won production unit goes to the winner's area, not to the discard pile.
    state = new_game()
    reveal(state, "P04", "F1", "R09")
    bid(state, "S1c", "M2", "M3")
    assert state.observation(None).units[0] == ((card_named("P04"), ()),)


def test_f4_tie_goes_clockwise_from_the_chief() -> None:
    state = new_game()
    reveal(state, "R02", "R03", "R04", "R05")
    bid(state, "M1", "M2", "M3")  # chief A wins a tie at 0; the Chief passes to B
    bid(state, "S2c", "S3b", "S1c")  # B 3, C 2, A 3: clockwise from B → B wins
    assert state.observation(None).last_auction.winner == 1  # type: ignore[union-attr]
    bid(state, "S3b", "S1c", "S2a S2b")  # chief C: C 2, A 3, B 3 → A wins
    assert state.observation(None).last_auction.winner == 0  # type: ignore[union-attr]


def test_f5_bid_legality() -> None:
    state = new_game()
    reveal(state, "R02", "R03", "R04", "R05")
    bid(state, "S1c", "M2", "M3")
    assert state.hand(0) == sorted(c("M1 S1a S1b"))
    state.apply_string("bid M2")
    state.apply_string("bid M3")
    legal = state.legal_actions()
    assert len(legal) == 7
    assert sorted(strength(bid_cards(action)) for action in legal) == [0, 1, 1, 2, 2, 3, 3]
    with pytest.raises(IllegalActionError, match="at least one card"):
        state.apply_string("bid")
    with pytest.raises(IllegalActionError, match="you do not hold S1c"):
        state.apply_string("bid S1c")


def test_f6_only_one_player_has_cards() -> None:
    state = new_game()
    set_up(state, _hands=((card_named("R21"),), (), ()))
    state._pool = without(state._pool, card_named("R21"))
    reveal(state, "R22")
    assert state.current_player() == 0
    assert [state.action_to_string(a) for a in state.legal_actions()] == ["bid R21"]
    state.apply_string("bid R21")
    assert state.observation(None).last_auction.winner == 0  # type: ignore[union-attr]


def test_f7_mid_round_refill() -> None:
    state = new_game()
    reveal(state, "R02", "R03", "R04", "R05")
    discards = ["M1 S1a S1b S1c R21", "M2 S2a S2b S2c R22 R23 R24", "M3 S3a"]
    set_up(state, _hands=((), (), ()), _discard=tuple(tuple(c(cards)) for cards in discards))
    state._bidders = ()
    state._auction = 5
    state._begin_auction()
    while state.is_chance_node() and state.observation(None).phase == "draw":
        state.resolve_chance()
    observed = state.observation(None)
    assert observed.hand_sizes == (5, 6, 2)
    assert observed.draw_sizes == (0, 1, 0)
    assert observed.discards == ((), (), ())


def production_state(owned: str, units: str) -> FzzztState:
    state = new_game(players=2, mechanics="M1 M2")
    state._pool = tuple(card for card in state._pool if card not in c(owned) + c(units))
    set_up(state, _hands=replaced(state._hands, 0, tuple(sorted({*c(owned), *state.hand(0)}))))
    state._units = replaced(state._units, 0, tuple((unit, ()) for unit in c(units)))
    state._producers = (0,)
    state._placed_now = ()
    state._next_producer()
    return state


def test_f8_placement_legality() -> None:
    state = production_state("R03 S3a U1 F1", "P08")
    moves = {state.action_to_string(action) for action in state.legal_actions()}
    starting = {"place S1a on P08", "place S1c on P08"}  # A's own starting robots (BG, N)
    assert moves == {"place S3a on P08", "place U1 on P08", *starting, "done"}
    for illegal in ("place R03 on P08", "place F1 on P08", "place M1 on P08"):
        with pytest.raises(IllegalActionError, match="not allowed"):
            state.apply_string(illegal)
    state.apply_string("place S3a on P08")
    assert [state.action_to_string(action) for action in state.legal_actions()] == ["done"]


def test_f9_f10_f11_set_counting() -> None:
    p08, p02, p10, p04 = c("P08 P02 P10 P04")
    two_sets = [CARDS[card].symbols for card in c("R01 R05 R02 R07")]
    assert completed_sets(p08, two_sets) == 2 and unit_score(p08, two_sets) == 10
    one_set = [CARDS[card].symbols for card in c("S1a R07 R03")]
    assert completed_sets(p02, one_set) == 1 and unit_score(p02, one_set) == 9
    assert unit_score(p10, []) == -3
    assert unit_score(p04, [CARDS[card_named("R01")].symbols]) == -5


def test_f12_full_final_score() -> None:
    state = new_game()
    owned = c("M1 S1a S1b S1c R21 R17 U1 F1 F2")
    set_up(state, _hands=replaced(state._hands, 0, tuple(sorted(owned))))
    on_p08 = (Placement(card_named("R01"), -1), Placement(card_named("R02"), -1))
    state._units = replaced(state._units, 0, ((card_named("P08"), on_p08), (card_named("P10"), ())))
    # Robots 1+2+2+3+3+0 (+1+1 on P08) = 13, Fzzzt! -2, P08 one set +5, P10 empty -3.
    assert state.score(0) == 13


def test_f13_game_end_tie() -> None:
    state = new_game(players=2, mechanics="M1 M2")
    state._units = ((), ())
    set_up(
        state,
        _hands=(
            tuple(sorted(c("M1 S1a S1b S1c R09 R10 R11 R12 R13 R14"))),
            tuple(sorted(c("M2 R01 R02 R03 R04 R05 R06 R07 R08 R18 R19 R20"))),
        ),
    )
    assert state.returns() == [17.0, 17.0]
    assert (state.robot_count(0), state.robot_count(1)) == (9, 11)
    assert state.winners() == [0]
    set_up(state, _hands=(tuple(sorted(c("M1 R09 R10"))), tuple(sorted(c("M2 R11 R12")))))
    assert state.returns() == [4.0, 4.0]
    assert state.winners() == [0, 1]


def test_f14_chief_rotation_two_players() -> None:
    state = new_game(players=2, mechanics="M2 M1")
    chiefs = []
    while state.observation(None).round == 1:
        if state.is_chance_node():
            state.resolve_chance()
            continue
        observed = state.observation(None)
        if observed.phase == "bid" and (not chiefs or chiefs[-1][0] != observed.auction):
            chiefs.append((observed.auction, observed.chief))
        state.apply_action(state.legal_actions()[0] if observed.phase == "bid" else DONE)
    assert [chief for _, chief in chiefs] == [1, 0, 1, 0, 1, 0, 1, 0]
    while state.observation(None).phase != "bid":
        state.resolve_chance()
    assert state.observation(None).chief == 1


# -- set counting against brute force -------------------------------------------------------


def brute_force_sets(unit: int, supplies: list[int]) -> int:
    needed = [bit for bit in SYMBOL_BITS if CARDS[unit].symbols & bit]
    best = 0
    options = [[0, *(bit for bit in needed if offered & bit)] for offered in supplies]
    for choice in itertools.product(*options):
        best = max(best, min(choice.count(bit) for bit in needed))
    return best


@settings(max_examples=300)
@given(
    unit=st.sampled_from(UNITS),
    supplies=st.lists(st.integers(min_value=1, max_value=15), max_size=6),
)
def test_set_counting_matches_brute_force(unit: int, supplies: list[int]) -> None:
    assert completed_sets(unit, supplies) == brute_force_sets(unit, supplies)


# -- properties -----------------------------------------------------------------------------

players_st = st.integers(min_value=2, max_value=4)
seed_st = st.integers(min_value=0, max_value=2**32)
SETTINGS = settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])


def game_states(players: int, seed: int, versus: bool = False) -> list[FzzztState]:
    game = load_game("fzzzt", players=players, versus_scoring=versus)
    return random_playthrough(game.new_initial_state(seed), random.Random(seed))  # type: ignore[arg-type, return-value]


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])  # a test each: they run in parallel
@settings(max_examples=5, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seed_st, versus=st.booleans())
def test_fzzzt_conforms(players: int, seed: int, versus: bool) -> None:
    """The conformance kit: termination, cards, notation, clones, refusals, samples, records."""
    check_game(load_game("fzzzt", players=players, versus_scoring=versus), games=1, seed=seed)


@SETTINGS
@given(players=players_st, seed=st.integers(min_value=10**12, max_value=2**62))
def test_no_bid_or_hidden_card_is_visible_to_another_seat(players: int, seed: int) -> None:
    rng = random.Random(seed)
    for state in game_states(players, seed)[::4]:
        for seat in range(players):
            assert str(seed) not in json.dumps(state.observation(seat).to_dict())
        for other in range(players):
            swapped = state.clone()
            hand, bid = list(swapped._hands[other]), list(swapped._bids[other] or ())
            draw = list(swapped._draw[other])
            changed = False
            if hand and bid:
                i, j = rng.randrange(len(hand)), rng.randrange(len(bid))
                hand[i], bid[j] = bid[j], hand[i]
                swapped._bids = replaced(swapped._bids, other, tuple(bid))
                changed = True
            loose = [k for k, card in enumerate(hand) if card not in swapped._known_held[other]]
            if loose and draw:
                i, j = rng.choice(loose), rng.randrange(len(draw))
                hand[i], draw[j] = draw[j], hand[i]
                changed = True
            if not changed:
                continue
            swapped._hands = replaced(swapped._hands, other, tuple(sorted(hand)))
            swapped._draw = replaced(swapped._draw, other, tuple(sorted(draw)))
            for seat in range(players):
                if seat != other:
                    assert swapped.observation(seat) == state.observation(seat)


@SETTINGS
@given(players=players_st, seed=seed_st, versus=st.booleans())
def test_what_a_seat_owns_is_what_its_piles_hold(players: int, seed: int, versus: bool) -> None:
    """The owned cards the rules keep as cards are won and placed are, at every position, the
    cards in the seat's hand, draw pile, discard pile and sealed bid."""
    for state in game_states(players, seed, versus):
        assert tuple(held.owned for held in state._held) == piles_owned(state)
        assert [state.owned(seat) for seat in range(players)] == [*map(list, piles_owned(state))]


@SETTINGS
@given(players=players_st, seed=seed_st, versus=st.booleans())
def test_sampled_states_match_the_observation(players: int, seed: int, versus: bool) -> None:
    rng = random.Random(seed)
    for state in [s for s in game_states(players, seed, versus) if s.current_player() >= 0][::6]:
        seat = state.current_player()
        observation = state.observation(seat)
        sample = state.game.sample_state(observation, rng)
        assert sample.observation(seat) == observation
        assert sorted(sample.legal_actions()) == sorted(state.legal_actions())
        assert sample.every_card() == state.every_card()


def test_symbols_helper() -> None:
    assert symbols("NBGO") == 15


# -- the longest game -----------------------------------------------------------------------


def test_the_longest_game_is_counted_from_the_rules() -> None:
    game = load_game("fzzzt", players=4)
    # 5 rounds of 8 auctions with 4 bids, a done per seat and round, and the 38 robots.
    assert (game.rounds, game.placeable_items) == (5, 38)
    assert game.longest_game == 5 * (8 * 4 + 4) + 38
    versus = load_game("fzzzt", players=4, versus_scoring=True, unlimited_final_placement=True)
    # Under VERSUS: 28 robots of one symbol; six of two, two of three, two upgrades of four
    # give chits instead (spec, 1.3 to 1.5).
    assert versus.placeable_items == 28 + 6 * 2 + 2 * 3 + 2 * 4
    assert versus.longest_game == 5 * (8 * 4 + 4) + versus.placeable_items
    assert load_game("fzzzt", players=2, unused_starting_robots="box").placeable_items == 32


def drawn_out(state: FzzztState, rng: random.Random) -> int:
    """A move that makes the game last: any placement first, else a bid of one card."""
    legal = state.legal_actions()
    placements = [action for action in legal if action < DONE]
    if placements:
        return rng.choice(placements)
    return min(legal, key=lambda action: len(bid_cards(action)) if action > DONE else 0)


@SETTINGS
@given(
    players=players_st,
    seed=seed_st,
    versus=st.booleans(),
    unlimited=st.booleans(),
    drawn=st.booleans(),
)
def test_no_game_is_longer_than_the_bound_and_each_count_holds(
    players: int, seed: int, versus: bool, unlimited: bool, drawn: bool
) -> None:
    game = load_game(
        "fzzzt", players=players, versus_scoring=versus, unlimited_final_placement=unlimited
    )
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    bids: dict[tuple[int, int], list[int]] = {}
    placements: dict[int, int] = {}
    dones: dict[int, list[int]] = {}
    decisions = 0
    while not state.is_terminal():
        state.resolve_chance()
        if state.is_terminal():
            break
        seen, seat = state.observation(None), state.current_player()
        action = drawn_out(state, rng) if drawn else rng.choice(state.legal_actions())
        if action > DONE:
            bids.setdefault((seen.round, seen.auction), []).append(seat)
        elif action == DONE:
            dones.setdefault(seen.round, []).append(seat)
        else:
            placements[seen.round] = placements.get(seen.round, 0) + 1
        state.apply_action(action)
        decisions += 1
    assert decisions <= game.longest_game
    assert state.observation(None).round == game.rounds
    assert len(bids) == game.rounds * 8
    assert all(sorted(set(seats)) == sorted(seats) for seats in bids.values())
    assert all(sorted(set(seats)) == sorted(seats) for seats in dones.values())
    assert sum(placements.values()) <= game.placeable_items
    for round_number, placed in placements.items():
        if not (unlimited and round_number == game.rounds):
            assert placed <= len(UNITS)
    if drawn:  # Every seat with a unit placed what it could: the count bites.
        assert sum(placements.values()) > 0


def test_the_search_weighs_one_bid_per_strength_the_one_with_fewest_cards() -> None:
    from tapisvert.games.fzzzt.search import bid_candidates

    state = new_game()
    reveal(state, "R21")
    legal = state.legal_actions()  # M1 S1a S1b S1c: zap 0, 1, 2, 3
    assert len(legal) == 15
    chosen = {state.action_to_string(action) for action in bid_candidates(legal)}
    assert chosen == {
        "bid M1",
        "bid S1a",
        "bid S1b",
        "bid S1c",
        "bid S1a S1c",
        "bid S1b S1c",
        "bid S1a S1b S1c",
    }
    production = production_state("R03 S3a U1 F1", "P08")
    assert bid_candidates(production.legal_actions()) == production.legal_actions()


def test_the_search_counts_a_unit_at_what_its_owner_can_still_make_of_it() -> None:
    from tapisvert.games.fzzzt.search import forecast

    state = new_game()
    p08 = card_named("P08")  # N, B: worth 5 a set; A owns S1a (B, G) and S1c (N)
    state._units = replaced(state._units, 0, ((p08, ()),))
    assert state.score(0) == 5 - 5  # S1a 1 + S1b 2 + S1c 2, and the empty unit -5
    rounds_left = forecast(state)
    assert rounds_left[0] == 5 + 5  # two rounds' placements complete one set
    assert rounds_left[1:] == state.returns()[1:]
    state._round = state.game.rounds
    state._phase = PHASE_PRODUCTION
    assert forecast(state)[0] == state.score(0)  # no phase left: the running score
    final = random_playthrough(new_game(), random.Random(3))[-1]
    assert isinstance(final, FzzztState) and final.is_terminal()
    assert forecast(final) == final.returns()


def test_a_view_after_a_move_converts_only_the_fields_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a server plays (a clone of the position, then the move), each seat's view equals a
    fresh conversion of its observation, while the public part converts again only what the
    move changed."""
    import tapisvert.games.fzzzt.rules as rules

    converted: list[int] = []
    convert = rules.json_fields

    def counted(fields: dict[str, object]) -> dict[str, object]:
        converted.append(len(fields))
        return convert(fields)

    monkeypatch.setattr(rules, "json_fields", counted)
    state = load_game("fzzzt", players=4).new_initial_state(seed=3)
    rng = random.Random(3)
    positions = 0
    while not state.is_terminal():
        if state.current_player() < 0:
            state.resolve_chance(rng)
            continue
        for seat in (0, 1, 2, 3, None):
            assert state.view(seat) == state.observation(seat).to_dict()
        following = state.clone()
        following.apply_action(rng.choice(state.legal_actions()))
        state = following
        positions += 1
    every_field = len(state.observation(None).to_dict()) - 4  # less the seat's own four
    assert converted[0] == every_field
    assert len(converted) >= positions
    assert max(converted[1:]) < every_field
    assert sorted(converted)[len(converted) // 2] < every_field / 4  # most moves change a few
