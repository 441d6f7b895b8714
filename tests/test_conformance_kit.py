"""The conformance kit passes a correct game and names the rule each broken one breaks.

The game is the duel of ``tests/plugins`` (two players, twelve cards, four tricks), loaded
from its file without being installed: this process keeps its four games.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tapisvert import Action, Seat, i18n
from tapisvert.core import registry
from tapisvert.testing import ConformanceError, check_game


def load_duel() -> ModuleType:
    folder = Path(__file__).resolve().parent / "plugins" / "duel_game"
    spec = importlib.util.spec_from_file_location(
        "duel_game", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["duel_game"] = module
    spec.loader.exec_module(module)
    return module


duel_game = load_duel()
Duel, DuelState, DuelObservation = duel_game.Duel, duel_game.DuelState, duel_game.DuelObservation
DECK, name = duel_game.DECK, duel_game.name


@pytest.fixture(autouse=True)
def duel_known(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The duel and its texts are known for the length of a test (records name their game,
    errors are told in words)."""
    monkeypatch.setitem(registry.plugins(), "duel", duel_game.PLUGIN)
    monkeypatch.setattr(i18n, "_ADDED", [*i18n._ADDED, "duel_game"])
    i18n.catalogue.cache_clear()
    yield
    i18n.catalogue.cache_clear()


def broken(method: str, replacement: Any) -> Duel:
    """The duel with one state method replaced."""
    state_class = type("BrokenDuelState", (DuelState,), {method: replacement})
    game_class = type(
        "BrokenDuel",
        (Duel,),
        {"new_initial_state": lambda self, seed=None: state_class(self, seed)},
    )
    return game_class(2)


def test_a_correct_game_passes() -> None:
    check_game(Duel(2), games=20)


def leaky_observation(self: DuelState, seat: Seat | None) -> DuelObservation:
    seen = DuelState.observation(self, seat)
    return DuelObservation(**{**seen.__dict__, "hand": tuple(sorted(self.hands[0]))})


def shared_clone(self: DuelState) -> DuelState:
    twin = self._bare_clone()
    twin.__dict__ = self.__dict__.copy()
    return twin


def careless_apply(self: DuelState, action: Action) -> None:
    if self.to_act >= 0 and action not in self.legal_actions() and 0 <= action < len(DECK):
        self.points[self.to_act] += 1
        return
    DuelState.apply_action(self, action)


def lost_tricks(self: DuelState) -> list[int]:
    return sorted([*self.hands[0], *self.hands[1], *self.aside, *self.trick])


def ambiguous_names(self: DuelState, action: Action) -> str:
    return f"play {name(action % 4)}"


def crashing_reader(self: DuelState, text: str) -> Action:
    return int(text.split()[-1])


def endless(self: DuelState) -> None:
    led, answer = self.trick
    self.hands[self.to_act].append(led)
    self.hands[1 - self.to_act].append(answer)
    self.trick = []


def stale_view(self: DuelState, seat: Seat | None) -> dict[str, Any]:
    return {**DuelState.observation(self, seat).to_dict(), "points": (0, 0)}


def reversed_strings(self: DuelState) -> list[str]:
    return [self.action_to_string(action) for action in reversed(self.legal_actions())]


@pytest.mark.parametrize(
    ("method", "replacement", "complaint"),
    [
        ("observation", leaky_observation, "shows that seat something else"),
        ("clone", shared_clone, "changed its original"),
        ("apply_action", careless_apply, "was accepted"),
        ("every_card", lost_tricks, "cards are lost or made"),
        ("action_to_string", ambiguous_names, "does not read back"),
        ("string_to_action", crashing_reader, "raised"),
        ("_end_trick", endless, "no end after"),
        ("view", stale_view, r"view\(0\) differs from observation\(0\)"),
        ("legal_strings", reversed_strings, "not the notation of legal_actions"),
    ],
)
def test_each_broken_rule_is_named(method: str, replacement: Any, complaint: str) -> None:
    with pytest.raises(ConformanceError, match=complaint):
        check_game(broken(method, replacement), games=5, max_steps=500)
