"""What a seat knows of an Abluxxen position, and its JSON form.

Apart from the rules so that compiling them (``scripts/compile``) leaves the observation, a
dataclass the rules build field by field, and the named tuples in it as plain Python, with
their field types as written: a decision sent to a bot worker is checked against them
(``tapisvert.core.wire``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from tapisvert.core.cache import IdentityCache, itemwise
from tapisvert.core.game import Seat
from tapisvert.core.observation import Observation
from tapisvert.games.abluxxen.cards import (
    CardSet,
    counts_of,
    kind_to_string,
    set_to_string,
    string_to_kind,
    string_to_set,
)


class GameSummary(NamedTuple):
    """The outcome of one game of a series."""

    game_number: int
    starter: Seat
    points: tuple[int, ...]


class SeatView(NamedTuple):
    """The part of a seat's observation that a rule of thumb plays by.

    A play-out asks for it at every step, where building the whole observation would cost
    more than the choice: a position gives it straight (``AbluxxenState.seat_view``)."""

    seat: Seat
    hand: tuple[int, ...]
    """The seat's own hand, as a count vector by kind."""
    stacks: tuple[tuple[CardSet, ...], ...]
    display: tuple[tuple[int, ...], ...]
    in_play: tuple[int, ...]


@dataclass(frozen=True)
class AbluxxenObservation(Observation):
    """What one seat knows: its own hand; of every seat the hand size, the cards known to
    be in that hand (taken back, stolen or drawn from the display) and the stack of sets;
    the display, the pile's size, the discard pile; in the duel the imaginary player's
    face-up cards. A card drawn from the pile is seen only by the drawer.

    ``game_scores`` are this game's; ``scores`` the totals of the series so far, this game
    included (the same when there is no series). ``games`` is ``None`` when a series runs
    until someone's total reaches ``series_target``."""

    histories = frozenset({"past_games"})

    players: int
    active: Seat
    phase: str
    current_player: Seat
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    known_in_hand: tuple[tuple[int, ...], ...]
    stacks: tuple[tuple[CardSet, ...], ...]
    display: tuple[tuple[int, ...], ...]
    pile_size: int
    discard: tuple[int, ...]
    dummy: tuple[int, ...]
    played: CardSet | None
    victim: Seat | None
    in_play: tuple[int, ...]
    drawer: Seat | None
    draws_left: int
    pending_steals: tuple[Seat, ...]
    refill_pending: bool
    deal_queue: tuple[Seat, ...]
    game_scores: tuple[int, ...]
    scores: tuple[int, ...]
    game_number: int
    games: int | None
    series_target: int | None
    starter: Seat
    past_games: tuple[GameSummary, ...]

    def seat_view(self) -> SeatView:
        seat = self.seat if self.seat is not None else 0
        return SeatView(seat, counts_of(self.hand), self.stacks, self.display, self.in_play)

    def to_dict(self) -> dict[str, Any]:
        data = public_json(super().to_dict())
        data["hand"] = cards_json(self.hand)
        return data

    @classmethod
    def fields_from_dict(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        fields = dict(data)
        for field in ("hand", "discard", "dummy", "in_play"):
            fields[field] = _kinds(data[field])
        for field in ("known_in_hand", "display"):
            fields[field] = [_kinds(cards) for cards in data[field]]
        fields["stacks"] = [[_set_of(text) for text in stack] for stack in data["stacks"]]
        played = data["played"]
        fields["played"] = None if played is None else _set_of(played)
        return fields


def _kinds(texts: Sequence[str]) -> list[int]:
    return [string_to_kind(text) for text in texts]


def _set_of(text: str) -> dict[str, int]:
    return string_to_set(text)._asdict()


def public_json(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields every seat sees, converted."""
    data = {**fields}
    for field in ("discard", "dummy", "in_play"):
        data[field] = cards_json(fields[field])
    data["known_in_hand"] = _card_lists_json(fields["known_in_hand"])
    data["display"] = _card_lists_json(fields["display"])
    data["stacks"] = _stacks_json(fields["stacks"])
    played = fields["played"]
    data["played"] = None if played is None else set_to_string(played)
    data["past_games"] = _games_json(fields["past_games"])
    return data


@lru_cache(maxsize=16384)
def cards_json(cards: tuple[int, ...]) -> tuple[str, ...]:
    """Cards as a client reads them; the same cards are not converted again."""
    return tuple(map(kind_to_string, cards))


_card_lists_json: IdentityCache[tuple[tuple[int, ...], ...], tuple[tuple[str, ...], ...]] = (
    itemwise(cards_json)
)
_stacks_json: IdentityCache[tuple[tuple[CardSet, ...], ...], tuple[tuple[str, ...], ...]] = (
    itemwise(lambda stack: tuple(map(set_to_string, stack)))
)
"""By identity, list by list: a position's parts that a move left as they were are the
objects they were (``State._shared``), where hashing them by value cost more than most
conversions."""


_games_json: IdentityCache[tuple[GameSummary, ...], tuple[dict[str, Any], ...]] = itemwise(
    GameSummary._asdict
)
"""Finished games never change: each is converted once, then shared by every later view."""
