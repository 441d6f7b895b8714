"""Every engine entry point refuses what it cannot take, with a clear error, and changes nothing.

Arbitrary integers go to ``apply_action`` and arbitrary texts (Unicode digits of every
class among them) to ``string_to_action``, at positions of every phase of every game.
Whatever is accepted must be a legal action; whatever is refused is refused with
``IllegalActionError`` and leaves the position as it was.
"""

from __future__ import annotations

import functools
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapisvert.core.errors import IllegalActionError, OptionError, RecordError
from tapisvert.core.game import CHANCE, State
from tapisvert.core.records import load_record, record_of
from tapisvert.core.registry import game_names, load_game
from tapisvert.games.abluxxen.cards import string_to_set
from tapisvert.games.fzzzt.rules import BID_BASE, CARD_COUNT

GAMES = game_names()
DIGITS = "0123456789²³¹①⑩٣۴߅५০੬୭௮౯೦൧๒໓༤၅႖០᠑᥆᧐᪁᭒᮳᱄᱕꘠꣐꤁꧑꩒꯳０９𝟎𝟗𝟘𝟡Ⅻⅻ〇〥𐒠𑁦½¼⁵₅㉑🄂"
"""ASCII digits and look-alikes: decimal digits of many scripts, superscripts, circled,
fullwidth and mathematical digits, Roman numerals, fractions."""
WORDS = (
    "bid", "play", "bet", "deal", "turn", "trump", "dealer", "first", "set", "start",
    "draw display", "draw pile", "steal dummy", "take", "keep", "discard", "mechanic",
    "reveal", "draw", "place", "place chit N on", "done", "P", "x", "+", "J", "on", "R",
)  # fmt: skip
"""The words of the games' notations, to build texts that get past the first check."""


@functools.cache
def positions(game_name: str) -> list[State]:
    """Positions of every phase of one game: a random game played to its end, kept every step."""
    game = load_game(game_name, players=3)
    state = game.new_initial_state()
    rng = random.Random(14)
    kept: list[State] = [state.clone()]
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        kept.append(state.clone())
    return kept


def fingerprint(state: State) -> tuple[Any, ...]:
    seats: list[int | None] = [*range(state.game.players), None]
    return (
        state.history(),
        state.current_player(),
        state.legal_actions() if not state.is_terminal() else [],
        [state.observation(seat).to_dict() for seat in seats],
        state.returns(),
    )


def allowed(state: State) -> set[int]:
    if state.is_terminal():
        return set()
    if state.current_player() == CHANCE:
        return {action for action, _ in state.chance_outcomes()}
    return set(state.legal_actions())


def check_action(state: State, action: int) -> None:
    """``action`` is applied if legal; otherwise refused with the position unchanged."""
    legal = allowed(state)
    before = fingerprint(state)
    try:
        state.apply_action(action)
    except IllegalActionError:
        assert fingerprint(state) == before
        assert action not in legal
    else:
        assert action in legal, f"{action} was applied but is not legal"


def check_text(state: State, text: str) -> None:
    before = fingerprint(state)
    try:
        action = state.string_to_action(text)
    except IllegalActionError:
        assert fingerprint(state) == before
        return
    assert fingerprint(state) == before
    assert isinstance(action, int)
    check_action(state, action)


numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-5, max_value=5000),
    st.integers(min_value=BID_BASE - 5, max_value=BID_BASE + (1 << (CARD_COUNT + 2))),
)
digit_words = st.text(alphabet=st.sampled_from(DIGITS + "+-xXJPp"), min_size=1, max_size=6)
texts = st.one_of(
    st.text(max_size=30),
    digit_words,
    st.builds(lambda verb, argument: f"{verb} {argument}", st.sampled_from(WORDS), digit_words),
    st.builds(
        lambda words: " ".join(words),
        st.lists(st.one_of(st.sampled_from(WORDS), digit_words), min_size=1, max_size=5),
    ),
)
SETTINGS = settings(
    max_examples=300, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


@pytest.mark.parametrize("game_name", GAMES)
@SETTINGS
@given(data=st.data())
def test_apply_action_refuses_any_integer_cleanly(game_name: str, data: st.DataObject) -> None:
    kept = positions(game_name)
    state = kept[data.draw(st.integers(0, len(kept) - 1))].clone()
    check_action(state, data.draw(numbers))


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
@SETTINGS
@given(data=st.data())
def test_string_to_action_refuses_any_text_cleanly(game_name: str, data: st.DataObject) -> None:
    kept = positions(game_name)
    state = kept[data.draw(st.integers(0, len(kept) - 1))].clone()
    check_text(state, data.draw(texts))


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("digit", ["²", "①", "٣", "３", "𝟑", "Ⅲ"])
def test_unicode_digits_are_refused_in_every_phase(game_name: str, digit: str) -> None:
    """Mended: ``isdigit()`` takes ``²`` but ``int()`` does not."""
    for state in positions(game_name):
        for text in [digit, *(f"{word} {digit}" for word in WORDS)]:
            with pytest.raises(IllegalActionError):
                state.string_to_action(text)


def test_fzzzt_refuses_an_empty_bid_and_cards_beyond_the_deck() -> None:
    """Mended: a bid is at least one card, and only cards that exist."""
    bidding = next(
        state
        for state in positions("fzzzt")
        if state.current_player() >= 0 and state.legal_actions()[0] >= BID_BASE
    )
    for action in (BID_BASE, BID_BASE + (1 << CARD_COUNT), BID_BASE + (1 << (CARD_COUNT + 3))):
        state = bidding.clone()
        before = fingerprint(state)
        with pytest.raises(IllegalActionError):
            state.apply_action(action)
        assert fingerprint(state) == before


@pytest.mark.parametrize("text", ["1x1+10J", "1x10", "3x9", "2x1+6J", "Jx6", "Jx10"])
def test_abluxxen_refuses_sets_the_notation_cannot_hold(text: str) -> None:
    """Mended: ``set 1x1+10J`` was read as ``set 1x2``; no deck holds these sets."""
    with pytest.raises(IllegalActionError):
        string_to_set(text)


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("bad", ["bid ²", "bet ²", "play ²", "draw display ²", "①"])
def test_a_record_with_a_unicode_digit_is_refused_with_a_record_error(
    game_name: str, bad: str
) -> None:
    """Mended: ``tapisvert replay`` ended in a traceback on such a line."""
    record = record_of(positions(game_name)[-1])
    for index in range(min(40, len(record.actions))):
        actions = [*record.actions[:index], bad, *record.actions[index + 1 :]]
        with pytest.raises(RecordError):
            load_record(replace(record, actions=actions).to_json())


def test_wizard_refuses_a_list_of_rounds_no_game_needs() -> None:
    """Mended: a ``rounds`` list of 1,500 entries was accepted."""
    with pytest.raises(OptionError):
        load_game("wizard", players=3, rounds=",".join(["1"] * 1500))
    with pytest.raises(OptionError):
        load_game("wizard", players=3, rounds="1,²")
    assert load_game("wizard", players=3, rounds="1,5,20").options["rounds"] == "1,5,20"
