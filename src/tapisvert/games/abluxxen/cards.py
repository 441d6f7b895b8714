"""Abluxxen's 109 cards as kinds: ``JOKER`` (0) and the numbers 1..13, eight of each.

Identical cards are interchangeable, so hands, the pile and the discard pile are count
vectors indexed by kind. A played set is ``(value, numbers, jokers)``: ``numbers`` cards
of ``value`` and ``jokers`` jokers, or jokers alone with the value ``JOKER_SET_VALUE``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final, NamedTuple

from tapisvert.core.errors import IllegalActionError
from tapisvert.core.notation import ascii_number

JOKER: Final = 0
HIGHEST: Final = 13
KINDS: Final = HIGHEST + 1
COPIES: Final = 8
JOKERS: Final = 5
JOKER_SET_VALUE: Final = 14
DECK_COUNTS: tuple[int, ...] = (JOKERS, *([COPIES] * HIGHEST))
HAND_SIZE: Final = 13
DISPLAY_SIZE: Final = 6


class CardSet(NamedTuple):
    value: int
    numbers: int
    jokers: int

    @property
    def size(self) -> int:
        return self.numbers + self.jokers

    def cards(self) -> list[int]:
        number = [] if self.value == JOKER_SET_VALUE else [self.value] * self.numbers
        return [*number, *([JOKER] * self.jokers)]


def kind_to_string(kind: int) -> str:
    return "X" if kind == JOKER else str(kind)


def string_to_kind(text: str) -> int:
    word = text.strip().upper()
    if word in ("X", "J"):
        return JOKER
    number = ascii_number(word)
    if number is not None and 1 <= number <= HIGHEST:
        return number
    raise IllegalActionError("abluxxen.error.not_a_card", text=text)


def set_to_string(played: CardSet) -> str:
    """``7x3``, ``7x2+J``, ``7x1+2J``, ``J`` or ``Jx3``."""
    if played.value == JOKER_SET_VALUE:
        return "J" if played.jokers == 1 else f"Jx{played.jokers}"
    jokers = "" if not played.jokers else "+J" if played.jokers == 1 else f"+{played.jokers}J"
    return f"{played.value}x{played.numbers}{jokers}"


_SET = re.compile(r"J(?:X([0-9]+))?|([0-9]+)(?:X([0-9]+))?(?:\+([0-9]*)J)?")


def string_to_set(text: str) -> CardSet:
    """The set ``text`` names; only sets the deck can hold, so that no text is read as
    another set (a set's action holds each count in one decimal digit)."""
    match = _SET.fullmatch(text.strip().upper())
    if match is not None:
        jokers_alone, value, numbers, jokers = match.groups()
        if value is None:
            played = CardSet(JOKER_SET_VALUE, 0, int(jokers_alone or "1"))
        else:
            played = CardSet(
                int(value), int(numbers or "1"), int(jokers or "1") if jokers is not None else 0
            )
        if played.value == JOKER_SET_VALUE and 1 <= played.jokers <= JOKERS:
            return played
        if (
            1 <= played.value <= HIGHEST
            and 1 <= played.numbers <= COPIES
            and played.jokers <= JOKERS
        ):
            return played
    raise IllegalActionError("abluxxen.error.not_a_set", text=text)


def counts_of(cards: Iterable[int]) -> tuple[int, ...]:
    """The count vector of ``cards``, by kind, as a state keeps it."""
    counts = [0] * KINDS
    for card in cards:
        counts[card] += 1
    return tuple(counts)


def cards_of(counts: Sequence[int]) -> list[int]:
    """The cards of a count vector, numbers ascending, jokers last."""
    cards: list[int] = []
    for kind in _CARD_ORDER:
        count = counts[kind]
        if count:
            cards += [kind] * count
    return cards


_CARD_ORDER = (*range(1, KINDS), JOKER)


@lru_cache(maxsize=16384)
def card_tuple(counts: tuple[int, ...]) -> tuple[int, ...]:
    """``cards_of(counts)`` as a tuple, remembered: a view shows the hands and piles of every
    position, most of them as they were a move before (or at another table)."""
    return tuple(cards_of(counts))


def legal_sets(hand: Sequence[int]) -> list[CardSet]:
    """Every set a hand can play: one value with any jokers, or jokers alone."""
    jokers = hand[JOKER]
    sets = [
        CardSet(value, numbers, added)
        for value in range(1, KINDS)
        for numbers in range(1, hand[value] + 1)
        for added in range(jokers + 1)
    ]
    sets.extend(CardSet(JOKER_SET_VALUE, 0, added) for added in range(1, jokers + 1))
    return sets


def is_playable(played: CardSet, hand: Sequence[int]) -> bool:
    """Whether ``hand`` can play ``played``: one of the sets ``legal_sets`` lists."""
    if played.value == JOKER_SET_VALUE:
        return played.numbers == 0 and 1 <= played.jokers <= hand[JOKER]
    return (
        1 <= played.value <= HIGHEST
        and 1 <= played.numbers <= hand[played.value]
        and 0 <= played.jokers <= hand[JOKER]
    )


def can_steal(played: CardSet, top: CardSet) -> bool:
    """Same number of cards and a strictly higher value."""
    return played.size == top.size and played.value > top.value
