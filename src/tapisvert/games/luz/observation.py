"""What a seat knows of a Luz position, and its JSON form.

Apart from the rules so that compiling them (``scripts/compile``) leaves the observation, a
dataclass the rules build field by field, and the named tuples in it as plain Python, with
their field types as written: a decision sent to a bot worker is checked against them
(``tapisvert.core.wire``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, NamedTuple

from tapisvert.core.cache import IdentityCache, itemwise
from tapisvert.core.game import Seat
from tapisvert.core.observation import Observation
from tapisvert.games.luz.cards import COLOURS, MAX_VALUE, card_to_string, string_to_card

PLAYED: Final = -1
"""A hand's slot whose card has been played."""


class LuzPlay(NamedTuple):
    seat: Seat
    slot: int
    card: int


class LuzTrick(NamedTuple):
    leader: Seat
    plays: tuple[LuzPlay, ...]
    winner: Seat


class DealSummary(NamedTuple):
    """The public outcome of a finished deal."""

    deal_number: int
    first_player: Seat
    bets: tuple[tuple[int, int], ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...]
    played: tuple[LuzTrick, ...]


Knowledge = tuple[tuple[int, ...] | None, ...]
"""For each slot of a hand, the values it may still hold (``None``: played)."""


@dataclass(frozen=True)
class LuzObservation(Observation):
    """What one seat knows.

    ``colours[seat][slot]`` is the colour of each slot (-1 once played); ``values`` holds
    the values this viewer can see — every opponent's, never their own (``None``).
    ``knowledge[slot]`` lists the values each of the viewer's own slots may still hold.
    A spectator sees colours only, like every player sees their own hand.
    """

    histories = frozenset({"completed_tricks", "past_deals"})

    players: int
    deals: int
    """The deals of this game: four, fewer where an option shrinks it."""
    deal_index: int
    first_player: Seat
    phase: str
    current_player: Seat
    colours: tuple[tuple[int, ...], ...]
    values: tuple[tuple[int | None, ...], ...]
    knowledge: Knowledge
    bets: tuple[tuple[int, int] | None, ...]
    tricks_won: tuple[int, ...]
    leader: Seat
    trick: tuple[LuzPlay, ...]
    completed_tricks: tuple[LuzTrick, ...]
    scores: tuple[int, ...]
    past_deals: tuple[DealSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        data = public_json(super().to_dict())
        data["hands"] = tuple(map(hand_json, self.colours, self.values))
        del data["values"]
        return data

    @classmethod
    def fields_from_dict(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        fields = dict(data)
        slots = [[SLOT_OF[text] for text in hand] for hand in fields.pop("hands")]
        fields["colours"] = [[colour for colour, _ in hand] for hand in slots]
        fields["values"] = [[value for _, value in hand] for hand in slots]
        fields["trick"] = list(map(_play_of, data["trick"]))
        fields["completed_tricks"] = list(map(_trick_of, data["completed_tricks"]))
        fields["past_deals"] = [
            {**summary, "played": list(map(_trick_of, summary["played"]))}
            for summary in data["past_deals"]
        ]
        return fields

    def contracts(self) -> list[tuple[int, int]]:
        """A deal's bet is made when the seat takes exactly the tricks it bet, or one more
        with the safety bead."""
        made = [0] * self.players
        for summary in self.past_deals:
            for seat, ((bet, bead), took) in enumerate(
                zip(summary.bets, summary.tricks, strict=True)
            ):
                made[seat] += took == bet or (bead == 1 and took == bet + 1)
        return [(made[seat], len(self.past_deals)) for seat in range(self.players)]


SLOT_TEXT: dict[int, dict[int | None, str | None]] = {
    PLAYED: {None: None},
    **{
        colour: {
            None: f"{letter}?",
            **{value: f"{letter}{value}" for value in range(1, MAX_VALUE + 1)},
        }
        for colour, letter in enumerate(COLOURS)
    },
}
"""A slot as a client reads it, by colour (``PLAYED``: gone) and value (``None``: unseen)."""


SLOT_OF: dict[str | None, tuple[int, int | None]] = {
    text: (colour, value) for colour, texts in SLOT_TEXT.items() for value, text in texts.items()
}
"""A slot's colour and value, by its text: the inverse of ``SLOT_TEXT``."""


def _play_of(play: Mapping[str, Any]) -> dict[str, Any]:
    return {**play, "card": string_to_card(play["card"])}


def _trick_of(trick: Mapping[str, Any]) -> dict[str, Any]:
    return {**trick, "plays": list(map(_play_of, trick["plays"]))}


@lru_cache(maxsize=16384)
def hand_json(colours: tuple[int, ...], values: tuple[int | None, ...]) -> tuple[str | None, ...]:
    """One hand as a client reads it; a hand that did not change is not converted again."""
    return tuple([SLOT_TEXT[colour][value] for colour, value in zip(colours, values, strict=True)])


def _play_dict(play: LuzPlay) -> dict[str, Any]:
    return {"seat": play.seat, "slot": play.slot, "card": card_to_string(play.card)}


def _deal_dict(summary: DealSummary) -> dict[str, Any]:
    return {
        "deal_number": summary.deal_number,
        "first_player": summary.first_player,
        "bets": summary.bets,
        "tricks": summary.tricks,
        "points": summary.points,
        "played": tuple(map(_trick_dict, summary.played)),
    }


@lru_cache(maxsize=16384)
def _trick_dict(trick: LuzTrick) -> dict[str, Any]:
    return {
        "leader": trick.leader,
        "plays": tuple(map(_play_dict, trick.plays)),
        "winner": trick.winner,
    }


_trick_json: IdentityCache[tuple[LuzPlay, ...], tuple[dict[str, Any], ...]] = IdentityCache(
    lambda plays: tuple(map(_play_dict, plays))
)
"""The trick on the table, converted once per position for every seat's view."""
_tricks_json: IdentityCache[tuple[LuzTrick, ...], tuple[dict[str, Any], ...]] = IdentityCache(
    lambda tricks: tuple(map(_trick_dict, tricks))
)
"""The tricks of the deal so far, converted once per trick for every seat's view."""
_deals_json: IdentityCache[tuple[DealSummary, ...], tuple[dict[str, Any], ...]] = itemwise(
    _deal_dict
)
"""Finished deals never change: each is converted once, then shared by every later view."""


def public_json(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields every seat sees, converted; the colours go into each seat's ``hands``."""
    data = {**fields}
    del data["colours"]
    data["trick"] = _trick_json(fields["trick"])
    data["completed_tricks"] = _tricks_json(fields["completed_tricks"])
    data["past_deals"] = _deals_json(fields["past_deals"])
    return data
