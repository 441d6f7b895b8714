"""The conformance kit passes a correct game and names the rule each broken one breaks.

The game here is a small two-player trick-taking game written for these tests: 12 cards
(three suits of four), four each, four set aside; follow suit if you can, the highest card
of the suit led wins, whoever wins leads; a point a trick.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from tapisvert import CHANCE, TERMINAL, Action, Game, IllegalActionError, Observation, Seat, State
from tapisvert.bots import RandomBot
from tapisvert.core import GamePlugin, registry
from tapisvert.testing import ConformanceError, check_game

DECK = tuple(range(12))
HAND = 4


def suit(card: int) -> int:
    return card // 4


def name(card: int) -> str:
    return "ABC"[suit(card)] + str(card % 4 + 1)


@dataclass(frozen=True)
class DuelObservation(Observation):
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    trick: tuple[int, ...]
    played: tuple[int, ...]
    points: tuple[int, ...]
    to_act: Seat


class Duel(Game["DuelState"]):
    name = "duel"
    observation_class = DuelObservation
    min_players = 2
    max_players = 2

    def new_initial_state(self, seed: int | None = None) -> DuelState:
        return DuelState(self, seed)

    def _sample(self, observation: DuelObservation, rng: random.Random) -> DuelState:
        seat = observation.seat
        unseen = [c for c in DECK if c not in observation.hand and c not in observation.played]
        rng.shuffle(unseen)
        state = DuelState(self)
        if seat is None:
            state.hands = [unseen[: observation.hand_sizes[0]], []]
            unseen = unseen[observation.hand_sizes[0] :]
            state.hands[1] = unseen[: observation.hand_sizes[1]]
        else:
            state.hands = [[], []]
            state.hands[seat] = list(observation.hand)
            state.hands[1 - seat] = unseen[: observation.hand_sizes[1 - seat]]
        state.aside = [c for c in DECK if c not in {*state.hands[0], *state.hands[1]}]
        state.aside = [c for c in state.aside if c not in observation.played]
        state.trick, state.played = list(observation.trick), list(observation.played)
        state.points, state.to_act = list(observation.points), observation.to_act
        return state


class DuelState(State):
    game: Duel

    def __init__(self, game: Duel, seed: int | None = None) -> None:
        super().__init__(game, seed)
        self.hands: list[list[int]] = [[], []]
        self.aside = list(DECK)
        self.trick: list[int] = []
        self.played: list[int] = []
        self.points = [0, 0]
        self.to_act = CHANCE

    def current_player(self) -> Seat:
        return self.to_act

    def legal_actions(self) -> list[Action]:
        if self.to_act == CHANCE:
            return sorted(self.aside)
        if self.to_act == TERMINAL:
            return []
        hand = self.hands[self.to_act]
        following = [c for c in hand if self.trick and suit(c) == suit(self.trick[0])]
        return sorted(following or hand)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        legal = self.legal_actions() if self.to_act == CHANCE else []
        return [(card, 1 / len(legal)) for card in legal]

    def apply_action(self, action: Action) -> None:
        if action not in self.legal_actions():
            raise IllegalActionError("error.unknown_action_id", action=action)
        if self.to_act == CHANCE:
            self.aside.remove(action)
            dealt = len(self.hands[0]) + len(self.hands[1])
            self.hands[dealt % 2].append(action)
            self.to_act = 0 if dealt + 1 == 2 * HAND else CHANCE
        else:
            self.hands[self.to_act].remove(action)
            self.trick.append(action)
            self.to_act = 1 - self.to_act
            if len(self.trick) == 2:
                self._end_trick()
        self._history = (self._history, action)

    def _end_trick(self) -> None:
        led, answer = self.trick
        leader = self.to_act
        won = leader if suit(answer) != suit(led) or answer < led else 1 - leader
        self.points[won] += 1
        self.played += self.trick
        self.trick = []
        self.to_act = TERMINAL if not self.hands[won] else won

    def observation(self, seat: Seat | None) -> DuelObservation:
        return DuelObservation(
            seat=seat,
            hand=() if seat is None else tuple(sorted(self.hands[seat])),
            hand_sizes=tuple(len(hand) for hand in self.hands),
            trick=tuple(self.trick),
            played=tuple(self.played),
            points=tuple(self.points),
            to_act=self.to_act,
        )

    def returns(self) -> list[float]:
        return [float(points) for points in self.points]

    def action_to_string(self, action: Action) -> str:
        return f"{'deal' if self.to_act == CHANCE else 'play'} {name(action)}"

    def string_to_action(self, text: str) -> Action:
        verb, _, card = text.partition(" ")
        for action in DECK:
            if name(action) == card and verb in {"deal", "play"}:
                return action
        raise IllegalActionError("error.unknown_action_id", action=text)

    def every_card(self) -> list[int]:
        return sorted([*self.hands[0], *self.hands[1], *self.aside, *self.trick, *self.played])

    def clone(self) -> DuelState:
        twin = object.__new__(type(self))
        twin.__dict__ = self.__dict__.copy()
        twin.hands = [hand.copy() for hand in self.hands]
        twin.aside, twin.trick = self.aside.copy(), self.trick.copy()
        twin.played, twin.points = self.played.copy(), self.points.copy()
        return twin


@pytest.fixture(autouse=True)
def duel_known(monkeypatch: pytest.MonkeyPatch) -> None:
    """Records name their game: the duel is known for the length of a test."""
    duel = GamePlugin(Duel, heuristic_bot=lambda game: RandomBot())
    monkeypatch.setitem(registry.plugins(), "duel", duel)


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
    twin = object.__new__(type(self))
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
    ],
)
def test_each_broken_rule_is_named(method: str, replacement: Any, complaint: str) -> None:
    with pytest.raises(ConformanceError, match=complaint):
        check_game(broken(method, replacement), games=5, max_steps=500)
