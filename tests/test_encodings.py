"""Tensors and action spaces of the four games: fixed shapes, documented ranges, exact masks,
and no more than a seat's observation shows."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tapisvert
from tapisvert.core.game import Game, State
from tapisvert.core.registry import plugin
from tapisvert.encoding import (
    ONE_BITS,
    Blocks,
    Encoding,
    RecentViews,
    Tensor,
    encoding_for,
    float32_bits,
    float_bytes,
    values_of,
)
from tapisvert.games.wizard.cards import NO_TRUMP

CASES: list[tuple[str, int, dict[str, object]]] = [
    ("wizard", 3, {}),
    ("wizard", 4, {"hidden_bids": True}),
    ("wizard", 5, {"canadian": True, "rounds": "1,4,12"}),
    ("wizard", 6, {"rounds": "first5"}),
    ("luz", 3, {}),
    ("luz", 4, {}),
    ("luz", 5, {"bet_bead_supply": 3}),
    ("abluxxen", 2, {"duel": True}),
    ("abluxxen", 3, {}),
    ("abluxxen", 5, {"series": True}),
    ("fzzzt", 2, {"versus_scoring": True}),
    ("fzzzt", 3, {"unlimited_final_placement": True}),
    ("fzzzt", 4, {"unused_starting_robots": "box"}),
]
DECISIONS = 400
"""Decisions checked per game, from its start (a long game is cut there)."""
SAMPLE_EVERY = 3
"""Every so many decisions, the seat's view is compared with a state drawn from it."""


def _case_id(case: tuple[str, int, dict[str, object]]) -> str:
    name, players, options = case
    return "-".join([name, str(players), *options])


def _walk(game: Game[Any], seed: int) -> list[State]:
    """The positions where a seat decides, along a random game from ``seed``."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    positions: list[State] = []
    while not state.is_terminal() and len(positions) < DECISIONS:
        if state.is_chance_node():
            state.resolve_chance()
            continue
        positions.append(state.clone())
        state.apply_action(rng.choice(state.legal_actions()))
    positions.append(state)
    return positions


def _tensor(encoding: Encoding, state: State, seat: int | None) -> Tensor:
    """The tensor of the seat's observation, once checked equal to the one written straight
    from the state (``write_state``), which therefore shows no more than the observation."""
    tensor = encoding.encode(state.observation(seat))
    assert numpy.array_equal(encoding.encode_state(state, seat), tensor)
    return tensor


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_tensors_masks_and_views(case: tuple[str, int, dict[str, object]]) -> None:
    name, players, options = case
    game = tapisvert.load_game(name, players=players, **options)
    encoding = encoding_for(game)
    assert encoding.shape == (encoding.fields[-1].stop,)
    starts = [field.start for field in encoding.fields]
    assert starts == [0, *(field.stop for field in encoding.fields[:-1])]
    sampler = random.Random(1)
    hidden_seen = False
    for seed in (3, 4):
        positions = _walk(game, seed)
        for step, state in enumerate(positions):
            if state.is_terminal():
                assert _tensor(encoding, state, 0).shape == encoding.shape
                with pytest.raises(ValueError, match="no seat is to act"):
                    encoding.write_legal(numpy.zeros(encoding.action_count), state)
                continue
            seat = state.current_player()
            observation = state.observation(seat)
            tensor = _tensor(encoding, state, seat)
            reused = numpy.full(encoding.shape, 0.5, dtype=numpy.float32)
            encoding.write_state(reused, state, seat)  # a buffer of the last position's
            assert numpy.array_equal(reused, tensor)
            for other in (None, *range(players)):
                assert numpy.array_equal(
                    encoding.encode_state(state, other), encoding.encode(state.observation(other))
                )
            assert tensor.shape == encoding.shape
            assert tensor.dtype == numpy.float32
            assert numpy.isfinite(tensor).all()
            assert tensor.min() >= encoding.low and tensor.max() <= 1.0
            legal = state.legal_actions()
            mask = encoding.legal_mask(observation, legal)
            assert mask.shape == (encoding.action_count,)
            indices = [encoding.action_index(observation, action) for action in legal]
            assert sorted(indices) == numpy.flatnonzero(mask).tolist()
            for action, index in zip(legal, indices, strict=True):
                assert encoding.action_at(observation, index) == action
                assert encoding.action_of(state, index) == action
            written = numpy.ones(encoding.action_count, dtype=numpy.int8)  # every value stale
            assert encoding.write_legal(written, state) == legal
            assert numpy.array_equal(written, mask.astype(numpy.int8))
            column = numpy.ones((encoding.action_count, 2), dtype=numpy.bool_)[:, 0]
            assert encoding.write_legal(column, state) == legal  # strided in memory, as stale
            assert numpy.array_equal(column, mask)
            wide = numpy.ones(encoding.action_count, dtype=numpy.int64)  # not a byte a value
            assert encoding.write_legal(wide, state) == legal
            assert numpy.array_equal(wide, mask.astype(numpy.int64))
            refused = [*numpy.flatnonzero(~mask)[:3].tolist(), -1, encoding.action_count]
            assert all(encoding.action_of(state, index) is None for index in refused)
            if step % SAMPLE_EVERY == 0:
                drawn = game.sample_state(observation, sampler)
                assert numpy.array_equal(_tensor(encoding, drawn, seat), tensor)
                assert numpy.array_equal(
                    _tensor(encoding, drawn, None), _tensor(encoding, state, None)
                )
                other = (seat + 1) % players
                hidden_seen |= not numpy.array_equal(
                    _tensor(encoding, drawn, other), _tensor(encoding, state, other)
                )
        decided = [state for state in positions if not state.is_terminal()]
        first, later = decided[0], decided[len(decided) // 2]
        assert not numpy.array_equal(
            _tensor(encoding, first, first.current_player()),
            _tensor(encoding, later, first.current_player()),
        )
    assert hidden_seen, "what another seat sees never changed in a drawn state"


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@settings(max_examples=6)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    skip=st.integers(min_value=0, max_value=2000),
)
def test_state_and_observation_write_the_same_tensors(
    case: tuple[str, int, dict[str, object]], seed: int, skip: int
) -> None:
    """For random play, at every step (chance steps too) and for every seat and a
    spectator, the tensor written from the state is the observation's, bit for bit, into a
    buffer holding the last one written; and the mask and the action at each index, read
    from the state, are the seat's observation's. ``skip`` random steps are played first,
    unchecked, to reach later positions of long games."""
    name, players, options = case
    game = tapisvert.load_game(name, players=players, **options)
    encoding = encoding_for(game)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    for _ in range(skip):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    buffer = numpy.full(encoding.shape, numpy.nan, dtype=numpy.float32)
    for _ in range(DECISIONS // 4):
        for seat in (*range(players), None):
            encoding.write_state(buffer, state, seat)
            expected = encoding.encode(state.observation(seat))
            assert buffer.tobytes() == expected.tobytes(), (seat, state.history())
        if state.is_terminal():
            break
        legal = state.legal_actions()
        if not state.is_chance_node():
            mask = numpy.zeros(encoding.action_count, dtype=numpy.int8)
            assert encoding.write_legal(mask, state) == legal
            observation = state.observation(state.current_player())
            expected_mask = encoding.legal_mask(observation, legal)
            assert numpy.array_equal(mask, expected_mask.astype(numpy.int8))
            for index in numpy.flatnonzero(expected_mask).tolist():
                assert encoding.action_of(state, index) == encoding.action_at(observation, index)
        state.apply_action(rng.choice(legal))


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_a_template_serves_no_other_state_than_its_own_parts_say(name: str) -> None:
    """A seat's tensor starts from the template kept for its state, found by the state's
    address: tables played in turn, clones played apart, states freed and others made (at
    the same address, as a freed one's is reused) each get their own observation's tensor
    at every move."""
    game = tapisvert.load_game(name, players=3)
    encoding = encoding_for(game)
    rng = random.Random(5)
    buffer = numpy.full(encoding.shape, numpy.nan, dtype=numpy.float32)
    tables = [game.new_initial_state(seed=seed) for seed in range(3)]
    for step in range(240):
        index = rng.randrange(len(tables))
        state = tables[index]
        if state.is_terminal() or step % 40 == 39:
            tables[index] = game.new_initial_state(seed=step)  # the old one freed
        elif step % 15 == 14:
            tables[index] = state.clone()  # played apart from here on
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        for written in tables:
            for seat in (None, 0, 1, 2):
                encoding.write_state(buffer, written, seat)
                expected = encoding.encode(written.observation(seat))
                assert buffer.tobytes() == expected.tobytes(), (step, seat)


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_a_tensor_of_another_type_is_refused_clearly(name: str) -> None:
    """Tensors are float32 (templates are copied into them as such): a float64 buffer gets
    an error that says so, whether the tensor is written from a state or an observation."""
    game = tapisvert.load_game(name, players=4)
    encoding = encoding_for(game)
    state = game.new_initial_state(3)
    state.resolve_chance()
    wrong = numpy.zeros(encoding.shape, dtype=numpy.float64)
    with pytest.raises(TypeError, match="float32 array, not float64"):
        encoding.write_state(wrong, state, 0)
    with pytest.raises(TypeError, match="float32 array, not float64"):
        encoding.write(wrong, state.observation(0))


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_an_index_outside_the_action_space_names_the_space(name: str) -> None:
    """A negative index would otherwise name an action counted from the end."""
    game = tapisvert.load_game(name, players=4)
    encoding = encoding_for(game)
    state = game.new_initial_state(3)
    state.resolve_chance()
    observation = state.observation(state.current_player())
    last = encoding.action_count - 1
    for outside in (-1, encoding.action_count):
        with pytest.raises(IndexError, match=f"the indices are 0 to {last}"):
            encoding.action_at(observation, outside)
        with pytest.raises(IndexError, match=f"the indices are 0 to {last}"):
            encoding.action_at_state(state, outside)
        assert encoding.action_of(state, outside) is None


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_a_tensor_or_mask_of_another_size_is_refused_clearly(name: str) -> None:
    """A buffer one value short or long gets an error that says the sizes, from a state or
    an observation, and is left as it was, rather than holding part of a tensor; so does a
    mask one value short or long for the actions."""
    game = tapisvert.load_game(name, players=4)
    encoding = encoding_for(game)
    state = game.new_initial_state(3)
    state.resolve_chance()
    for size in (encoding.size - 1, encoding.size + 1):
        wrong = numpy.full(size, 7.0, dtype=numpy.float32)
        with pytest.raises(ValueError, match=f"a tensor of {size} values"):
            encoding.write_state(wrong, state, 0)
        with pytest.raises(ValueError, match=f"a tensor of {size} values"):
            encoding.write(wrong, state.observation(0))
        assert (wrong == 7.0).all()
    for size in (encoding.action_count - 1, encoding.action_count + 1):
        with pytest.raises(ValueError, match=f"a mask of {size} values"):
            encoding.write_legal(numpy.zeros(size, dtype=numpy.int8), state)


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_a_tensor_strided_in_memory_is_written_as_any_other(name: str) -> None:
    """A column of a larger array (its values not one run of memory) gets the same tensor
    as a buffer of its own, from a state and from an observation."""
    game = tapisvert.load_game(name, players=3)
    encoding = encoding_for(game)
    state = game.new_initial_state(5)
    rng = random.Random(5)
    for _ in range(30):
        state.resolve_chance()
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    state.resolve_chance()
    expected = encoding.encode(state.observation(1))
    columns = numpy.full((encoding.size, 2), numpy.nan, dtype=numpy.float32)
    encoding.write_state(columns[:, 0], state, 1)
    assert columns[:, 0].tobytes() == expected.tobytes()
    assert numpy.isnan(columns[:, 1]).all()


def test_recent_views_are_found_again_for_as_many_buffers_as_kept() -> None:
    """Buffers written in turn (a batch's rows) find their views again while no more than
    ``kept`` of them are in use; one more buffer than that, and they are made again."""
    made: list[int] = []

    def convert(array: Any, size: int) -> Any:
        made.append(id(array))
        return values_of(array)

    views: RecentViews[Any] = RecentViews(convert, size=4)
    views.kept = 3
    rows = list(numpy.zeros((4, 4), dtype=numpy.float32))
    for _ in range(3):
        for row in rows[:3]:
            assert views(row) is views(row)
    assert len(made) == 3
    for row in rows:
        views(row)
    assert len(made) > 3


def test_blocks_are_made_once_per_value_and_forgotten_beyond_those_kept() -> None:
    """A table of blocks makes a value's block at its first look-up only, equal values
    sharing it; once it holds ``kept`` blocks, it starts again rather than growing."""
    made: list[tuple[int, ...]] = []

    def make(counts: tuple[int, ...]) -> bytes:
        made.append(counts)
        return float_bytes(count / 2 for count in counts)

    blocks: Blocks[tuple[int, ...]] = Blocks(make, kept=3)
    first = blocks[(1, 2)]
    assert numpy.frombuffer(first, dtype=numpy.float32).tolist() == [0.5, 1.0]
    assert blocks[tuple([1, 2])] is first  # an equal value, not the same object
    assert made == [(1, 2)]
    for counts in ((3,), (4,), (5,)):
        blocks[counts]
    assert len(blocks) < 3  # started again when full
    blocks[(1, 2)]
    assert made == [(1, 2), (3,), (4,), (5,), (1, 2)]


@pytest.mark.parametrize("name", tapisvert.game_names())
def test_each_field_is_documented(name: str) -> None:
    place = plugin(name).encoding
    assert place is not None  # every built-in game offers an encoding
    module = import_module(place.partition(":")[0])
    # The source's docstring: a module compiled by mypyc (scripts/compile) keeps none.
    source = Path(module.__file__ or "").with_name(f"{module.__name__.rpartition('.')[2]}.py")
    documentation = ast.get_docstring(ast.parse(source.read_text())) or ""
    game = tapisvert.load_game(name, players=3)
    encoding = encoding_for(game)
    for field in encoding.fields:
        assert f"``{field.name}``" in documentation, field.name
        assert field.meaning in encoding.describe()


def test_hidden_bids_stay_hidden_until_every_bid_is_in() -> None:
    game = tapisvert.load_game("wizard", players=3, hidden_bids=True, rounds="3")
    encoding = encoding_for(game)
    states = []
    for bid in (0, 3):
        state = game.new_initial_state(seed=5)
        state.resolve_chance()
        bidder = state.current_player()
        state.apply_string(f"bid {bid}")
        states.append(state)
    watcher = states[0].current_player()
    assert numpy.array_equal(
        _tensor(encoding, states[0], watcher), _tensor(encoding, states[1], watcher)
    )
    assert not numpy.array_equal(
        _tensor(encoding, states[0], bidder), _tensor(encoding, states[1], bidder)
    )


def test_staged_values_are_the_float32_bits_of_the_values() -> None:
    values = numpy.array([1.0, 0.25, -0.3, 1 / 3, 0.0], dtype=numpy.float32)
    assert [float32_bits(float(value)) for value in values] == list(values.view(numpy.int32))
    assert float32_bits(1.0) == ONE_BITS


@pytest.mark.parametrize(
    "options", [{"rounds": "first5"}, {"hidden_bids": True, "rounds": "1,12"}], ids=str
)
def test_wizard_tensor_field_by_field(options: dict[str, object]) -> None:
    """Every field of Wizard's tensor, worked out here from the observation as the module
    documents it (not through the encoding's own tables), at 300 positions along random
    games, for each seat and a spectator: scores past a round's end included."""
    game = tapisvert.load_game("wizard", players=4, **options)
    _check_field_by_field(game, _wizard_tensor, random.Random(5))


def _check_field_by_field(
    game: Game[Any], expected_tensor: Any, rng: random.Random, positions: int = 300
) -> None:
    """At ``positions`` positions along random games, each seat's and a spectator's tensor
    is ``expected_tensor(encoding, observation)``, worked out by the test."""
    encoding = encoding_for(game)
    checked = 0
    while checked < positions:
        state = game.new_initial_state(rng.randrange(2**32))
        while not state.is_terminal() and checked < positions:
            state.resolve_chance()
            for seat in (None, *range(game.players)):
                expected = expected_tensor(encoding, state.observation(seat))
                assert encoding.encode_state(state, seat).tobytes() == expected.tobytes(), (
                    seat,
                    state.history(),
                )
            checked += 1
            if not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))


def _wizard_tensor(encoding: Any, seen: Any) -> Tensor:
    tensor = numpy.zeros(encoding.size, dtype=numpy.float32)
    players, most = seen.players, encoding.most_cards
    origin = seen.seat or 0

    def at(field: Any, index: int = 0) -> int:
        assert 0 <= index < field.size
        return int(field.start + index)

    def place(seat: int) -> int:
        return (seat - origin) % players

    def weight(card: int) -> float:
        return 1.0 if card < 52 else 0.25

    tensor[
        at(
            encoding.phase,
            ("dealer", "deal", "turn", "trump", "bid", "play", "end").index(seen.phase),
        )
    ] = 1
    tensor[at(encoding.round)] = seen.round_index / seen.rounds
    tensor[at(encoding.round, 1)] = seen.round_number / most
    tensor[at(encoding.dealer, place(seen.dealer))] = 1
    if 0 <= seen.current_player < players:
        tensor[at(encoding.to_act, place(seen.current_player))] = 1
    tensor[at(encoding.leader, place(seen.leader))] = 1
    for card in seen.hand:
        tensor[at(encoding.hand, card)] += weight(card)
    if seen.trump_card is not None:
        tensor[at(encoding.trump_card, seen.trump_card)] = weight(seen.trump_card)
    if seen.trump is not None:
        tensor[at(encoding.trump, 4 if seen.trump == NO_TRUMP else seen.trump)] = 1
    won = [0] * players
    for trick in seen.completed_tricks:
        won[trick.winner] += 1
        for card in trick.cards:
            tensor[at(encoding.played, card)] += weight(card)
    best = sum(20 + 10 * cards for cards in encoding.game.round_numbers)
    for seat in range(players):
        bid = seen.bids[seat]
        if bid is not None:
            tensor[at(encoding.bid_made, place(seat))] = 1
            tensor[at(encoding.bids, place(seat))] = bid / most
        tensor[at(encoding.tricks_won, place(seat))] = won[seat] / most
        tensor[at(encoding.hand_sizes, place(seat))] = seen.hand_sizes[seat] / most
        tensor[at(encoding.scores, place(seat))] = max(-1.0, min(1.0, seen.scores[seat] / best))
    for order, card in enumerate(seen.trick):
        tensor[at(encoding.trick, place(seen.leader + order) * 54 + card)] = weight(card)
    return tensor


@pytest.mark.parametrize("options", [{"duel": True}, {"series": True}], ids=["duel", "series"])
def test_abluxxen_tensor_field_by_field(options: dict[str, object]) -> None:
    """Every field of Abluxxen's tensor, worked out here from the observation as the module
    documents it (not through the encoding's own tables), at 300 positions along random
    games, for each seat and a spectator."""
    players = 2 if options.get("duel") else 4
    game = tapisvert.load_game("abluxxen", players=players, **options)
    _check_field_by_field(game, _abluxxen_tensor, random.Random(11))


def _abluxxen_tensor(encoding: Any, seen: Any) -> Tensor:
    """An Abluxxen observation's tensor, as the encoding's documentation describes it."""
    from tapisvert.games.abluxxen.cards import JOKER_SET_VALUE, counts_of
    from tapisvert.games.abluxxen.rules import DUMMY, PHASE_NAMES

    players = encoding.players
    tensor = numpy.zeros(encoding.size, dtype=numpy.float32)

    def put(field: Any, index: int, value: float) -> None:
        tensor[field.start + index] = value

    def relative(other: int) -> int:
        return (other - (seen.seat or 0)) % players

    def put_set(field: Any, at: int, played: Any) -> None:
        put(field, at + played.value - 1, 1.0)
        put(field, at + JOKER_SET_VALUE, played.numbers / 8)
        put(field, at + JOKER_SET_VALUE + 1, played.jokers / 5)

    put(encoding.phase, PHASE_NAMES.index(seen.phase), 1.0)
    for field, seated in (
        (encoding.active, seen.active),
        (encoding.to_act, seen.current_player),
        (encoding.victim, seen.victim),
        (encoding.drawer, seen.drawer),
    ):
        if seated is not None and 0 <= seated < players:
            put(field, relative(seated), 1.0)
    put(encoding.dummy_victim, 0, float(seen.victim == DUMMY))
    for kind, count in enumerate(counts_of(seen.hand)):
        put(encoding.hand, kind, count / 8)
    for other in range(players):
        place = relative(other)
        put(encoding.hand_sizes, place, min(seen.hand_sizes[other] / 26, 1.0))
        for kind, count in enumerate(counts_of(seen.known_in_hand[other])):
            put(encoding.known, place * 14 + kind, count / 8)
        stack = seen.stacks[other]
        if stack:
            put_set(encoding.top_sets, place * (JOKER_SET_VALUE + 2), stack[-1])
        cards = sum(played.numbers + played.jokers for played in stack)
        put(encoding.stack_cards, place, min(cards / 26, 1.0))
        put(encoding.game_scores, place, max(-1.0, min(seen.game_scores[other] / 109, 1.0)))
        put(encoding.scores, place, max(-1.0, min(seen.scores[other] / 109, 1.0)))
    for entry, cards in enumerate(seen.display):
        for kind, count in enumerate(counts_of(cards)):
            put(encoding.display, entry * 14 + kind, count / 8)
    put(encoding.pile, 0, seen.pile_size / 109)
    for field, cards in (
        (encoding.discard, seen.discard),
        (encoding.in_play, seen.in_play),
        (encoding.dummy, seen.dummy),
    ):
        for kind, count in enumerate(counts_of(cards)):
            if count:
                put(field, kind, count / 8)
    if seen.played is not None:
        put_set(encoding.played, 0, seen.played)
    put(encoding.draws_left, 0, min(seen.draws_left / 13, 1.0))
    put(encoding.refill, 0, float(seen.refill_pending))
    for thief in seen.pending_steals:
        put(encoding.pending, players if thief == DUMMY else relative(thief), 1.0)
    put(encoding.game_number, 0, min(seen.game_number / 10, 1.0))
    return tensor


def test_luz_tensor_holds_what_a_seat_knows_of_its_own_values() -> None:
    game = tapisvert.load_game("luz", players=4)
    encoding = encoding_for(game)
    state = game.new_initial_state(seed=2)
    state.resolve_chance()
    seat = state.current_player()
    knowledge = next(field for field in encoding.fields if field.name == "knowledge")
    values = next(field for field in encoding.fields if field.name == "values")
    tensor = _tensor(encoding, state, seat)
    own = tensor[knowledge.start : knowledge.stop].reshape(10, 12)
    expected = numpy.zeros((10, 12))
    for slot, possible in enumerate(state.observation(seat).knowledge):
        expected[slot, [value - 1 for value in possible or ()]] = 1
    assert numpy.array_equal(own, expected)
    assert own.sum(axis=1).min() > 0 and own.sum() > 10
    assert not tensor[values.start : values.start + 10 * 12].any()
    assert tensor[values.start + 10 * 12 : values.stop].any()


def test_luz_hands_of_clones_played_apart_at_one_address_are_their_own() -> None:
    """Luz writes a hand again from the cards played since the template's last tensor,
    where the template's hands are of the same deal: a clone of the same deal played
    another way (or less far), made where a freed clone was (its template found by that
    address), still gets its own hands, never the freed clone's."""
    game = tapisvert.load_game("luz", players=4)
    encoding = encoding_for(game)
    rng = random.Random(3)
    buffer = numpy.full(encoding.shape, numpy.nan, dtype=numpy.float32)
    base = game.new_initial_state(seed=3)
    base.resolve_chance()
    for _ in range(6):  # the bets, and a card or two: a trick under way
        base.apply_action(rng.choice(base.legal_actions()))
    reused = 0
    for trial in range(30):
        freed = base.clone()
        for _ in range(3 + trial % 7):
            freed.apply_action(rng.choice(freed.legal_actions()))
            for seat in range(4):
                encoding.write_state(buffer, freed, seat)
        address = id(freed)
        del freed
        clone = base.clone()
        reused += id(clone) == address
        for _ in range(trial % 5):
            clone.apply_action(rng.choice(clone.legal_actions()))
        for seat in range(4):
            encoding.write_state(buffer, clone, seat)
            expected = encoding.encode(clone.observation(seat))
            assert buffer.tobytes() == expected.tobytes(), (trial, seat)
    assert reused, "no clone was made where a freed one was: the case is not exercised"


def test_fzzzt_bids_are_indexed_by_hand_positions() -> None:
    game = tapisvert.load_game("fzzzt", players=2)
    encoding = encoding_for(game)
    state = game.new_initial_state(seed=1)
    state.resolve_chance()
    observation = state.observation(state.current_player())
    assert observation.phase == "bid"
    hand = observation.hand
    indices = sorted(encoding.legal_mask(observation, state.legal_actions()).nonzero()[0])
    assert indices == list(range(2 ** len(hand) - 1))
    with pytest.raises(ValueError):
        encoding.action_at(observation, 2 ** len(hand) - 1)


def test_the_library_imports_without_numpy() -> None:
    script = (
        "import sys; sys.modules['numpy'] = None\n"
        "import tapisvert\n"
        "from tapisvert.core.registry import plugins\n"
        "from tapisvert.bots import make_bot\n"
        "for name in tapisvert.game_names():\n"
        "    game = tapisvert.load_game(name)\n"
        "    make_bot('easy', game)\n"
        "    assert plugins()[name].encoding is not None\n"
        "assert 'tapisvert.encoding' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


class _FarActionEncoding(Encoding):
    """Wizard's actions and one id far beyond them: no table from id to index can span them."""

    def __init__(self, game: Game[Any]) -> None:
        far = 10**12  # a table over this span would never be built
        super().__init__(game, (*encoding_for(game).actions, far), 0, None, None)
        self.field("nothing", 1, "no value")

    def write(self, tensor: Tensor, observation: object) -> None:
        """No values: only the masks are compared."""


def test_a_mask_of_action_ids_spread_too_far_for_a_table_is_still_right() -> None:
    game = tapisvert.load_game("wizard", 4, rounds="first5")
    near, far = encoding_for(game), _FarActionEncoding(game)
    for state in _walk(game, 5)[:-1]:  # the last is where the walk stopped, maybe the end
        legal = state.legal_actions()
        wide = numpy.ones(far.action_count, dtype=numpy.int8)  # every value stale
        assert far.write_legal(wide, state) == legal
        expected = near.legal_mask(state.observation(state.current_player()), legal)
        assert wide[:-1].tolist() == expected.astype(numpy.int8).tolist()
        assert wide[-1] == 0
