"""What a seat knows of a Wizard position, and its JSON form.

Apart from the rules so that compiling them (``scripts/compile``) leaves the observation, a
dataclass the rules build field by field, as plain Python.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from tapisvert.core.cache import IdentityCache, itemwise
from tapisvert.core.game import Observation, Seat
from tapisvert.games.wizard.cards import NO_TRUMP, SUIT_LETTERS, card_to_string, string_to_card


class CompletedTrick(NamedTuple):
    leader: Seat
    cards: tuple[int, ...]
    winner: Seat


class RoundSummary(NamedTuple):
    """The public outcome of a finished round."""

    round_number: int
    dealer: Seat
    trump: int
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...]
    played: tuple[CompletedTrick, ...]


Trick = tuple[Seat, tuple[int, ...], Seat]
"""A finished trick as a state keeps it: ``CompletedTrick``'s fields in a plain tuple. A named
tuple is made through a call (``tuple.__new__``), 3 to 4% of a playout's instructions at a
trick each; only an observation needs the names (``named_tricks``)."""
PastRound = tuple[
    int, Seat, int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[Trick, ...]
]
"""A finished round as a state keeps it: ``RoundSummary``'s fields, its tricks ``Trick``s."""


def _named_round(past: PastRound) -> RoundSummary:
    round_number, dealer, trump, bids, tricks, points, played = past
    return RoundSummary(round_number, dealer, trump, bids, tricks, points, named_tricks(played))


named_tricks: IdentityCache[tuple[Trick, ...], tuple[CompletedTrick, ...]] = itemwise(
    CompletedTrick._make
)
"""A state's tricks as an observation shows them, each trick named once."""
named_rounds: IdentityCache[tuple[PastRound, ...], tuple[RoundSummary, ...]] = itemwise(
    _named_round
)
"""A state's finished rounds as an observation shows them, each round named once."""


@dataclass(frozen=True)
class WizardObservation(Observation):
    """What one seat knows. Cards are card kinds (see ``cards``); ``trump`` is a suit,
    ``NO_TRUMP`` or ``None`` while the dealer still chooses; a bid is ``None`` until it
    is made (and, with hidden bids, until every bid is in)."""

    histories = frozenset({"completed_tricks", "past_rounds"})

    players: int
    round_index: int
    rounds: int
    round_number: int
    dealer: Seat
    phase: str
    current_player: Seat
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    trump_card: int | None
    trump: int | None
    bids: tuple[int | None, ...]
    tricks_won: tuple[int, ...]
    leader: Seat
    trick: tuple[int, ...]
    completed_tricks: tuple[CompletedTrick, ...]
    scores: tuple[int, ...]
    past_rounds: tuple[RoundSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        data = public_json(super().to_dict())
        data["hand"] = hand_json(self.hand)
        return data

    @classmethod
    def fields_from_dict(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        fields = dict(data)
        fields["hand"] = _cards(data["hand"])
        fields["trick"] = _cards(data["trick"])
        trump_card = data["trump_card"]
        fields["trump_card"] = None if trump_card is None else string_to_card(trump_card)
        fields["trump"] = _trump_of(data["trump"])
        fields["completed_tricks"] = [_trick_of(trick) for trick in data["completed_tricks"]]
        fields["past_rounds"] = [
            {
                **summary,
                "trump": _trump_of(summary["trump"]),
                "played": list(map(_trick_of, summary["played"])),
            }
            for summary in data["past_rounds"]
        ]
        return fields

    def contracts(self) -> list[tuple[int, int]]:
        """A round's bid is made when the seat takes exactly the tricks it bid."""
        made = [0] * self.players
        for summary in self.past_rounds:
            for seat, (bid, took) in enumerate(zip(summary.bids, summary.tricks, strict=True)):
                made[seat] += took == bid
        return [(made[seat], len(self.past_rounds)) for seat in range(self.players)]


def public_json(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields every seat sees, converted (the bids need none)."""
    data = {**fields}
    data["trick"] = tuple(map(card_to_string, fields["trick"]))
    trump_card = fields["trump_card"]
    data["trump_card"] = None if trump_card is None else card_to_string(trump_card)
    data["trump"] = _trump_text(fields["trump"])
    data["completed_tricks"] = _tricks_json(fields["completed_tricks"])
    data["past_rounds"] = _rounds_json(fields["past_rounds"])
    return data


def shown_json(fields: dict[str, Any]) -> dict[str, Any]:
    """What every seat is shown of the public fields, converted: all but the bids, which
    some rules hide until all are in."""
    data = public_json(fields)
    del data["bids"]
    return data


hand_json: IdentityCache[tuple[int, ...], tuple[str, ...]] = IdentityCache(
    lambda hand: tuple(map(card_to_string, hand))
)
"""A hand in notation, converted once while it is the same object (a hand a move left as it
was is kept as that object by ``State._shared``)."""


def _round_dict(summary: RoundSummary) -> dict[str, Any]:
    return {
        "round_number": summary.round_number,
        "dealer": summary.dealer,
        "trump": _trump_text(summary.trump),
        "bids": summary.bids,
        "tricks": summary.tricks,
        "points": summary.points,
        "played": tuple(map(_trick_dict, summary.played)),
    }


@lru_cache(maxsize=16384)
def _trick_dict(trick: CompletedTrick) -> dict[str, Any]:
    return {
        "leader": trick.leader,
        "cards": tuple(map(card_to_string, trick.cards)),
        "winner": trick.winner,
    }


_tricks_json: IdentityCache[tuple[CompletedTrick, ...], tuple[dict[str, Any], ...]] = IdentityCache(
    lambda tricks: tuple(map(_trick_dict, tricks))
)
"""The tricks of the round so far, converted once per trick for every seat's view."""
_rounds_json: IdentityCache[tuple[RoundSummary, ...], tuple[dict[str, Any], ...]] = itemwise(
    _round_dict
)
"""Finished rounds never change: each is converted once, then shared by every later view."""


def _cards(texts: Sequence[str]) -> list[int]:
    return [string_to_card(text) for text in texts]


def _trick_of(trick: Mapping[str, Any]) -> dict[str, Any]:
    return {**trick, "cards": _cards(trick["cards"])}


def _trump_of(text: str | None) -> int | None:
    """The inverse of ``_trump_text``."""
    if text is None:
        return None
    return NO_TRUMP if text == "-" else SUIT_LETTERS.index(text)


def _trump_text(trump: int | None) -> str | None:
    if trump is None:
        return None
    return "-" if trump == NO_TRUMP else SUIT_LETTERS[trump]
