"""Fzzzt!'s 56 cards, in ONE replaceable data table.

PROVISIONAL: the official card list was not found. The values come from
a secondary source, plus this project's reconstruction of the starting robots of
mechanics 3 and 4. Change ``CARDS`` and nothing else when the real list turns up.

Symbols are bits: nut ``N``, bolt ``B``, gear ``G``, oil ``O``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Final

from tapisvert.core.errors import IllegalActionError
from tapisvert.core.matching import matching_size

NUT: Final = 1
BOLT: Final = 2
GEAR: Final = 4
OIL: Final = 8
SYMBOL_LETTERS = "NBGO"
SYMBOL_BITS: Final = (NUT, BOLT, GEAR, OIL)


class Kind(IntEnum):
    MECHANIC = 0
    STARTER = 1
    ROBOT = 2
    UPGRADE = 3
    FZZZT = 4
    UNIT = 5


@dataclass(frozen=True)
class CardSpec:
    name: str
    kind: Kind
    zap: int
    vp: int
    symbols: int
    belt: int
    value: int = 0
    mechanic: int = 0
    """The mechanic number of a mechanic card or a starting robot."""


def symbols(text: str) -> int:
    return sum(SYMBOL_BITS[SYMBOL_LETTERS.index(letter)] for letter in text)


def _starter(mechanic: int, letter: str, zap: int, vp: int, shown: str, belt: int) -> CardSpec:
    return CardSpec(
        f"S{mechanic}{letter}", Kind.STARTER, zap, vp, symbols(shown), belt, 0, mechanic
    )


def _robot(number: int, zap: int, vp: int, shown: str, belt: int) -> CardSpec:
    return CardSpec(f"R{number:02d}", Kind.ROBOT, zap, vp, symbols(shown), belt)


def _unit(number: int, needs: str, value: int) -> CardSpec:
    return CardSpec(f"P{number:02d}", Kind.UNIT, 0, 0, symbols(needs), 3, value)


CARDS: Final[tuple[CardSpec, ...]] = (
    *(CardSpec(f"M{n}", Kind.MECHANIC, 0, 0, 0, 0, 0, n) for n in range(1, 5)),
    _starter(1, "a", 1, 1, "BG", 4),
    _starter(1, "b", 2, 2, "O", 4),
    _starter(1, "c", 3, 2, "N", 2),
    _starter(2, "a", 1, 1, "BO", 4),
    _starter(2, "b", 2, 2, "N", 4),
    _starter(2, "c", 3, 2, "G", 2),
    _starter(3, "a", 1, 1, "NG", 4),
    _starter(3, "b", 2, 2, "B", 4),
    _starter(3, "c", 3, 2, "O", 2),
    _starter(4, "a", 1, 1, "NO", 4),
    _starter(4, "b", 2, 2, "G", 4),
    _starter(4, "c", 3, 2, "B", 2),
    _robot(1, 1, 1, "N", 4),
    _robot(2, 1, 1, "B", 4),
    _robot(3, 1, 1, "G", 4),
    _robot(4, 1, 1, "O", 4),
    _robot(5, 1, 1, "NB", 4),
    _robot(6, 1, 1, "GO", 4),
    _robot(7, 1, 1, "NBG", 4),
    _robot(8, 1, 1, "NBG", 4),
    _robot(9, 2, 2, "N", 4),
    _robot(10, 2, 2, "B", 4),
    _robot(11, 2, 2, "G", 4),
    _robot(12, 2, 2, "O", 4),
    _robot(13, 3, 2, "N", 2),
    _robot(14, 3, 2, "B", 2),
    _robot(15, 3, 2, "G", 2),
    _robot(16, 3, 2, "O", 2),
    _robot(17, 4, 3, "N", 2),
    _robot(18, 4, 3, "B", 2),
    _robot(19, 4, 3, "G", 2),
    _robot(20, 4, 3, "O", 2),
    _robot(21, 5, 3, "N", 1),
    _robot(22, 5, 3, "B", 1),
    _robot(23, 5, 3, "G", 1),
    _robot(24, 5, 3, "O", 1),
    CardSpec("U1", Kind.UPGRADE, 0, 0, symbols("NBGO"), 8),
    CardSpec("U2", Kind.UPGRADE, 0, 0, symbols("NBGO"), 8),
    *(CardSpec(f"F{n}", Kind.FZZZT, 3, -1, 0, 1) for n in range(1, 5)),
    _unit(1, "NBGO", 13),
    _unit(2, "NBG", 9),
    _unit(3, "NBG", 9),
    _unit(4, "NG", 5),
    _unit(5, "BG", 5),
    _unit(6, "NO", 6),
    _unit(7, "BO", 6),
    _unit(8, "NB", 5),
    _unit(9, "GO", 6),
    _unit(10, "O", 3),
)
CARD_COUNT: Final = len(CARDS)
NAMES: tuple[str, ...] = tuple(spec.name for spec in CARDS)
BY_NAME = {spec.name.upper(): index for index, spec in enumerate(CARDS)}
MECHANICS: Final = tuple(index for index, spec in enumerate(CARDS) if spec.kind == Kind.MECHANIC)
UNITS: Final = tuple(index for index, spec in enumerate(CARDS) if spec.kind == Kind.UNIT)
ROBOT_KINDS = (Kind.STARTER, Kind.ROBOT, Kind.UPGRADE)
CARD_POINTS: Final[tuple[int, ...]] = tuple(
    spec.vp if spec.kind in ROBOT_KINDS else -1 if spec.kind == Kind.FZZZT else 0 for spec in CARDS
)
"""What each card owned adds to the score: a robot its points, a Fzzzt! card −1."""


def starting_robots(mechanic: int) -> tuple[int, ...]:
    return tuple(
        index
        for index, spec in enumerate(CARDS)
        if spec.kind == Kind.STARTER and spec.mechanic == mechanic
    )


def conveyor_cards(players: int, unused_starting_robots: str) -> tuple[int, ...]:
    """The conveyor deck: every belt card, plus the unused starting robots if shuffled in."""
    cards = [
        index for index, spec in enumerate(CARDS) if spec.kind not in (Kind.MECHANIC, Kind.STARTER)
    ]
    if unused_starting_robots == "shuffle_in":
        for mechanic in range(players + 1, 5):
            cards.extend(starting_robots(mechanic))
    return tuple(sorted(cards))


def card_faces() -> dict[str, dict[str, object]]:
    """What each card shows, by its name: kind, zap (bid power), points, production symbols
    (a unit's: those it needs, and its ``value``) and belt number, for a client to draw it."""
    faces: dict[str, dict[str, object]] = {}
    for spec in CARDS:
        face: dict[str, object] = {
            "kind": spec.kind.name.lower(),
            "zap": spec.zap,
            "points": spec.vp,
            "symbols": symbol_text(spec.symbols),
            "belt": spec.belt,
        }
        if spec.kind == Kind.UNIT:
            face["value"] = spec.value
        faces[spec.name] = face
    return faces


def name(card: int) -> str:
    return NAMES[card]


def card_named(text: str) -> int:
    try:
        return BY_NAME[text.strip().upper()]
    except KeyError:
        raise IllegalActionError("fzzzt.error.not_a_card", text=text) from None


def is_robot(card: int) -> bool:
    """Robots and upgrades: the cards that score VP and can work on production units."""
    return CARDS[card].kind in ROBOT_KINDS


def strength(cards: Iterable[int]) -> int:
    """The zap total of a bid."""
    return sum(CARDS[card].zap for card in cards)


def symbol_text(mask: int) -> str:
    return "".join(
        letter for letter, bit in zip(SYMBOL_LETTERS, SYMBOL_BITS, strict=True) if mask & bit
    )


def completed_sets(unit: int, supplies: Sequence[int]) -> int:
    """How many times ``unit`` is completed by robots offering ``supplies`` (symbol masks).

    Each robot supplies one of its symbols; a set needs every symbol of the unit from a
    different robot. The largest ``k`` with a matching of all ``k`` copies of every
    required symbol to distinct robots (a small bipartite matching).
    """
    return _completed_sets(unit, tuple(sorted(supplies)))


@lru_cache(maxsize=65536)
def _completed_sets(unit: int, supplies: tuple[int, ...]) -> int:
    """``completed_sets`` of robots in a canonical order: a unit scored again (each view
    of each position scores every unit) costs a look-up."""
    needed = [bit for bit in SYMBOL_BITS if CARDS[unit].symbols & bit]
    best = 0
    for sets in range(1, len(supplies) // len(needed) + 1):
        slots = [bit for bit in needed for _ in range(sets)]
        adjacency = [
            [robot for robot, offered in enumerate(supplies) if offered & bit] for bit in slots
        ]
        if matching_size(adjacency, len(supplies)) < len(slots):
            break
        best = sets
    return best


def unit_score(unit: int, supplies: Sequence[int]) -> int:
    """``sets × value``, or ``−value`` for a unit never completed."""
    sets = completed_sets(unit, supplies)
    value = CARDS[unit].value
    return sets * value if sets else -value
