"""Wizard's 60 cards as small ints, and hands as ints.

A card *kind* is ``suit * 13 + value - 1`` for the 52 suit cards (suits blue, red,
green, yellow; values 1..13), ``WIZARD`` (52) or ``JESTER`` (53). The four Wizards
are alike, and so are the four Jesters, so a hand is a single int: bits 0..51 hold
the suit cards, a 3-bit count of Wizards sits at bit 52 and one of Jesters at bit 55.
Set operations, follow-suit tests and clones are then integer operations. A state keeps each
hand in five parts of one digit each (``HAND_PARTS``), on which a card's play is a look-up
and a subtraction.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from tapisvert.core.errors import IllegalActionError
from tapisvert.core.notation import ascii_number
from tapisvert.i18n import Message, message

SUITS: Final = 4
VALUES: Final = 13
SUIT_CARDS: Final = SUITS * VALUES
WIZARD: Final = 52
JESTER: Final = 53
KINDS: Final = 54
COPIES_OF_SPECIALS: Final = 4
DECK_SIZE: Final = 60

SUIT_LETTERS: Final = "BRGY"
SUIT_NAME_KEYS: Final = (
    "wizard.suit.blue",
    "wizard.suit.red",
    "wizard.suit.green",
    "wizard.suit.yellow",
)

WIZARD_UNIT: Final = 1 << 52
JESTER_UNIT: Final = 1 << 55
WIZARD_FIELD: Final = 7 << 52
JESTER_FIELD: Final = 7 << 55
SUIT_FIELD: Final = (1 << 13) - 1
CARD_UNIT: Final[tuple[int, ...]] = (
    *(1 << kind for kind in range(SUIT_CARDS)),
    WIZARD_UNIT,
    JESTER_UNIT,
)
FULL_DECK: Final = (1 << SUIT_CARDS) - 1 + COPIES_OF_SPECIALS * (WIZARD_UNIT + JESTER_UNIT)

# For each suit, the tuple of card kinds held for every 13-bit pattern of that suit.
SUIT_TABLES: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(
        tuple(suit * VALUES + value for value in range(VALUES) if pattern >> value & 1)
        for pattern in range(1 << VALUES)
    )
    for suit in range(SUITS)
)
_SUIT_TABLE_0: Final = SUIT_TABLES[0]
_SUIT_TABLE_1: Final = SUIT_TABLES[1]
_SUIT_TABLE_2: Final = SUIT_TABLES[2]
_SUIT_TABLE_3: Final = SUIT_TABLES[3]
_TWO_SUITS: Final = (1 << 26) - 1
# The special kinds held, for every value of ``hand >> 52`` (two 3-bit counts).
SPECIAL_TABLE: Final[tuple[tuple[int, ...], ...]] = tuple(
    (*((WIZARD,) if pattern & 7 else ()), *((JESTER,) if pattern >> 3 else ()))
    for pattern in range(64)
)


_SUIT_SIZES: Final = tuple(pattern.bit_count() for pattern in range(1 << VALUES))
_SPECIAL_SIZES: Final = tuple((pattern & 7) + (pattern >> 3) for pattern in range(64))


def suit_of(card: int) -> int:
    """The suit of a suit card; -1 for a Wizard or a Jester."""
    return card // VALUES if card < SUIT_CARDS else -1


def value_of(card: int) -> int:
    return card % VALUES + 1 if card < SUIT_CARDS else 0


def kinds_in(hand: int) -> list[int]:
    """The distinct card kinds of a hand, suit cards by suit and value, then W, then J."""
    # Split in two so that the interpreter works on ints of one 30-bit digit (its fast path).
    low = hand & _TWO_SUITS
    high = hand >> 26
    return [
        *_SUIT_TABLE_0[low & SUIT_FIELD],
        *_SUIT_TABLE_1[low >> 13],
        *_SUIT_TABLE_2[high & SUIT_FIELD],
        *_SUIT_TABLE_3[high >> 13 & SUIT_FIELD],
        *SPECIAL_TABLE[high >> 26],
    ]


HAND_PARTS: Final = SUITS + 1
"""How many ints a state keeps a hand in: each suit's 13 bits, then its specials' two counts
(``hand >> 52``). A 58-bit hand is two of the interpreter's 30-bit digits, and every shift,
mask or sum on it takes the slow path; a part is one digit, a suit's cards one look-up."""
SPECIALS: Final = SUITS
"""The part of the two counts of specials, a Wizard's in bits 0-2 and a Jester's in 3-5."""


def hand_parts(hand: int) -> list[int]:
    """A hand in its parts (see ``HAND_PARTS``)."""
    return [
        hand & SUIT_FIELD,
        hand >> 13 & SUIT_FIELD,
        hand >> 26 & SUIT_FIELD,
        hand >> 39 & SUIT_FIELD,
        hand >> 52,
    ]


def joined_hand(parts: list[int]) -> int:
    """A hand kept in parts, as one int."""
    return parts[0] | parts[1] << 13 | parts[2] << 26 | parts[3] << 39 | parts[SPECIALS] << 52


def part_kinds(parts: list[int]) -> list[int]:
    """``kinds_in`` of a hand kept in parts."""
    return [
        *_SUIT_TABLE_0[parts[0]],
        *_SUIT_TABLE_1[parts[1]],
        *_SUIT_TABLE_2[parts[2]],
        *_SUIT_TABLE_3[parts[3]],
        *SPECIAL_TABLE[parts[SPECIALS]],
    ]


def part_count(parts: list[int]) -> int:
    """``card_count`` of a hand kept in parts."""
    return (
        _SUIT_SIZES[parts[0]]
        + _SUIT_SIZES[parts[1]]
        + _SUIT_SIZES[parts[2]]
        + _SUIT_SIZES[parts[3]]
        + _SPECIAL_SIZES[parts[SPECIALS]]
    )


def suit_kinds(hand: int, suit: int) -> tuple[int, ...]:
    """The cards of ``suit`` in a hand."""
    return SUIT_TABLES[suit][hand >> (13 * suit) & SUIT_FIELD]


def cards_in(hand: int) -> list[int]:
    """Every card of a hand, a Wizard or a Jester as often as it is held."""
    cards = kinds_in(hand)
    cards.extend([WIZARD] * (wizard_count(hand) - 1 if hand & WIZARD_FIELD else 0))
    cards.extend([JESTER] * (jester_count(hand) - 1 if hand & JESTER_FIELD else 0))
    return cards


def wizard_count(hand: int) -> int:
    return hand >> 52 & 7


def jester_count(hand: int) -> int:
    return hand >> 55 & 7


FULL_DECK_CARDS: Final[tuple[int, ...]] = tuple(cards_in(FULL_DECK))


def reduced_deck(values: int, specials: int) -> int:
    """The deck whose suits hold the values 1 to ``values``, with ``specials`` Wizards and as
    many Jesters: the whole deck at 13 and 4, a smaller game for exact analysis below."""
    suit = (1 << values) - 1
    return sum(suit << (VALUES * index) for index in range(SUITS)) + specials * (
        WIZARD_UNIT + JESTER_UNIT
    )


def card_count(hand: int) -> int:
    """The cards of a hand (or of the deck), its two counts of specials read in place."""
    return (hand & (1 << SUIT_CARDS) - 1).bit_count() + (hand >> 52 & 7) + (hand >> 55 & 7)


def holds(hand: int, card: int) -> bool:
    if card < SUIT_CARDS:
        return bool(hand >> card & 1)
    return bool(hand & (WIZARD_FIELD if card == WIZARD else JESTER_FIELD))


def hand_of(cards: Iterable[int]) -> int:
    hand = 0
    for card in cards:
        hand += CARD_UNIT[card]
    return hand


def card_to_string(card: int) -> str:
    """``B7``, ``Y13``, ``W`` or ``J``."""
    if card == WIZARD:
        return "W"
    if card == JESTER:
        return "J"
    return f"{SUIT_LETTERS[card // VALUES]}{card % VALUES + 1}"


def string_to_card(text: str) -> int:
    """The card named by ``text`` (case-insensitive); raises :class:`IllegalActionError`."""
    word = text.strip().upper()
    if word == "W":
        return WIZARD
    if word == "J":
        return JESTER
    if len(word) >= 2 and word[0] in SUIT_LETTERS:
        value = ascii_number(word[1:])
        if value is not None and 1 <= value <= VALUES:
            return SUIT_LETTERS.index(word[0]) * VALUES + value - 1
    raise IllegalActionError("wizard.error.not_a_card", text=text)


def suit_name(suit: int) -> Message:
    return message(SUIT_NAME_KEYS[suit])


def string_to_suit(text: str) -> int:
    word = text.strip().upper()
    if len(word) == 1 and word in SUIT_LETTERS:
        return SUIT_LETTERS.index(word)
    raise IllegalActionError("wizard.error.not_a_suit", text=text)


FOLLOW_FREE: Final = SUITS
"""No suit to follow for the rest of the trick: a Wizard came before any suit card."""
FOLLOW_OPEN: Final = SUITS + 1
"""No suit to follow yet: nothing played, or only Jesters."""
NO_TRUMP: Final = -1


def follow_after(follow: int, card: int) -> int:
    """The suit to follow once ``card`` is played: the first non-Jester card fixes it."""
    if follow != FOLLOW_OPEN or card == JESTER:
        return follow
    return FOLLOW_FREE if card == WIZARD else card // VALUES


def card_strength(card: int, trump: int, follow: int) -> int:
    """How strongly ``card`` holds a trick; the first card of greatest strength wins.

    A Wizard beats all; then trumps by value; then the suit to follow by value; other
    suit cards and Jesters never win, unless nothing but Jesters was played.
    """
    if card == WIZARD:
        return 100
    if card == JESTER:
        return 0
    if card // VALUES == trump:
        return 40 + card % VALUES
    if card // VALUES == follow:
        return 20 + card % VALUES
    return 0


CARD_PARTS: Final[tuple[tuple[int, int], ...]] = (
    *((kind // VALUES, 1 << kind % VALUES) for kind in range(SUIT_CARDS)),
    (SPECIALS, 1),
    (SPECIALS, 1 << 3),
)
"""Each card kind's part of a hand (see ``HAND_PARTS``) and its bit or unit there."""

PlayEffect = tuple[int, int, int, int, int, int]
"""What playing a card means, on a hand's parts: the card's part, the bits of it that show
the card is held (any of a Wizard's or a Jester's three), the card's own bit or unit there,
the part that forbids it when not empty (the suit to follow, for a card of another suit;
-1: none), the suit to follow after it, and its strength after it."""


def play_effect(card: int, trump: int, follow: int) -> PlayEffect:
    part, unit = CARD_PARTS[card]
    is_suit_card = card < SUIT_CARDS
    held = unit * (1 if is_suit_card else 7)
    must_follow = follow < SUITS and is_suit_card and card // VALUES != follow
    after = follow_after(follow, card)
    forbidding = follow if must_follow else -1
    return part, held, unit, forbidding, after, card_strength(card, trump, after)


# PLAY_EFFECTS[trump][follow][card]: a card played, from one lookup (the engine's hot path).
PLAY_EFFECTS: Final[dict[int, tuple[tuple[PlayEffect, ...], ...]]] = {
    trump: tuple(
        tuple(play_effect(card, trump, follow) for card in range(KINDS))
        for follow in range(FOLLOW_OPEN + 1)
    )
    for trump in (NO_TRUMP, *range(SUITS))
}


def trick_winner(cards: Iterable[int], trump: int) -> int:
    """The index, in play order, of the card that wins a trick (``trump`` may be ``NO_TRUMP``)."""
    played = list(cards)
    follow = FOLLOW_OPEN
    for card in played:
        follow = follow_after(follow, card)
    strengths = [card_strength(card, trump, follow) for card in played]
    return strengths.index(max(strengths))


def round_score(bid: int, tricks: int) -> int:
    """20 + 10 per trick when the bid is made, else -10 per trick off."""
    if bid == tricks:
        return 20 + 10 * tricks
    return -10 * (tricks - bid if tricks > bid else bid - tricks)  # abs() is a call, compiled
