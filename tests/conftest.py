"""Shared helpers: set up exact Wizard positions through explicit chance outcomes."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tapisvert import CHANCE, load_game
from tapisvert.games.wizard import WizardState

from server_support import postgres_database, sqlite_url

collect_ignore = ["plugins"]
"""Packages installed beside tapisvert by the tests that need them, not test modules."""

settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")
"""No test is timed (speed is the benchmarks' business): Hypothesis's deadline of 200 ms an
example would fail a property on a busy machine, not on a wrong answer."""


def wizard_position(
    hands: list[list[str]],
    turned: str | None = None,
    dealer: int | None = None,
    bids: list[int] | None = None,
    plays: list[str] = (),  # type: ignore[assignment]
    trump: str | None = None,
    **options: object,
) -> WizardState:
    """A one-round game with the given hands (P1 first), turned card, bids and plays."""
    players = len(hands)
    cards = len(hands[0])
    dealer = players - 1 if dealer is None else dealer
    game = load_game(
        "wizard", players=players, rounds=str(cards), first_dealer=f"P{dealer + 1}", **options
    )
    state = game.new_initial_state()
    for index in range(cards * players):
        seat = (dealer + 1 + index) % players
        state.apply_string(f"deal {hands[seat][index // players]}")
    if turned is not None:
        state.apply_string(f"turn {turned}")
    if trump is not None:
        state.apply_string(f"trump {trump}")
    for bid in bids if bids is not None else [0] * players:
        state.apply_string(f"bid {bid}")
    for card in plays:
        state.apply_string(f"play {card}")
    assert isinstance(state, WizardState)
    return state


def legal_strings(state: WizardState) -> set[str]:
    return {state.action_to_string(action).split()[-1] for action in state.legal_actions()}


def random_playthrough(state: WizardState, rng: random.Random) -> list[WizardState]:
    """Play uniformly random legal moves to the end; returns a clone after every step."""
    states = [state.clone()]
    while not state.is_terminal():
        if state.current_player() == CHANCE:
            outcomes = state.chance_outcomes()
            actions = [action for action, _ in outcomes]
            weights = [probability for _, probability in outcomes]
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        states.append(state.clone())
    return states


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261129)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database of each kind, new for one test."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path)
    else:
        yield from postgres_database()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that drives the browser is slow (it starts chromium and plays through the pages):
    ``pytest -m "not slow"`` leaves them all out, those to come too."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
