"""What a Luz player can deduce about their own hidden values, exactly.

A player sees every opponent's values and every played card, so the cards unknown to
them are, colour by colour, exactly their own unplayed cards plus the set-aside cards.
Within one colour their cards were sorted at the deal: the values they have seen played
from their own hand split the colour's slots into *gaps*, and the hidden slots of a gap
hold an increasing choice of the unknown values lying strictly inside it. Colours and
gaps are independent, so the consistent hands are the products of those choices: the
i-th of m hidden slots among n candidates ``c_1 < … < c_n`` can hold ``c_i … c_{n-m+i}``,
and a uniform consistent hand draws each gap's m values uniformly.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Container, Iterable, Sequence
from typing import NamedTuple

from tapisvert.games.luz.cards import CARD_VALUES, COLOUR_COUNT, MAX_VALUE, colour_of


class Gap(NamedTuple):
    """Hidden slots of one colour between two known values (exclusive bounds)."""

    colour: int
    slots: tuple[int, ...]
    candidates: tuple[int, ...]


def hand_gaps(
    colours: Sequence[int],
    revealed: dict[int, int],
    unknown_cards: Container[int],
    only: Collection[int] | None = None,
) -> list[Gap]:
    """The gaps of one hand (of the colours ``only`` alone, when given).

    ``colours[slot]`` is each slot's colour, ``revealed`` maps played slots to their card,
    ``unknown_cards`` is what this viewer has not seen anywhere.
    """
    gaps: list[Gap] = []
    for colour in range(COLOUR_COUNT) if only is None else sorted(only):
        low = first = colour * MAX_VALUE  # the card below the gap's lowest candidate, plus 1
        pending: list[int] = []
        for slot, slot_colour in enumerate(colours):
            if slot_colour != colour:
                continue
            if slot not in revealed:
                pending.append(slot)
                continue
            high = revealed[slot]
            if pending:
                candidates = tuple([held for held in range(low, high) if held in unknown_cards])
                gaps.append(Gap(colour, tuple(pending), candidates))
                pending = []
            low = high + 1
        if pending:
            high = first + MAX_VALUE
            candidates = tuple([held for held in range(low, high) if held in unknown_cards])
            gaps.append(Gap(colour, tuple(pending), candidates))
    return gaps


def colour_values(
    possible: list[tuple[int, ...] | None],
    slots: Sequence[int],
    dealt: Sequence[int],
    hand: Sequence[int],
    unseen: Sequence[int],
    first: int,
) -> None:
    """Set ``possible[slot]`` for the slots of one colour to the values each may still hold
    (``None`` for a played slot): the i-th of a gap's m slots among n candidates, the i-th to
    the (n-m+i)-th of them (see the module's documentation).

    ``slots`` are the colour's slots in order, ``dealt`` the hand as dealt (sorted), ``hand``
    as it is (a negative card: played), ``unseen`` the colour's cards out of every hand (set
    aside), ``first`` its lowest card. A gap's candidates are its own cards, which lie
    between its bounds since the hand was sorted, and the set-aside cards between them."""
    low = first
    pending: list[int] = []
    for slot in slots:
        if hand[slot] >= 0:
            pending.append(slot)
            continue
        possible[slot] = None
        high = dealt[slot]
        if pending:
            _gap_values(possible, pending, hand, unseen, low, high)
            pending = []
        low = high + 1
    if pending:
        _gap_values(possible, pending, hand, unseen, low, first + MAX_VALUE)


def _gap_values(
    possible: list[tuple[int, ...] | None],
    pending: list[int],
    hand: Sequence[int],
    unseen: Sequence[int],
    low: int,
    high: int,
) -> None:
    """The gap's candidates merged in order from its own cards (increasing: the hand was
    sorted) and the set-aside cards between its bounds, as values: plain loops, for this
    runs at every deal for every seat, and again for each colour a seat plays."""
    held = [hand[slot] for slot in pending]
    candidates: list[int] = []
    next_held = 0
    for card in unseen:
        if card >= high:
            break
        if card >= low:
            while next_held < len(held) and held[next_held] < card:
                candidates.append(held[next_held])
                next_held += 1
            candidates.append(card)
    candidates += held[next_held:]
    values = [CARD_VALUES[card] for card in candidates]
    spare = len(values) - len(pending) + 1
    for index, slot in enumerate(pending):
        possible[slot] = tuple(values[index : index + spare])


def sample_hand(gaps: Sequence[Gap], rng: random.Random) -> dict[int, int]:
    """A uniformly drawn consistent assignment: slot → card."""
    assignment: dict[int, int] = {}
    for gap in gaps:
        chosen = sorted(rng.sample(gap.candidates, len(gap.slots)))
        assignment.update(zip(gap.slots, chosen, strict=True))
    return assignment


def unknown_by_colour(unknown_cards: Iterable[int]) -> tuple[tuple[int, ...], ...]:
    """Cards by colour, each colour's in order (the set-aside ones, for :func:`colour_values`),
    as tuples (see ``_deal_layout`` in the rules: a cache keeps thousands)."""
    by_colour: list[list[int]] = [[] for _ in range(COLOUR_COUNT)]
    for unknown in sorted(unknown_cards):
        by_colour[colour_of(unknown)].append(unknown)
    return tuple(map(tuple, by_colour))
