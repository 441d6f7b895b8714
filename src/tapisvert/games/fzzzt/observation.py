"""What a seat knows of a Fzzzt! position, and its JSON form.

Apart from the rules so that compiling them (``scripts/compile``) leaves the observation, a
dataclass the rules build field by field, and the named tuples in it as plain Python, with
their field types as written: a decision sent to a bot worker is checked against them
(``tapisvert.core.wire``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, NamedTuple

from tapisvert.core.cache import IdentityCache, itemwise
from tapisvert.core.game import Seat
from tapisvert.core.observation import Observation
from tapisvert.games.fzzzt.cards import NAMES, SYMBOL_LETTERS, card_named, name

HIDDEN: Final = -1
"""A belt slot whose card is still face down."""
GONE: Final = -2
"""A belt slot whose card has been auctioned."""


class AuctionResult(NamedTuple):
    """A finished auction, public once the bids are revealed."""

    card: int
    bids: tuple[tuple[int, ...] | None, ...]
    winner: Seat


class Placement(NamedTuple):
    """A robot card (``card``) or a symbol chit (``chit``, VERSUS) on a production unit."""

    card: int
    chit: int


Units = tuple[tuple[int, tuple[Placement, ...]], ...]
"""A seat's production units, each with what was placed on it, in the order they were won."""


@dataclass(frozen=True)
class FzzztObservation(Observation):
    """What one seat knows.

    Everyone knows which cards each seat owns (the starting robots and every auction are
    public) and their discard piles; a seat knows its own hand, sealed bid and the
    contents of its draw pile; of the others it knows the sizes, and the cards known to
    be in hand (taken back after a lost bid, or the starting hand). ``belt`` holds the
    card of each belt slot, ``HIDDEN`` while face down, ``GONE`` once auctioned.
    """

    players: int
    round: int
    auction: int
    chief: Seat
    phase: str
    current_player: Seat
    mechanics: tuple[int | None, ...]
    hand: tuple[int, ...]
    bid: tuple[int, ...]
    draw_pile: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    draw_sizes: tuple[int, ...]
    bid_sizes: tuple[int | None, ...]
    discards: tuple[tuple[int, ...], ...]
    known_held: tuple[tuple[int, ...], ...]
    owned: tuple[tuple[int, ...], ...]
    units: tuple[tuple[tuple[int, tuple[Placement, ...]], ...], ...]
    chits: tuple[tuple[int, ...], ...]
    placed_this_phase: tuple[int, ...]
    belt: tuple[int, ...]
    pending_draws: tuple[tuple[Seat, int], ...]
    conveyor_left: int
    last_auction: AuctionResult | None
    scores: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return json_fields(self.__dict__)

    @classmethod
    def fields_from_dict(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        fields = dict(data)
        for field in ("hand", "bid", "draw_pile", "placed_this_phase"):
            fields[field] = _cards(data[field])
        for field in ("discards", "known_held", "owned"):
            fields[field] = [_cards(cards) for cards in data[field]]
        fields["mechanics"] = [
            None if text is None else card_named(text) for text in data["mechanics"]
        ]
        fields["belt"] = [
            _BELT_SLOTS[text] if text in _BELT_SLOTS else card_named(text) for text in data["belt"]
        ]
        fields["units"] = [
            [(card_named(unit["unit"]), list(map(_placement_of, unit["robots"]))) for unit in units]
            for units in data["units"]
        ]
        fields["chits"] = [
            [SYMBOL_LETTERS.index(letter) for letter in chits] for chits in data["chits"]
        ]
        last = data["last_auction"]
        fields["last_auction"] = (
            None
            if last is None
            else {
                **last,
                "card": card_named(last["card"]),
                "bids": [None if bid is None else _cards(bid) for bid in last["bids"]],
            }
        )
        return fields


def json_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Observation fields (all, or some) as a client reads them."""
    return {
        key: value if (convert := _JSON_FORMS.get(key)) is None else convert(value)
        for key, value in fields.items()
    }


def own_json(
    seat: Seat | None, hand: tuple[int, ...], bid: tuple[int, ...], draw_pile: tuple[int, ...]
) -> dict[str, Any]:
    """``json_fields`` of a seat's own fields, written out: made for every seat after every
    move."""
    return {
        "hand": _cards_json(hand),
        "bid": _cards_json(bid),
        "draw_pile": _cards_json(draw_pile),
        "seat": seat,
    }


@lru_cache(maxsize=16384)
def _cards_json(cards: tuple[int, ...]) -> tuple[str, ...]:
    """Cards as a client reads them; the same cards are not converted again (a hand is often
    what it was a few moves before, or another table's)."""
    return tuple([NAMES[card] for card in cards])


_card_lists_json: IdentityCache[tuple[tuple[int, ...], ...], tuple[tuple[str, ...], ...]] = (
    IdentityCache(lambda lists: tuple(map(_cards_json, lists)))
)
_mechanics_json: IdentityCache[tuple[int | None, ...], tuple[str | None, ...]] = IdentityCache(
    lambda mechanics: tuple([None if card is None else NAMES[card] for card in mechanics])
)
_belt_json: IdentityCache[tuple[int, ...], tuple[str, ...]] = IdentityCache(
    lambda belt: tuple(
        ["hidden" if card == HIDDEN else "gone" if card == GONE else NAMES[card] for card in belt]
    )
)


def _units_dicts(owned: Units) -> tuple[dict[str, Any], ...]:
    return tuple(
        {"unit": NAMES[unit], "robots": tuple(map(_placement_text, items))} for unit, items in owned
    )


_units_json: IdentityCache[tuple[Units, ...], tuple[tuple[dict[str, Any], ...], ...]] = itemwise(
    _units_dicts
)
_chits_json: IdentityCache[tuple[tuple[int, ...], ...], tuple[tuple[str, ...], ...]] = itemwise(
    lambda owned: tuple([SYMBOL_LETTERS[chit] for chit in owned])
)


def _auction_dict(auction: AuctionResult) -> dict[str, Any]:
    return {
        "card": NAMES[auction.card],
        "bids": tuple([None if bid is None else _cards_json(bid) for bid in auction.bids]),
        "winner": auction.winner,
    }


_auction_json: IdentityCache[AuctionResult, dict[str, Any]] = IdentityCache(_auction_dict)


def _placement_text(item: Placement) -> str:
    return CHIT_TEXT + SYMBOL_LETTERS[item.chit] if item.card < 0 else name(item.card)


CHIT_TEXT = "chit "


def _placement_of(text: str) -> dict[str, int]:
    """The inverse of ``_placement_text``, as the fields of a :class:`Placement`."""
    if text.startswith(CHIT_TEXT):
        return Placement(-1, SYMBOL_LETTERS.index(text.removeprefix(CHIT_TEXT)))._asdict()
    return Placement(card_named(text), -1)._asdict()


def _cards(texts: Sequence[str]) -> list[int]:
    return [card_named(text) for text in texts]


_BELT_SLOTS = {"hidden": HIDDEN, "gone": GONE}


_JSON_FORMS: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(("hand", "bid", "draw_pile", "placed_this_phase"), _cards_json),
    **dict.fromkeys(("discards", "known_held", "owned"), _card_lists_json),
    "mechanics": _mechanics_json,
    "belt": _belt_json,
    "units": _units_json,
    "chits": _chits_json,
    "last_auction": lambda auction: None if auction is None else _auction_json(auction),
}
"""How each observation field that holds cards, symbols or placements is sent."""
