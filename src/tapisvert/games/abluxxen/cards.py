"""Abluxxen's 109 cards as kinds: ``JOKER`` (0) and the numbers 1..13, eight of each.

Identical cards are interchangeable, so hands, the pile and the discard pile are count
vectors indexed by kind. A played set is ``(value, numbers, jokers)``: ``numbers`` cards
of ``value`` and ``jokers`` jokers, or jokers alone with the value ``JOKER_SET_VALUE``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import suppress
from typing import NamedTuple

from tapisvert.core.errors import IllegalActionError

JOKER = 0
HIGHEST = 13
KINDS = HIGHEST + 1
COPIES = 8
JOKERS = 5
JOKER_SET_VALUE = 14
DECK_COUNTS: tuple[int, ...] = (JOKERS, *([COPIES] * HIGHEST))
HAND_SIZE = 13
DISPLAY_SIZE = 6


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
    if word.isdigit() and 1 <= int(word) <= HIGHEST:
        return int(word)
    raise IllegalActionError("abluxxen.error.not_a_card", text=text)


def set_to_string(played: CardSet) -> str:
    """``7x3``, ``7x2+J``, ``7x1+2J``, ``J`` or ``Jx3``."""
    if played.value == JOKER_SET_VALUE:
        return "J" if played.jokers == 1 else f"Jx{played.jokers}"
    jokers = "" if not played.jokers else "+J" if played.jokers == 1 else f"+{played.jokers}J"
    return f"{played.value}x{played.numbers}{jokers}"


def string_to_set(text: str) -> CardSet:
    word = text.strip().upper()
    with suppress(ValueError):  # any malformed number falls through to the clear error below
        if word.startswith("J"):
            count = 1 if word == "J" else int(word.removeprefix("JX"))
            if count >= 1:
                return CardSet(JOKER_SET_VALUE, 0, count)
        else:
            base, _, extra = word.partition("+")
            value, _, numbers = base.partition("X")
            if extra and not extra.endswith("J"):
                raise ValueError(extra)
            jokers = 0 if not extra else 1 if extra == "J" else int(extra.removesuffix("J"))
            played = CardSet(int(value), int(numbers or "1"), jokers)
            if 1 <= played.value <= HIGHEST and played.numbers >= 1 and jokers >= 0:
                return played
    raise IllegalActionError("abluxxen.error.not_a_set", text=text)


def counts_of(cards: Iterable[int]) -> list[int]:
    counts = [0] * KINDS
    for card in cards:
        counts[card] += 1
    return counts


def cards_of(counts: Sequence[int]) -> list[int]:
    """The cards of a count vector, numbers ascending, jokers last."""
    return [kind for kind in (*range(1, KINDS), JOKER) for _ in range(counts[kind])]


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
