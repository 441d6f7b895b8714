"""Duel: a small two-player trick-taking game, a package that tapisvert finds as a plugin.

Twelve cards, three suits (A, B, C) of four (1 to 4); four each, four set aside. Follow
suit if you can; the highest card of the suit led wins the trick, and its winner leads
the next. A point a trick. Everything tapisvert needs is declared in ``PLUGIN``; this
package changes nothing in tapisvert.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tapisvert import CHANCE, TERMINAL, Action, Game, IllegalActionError, Observation, Seat, State
from tapisvert.core.registry import GamePlugin, SearchProfile

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

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        for field in ("hand", "trick", "played"):
            data[field] = [name(card) for card in getattr(self, field)]
        return data


class Duel(Game["DuelState"]):
    name = "duel"
    observation_class = DuelObservation
    min_players = 2
    max_players = 2
    sampler = "duel_game"

    def new_initial_state(self, seed: int | None = None) -> DuelState:
        return DuelState(self, seed)


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
        self.check_seat(seat)
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
        verb, _, card = text.strip().partition(" ")
        for action in DECK:
            if name(action) == card.strip().upper() and verb.lower() in {"deal", "play"}:
                return action
        raise IllegalActionError("duel.error.unknown_move", text=text)

    def every_card(self) -> list[int]:
        return sorted([*self.hands[0], *self.hands[1], *self.aside, *self.trick, *self.played])

    def clone(self) -> DuelState:
        twin = self._bare_clone()
        twin.__dict__ = self.__dict__.copy()
        twin.hands = [hand.copy() for hand in self.hands]
        twin.aside, twin.trick = self.aside.copy(), self.trick.copy()
        twin.played, twin.points = self.played.copy(), self.points.copy()
        return twin


def sample_state(game: Duel, observation: DuelObservation, rng: random.Random) -> DuelState:
    """The cards the seat has not seen, shuffled between the other hand and the set-aside."""
    seat = observation.seat
    unseen = [c for c in DECK if c not in observation.hand and c not in observation.played]
    unseen = [c for c in unseen if c not in observation.trick]
    rng.shuffle(unseen)
    state = DuelState(game)
    if seat is None:
        first = observation.hand_sizes[0]
        state.hands = [unseen[:first], unseen[first : first + observation.hand_sizes[1]]]
    else:
        state.hands = [[], []]
        state.hands[seat] = list(observation.hand)
        state.hands[1 - seat] = unseen[: observation.hand_sizes[1 - seat]]
    held = {*state.hands[0], *state.hands[1], *observation.played, *observation.trick}
    state.aside = [c for c in DECK if c not in held]
    state.trick, state.played = list(observation.trick), list(observation.played)
    state.points, state.to_act = list(observation.points), observation.to_act
    return state


class LowestCardBot:
    """Plays its lowest legal card."""

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random
    ) -> Action:
        return min(legal_actions)


PLUGIN = GamePlugin(
    Duel,
    heuristic_bot=lambda game: LowestCardBot(),
    terminal_view="duel_game.view",
    web_board="duel_game",
    rules="duel_game",
    search=SearchProfile(medium=20, hard=60),
    texts="duel_game",
)
