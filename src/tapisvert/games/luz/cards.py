"""Luz's cards as small ints: ``colour * 12 + value - 1``, colours red, yellow, green, blue, purple.

Yellow is the permanent trump. With 3, 4 or 5 players the values 1–8, 1–10 or 1–12 of
each colour are used; a hand is kept in the canonical sorted order (colour groups in
the order R, Y, G, B, P, values ascending), and a card is named by its *slot*, its
position 0..9 in that order at the deal, which it keeps until it is played.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from tapisvert.core.errors import IllegalActionError
from tapisvert.core.notation import ascii_number
from tapisvert.i18n import Message, message

COLOURS = "RYGBP"
COLOUR_COUNT: Final = 5
YELLOW: Final = 1
MAX_VALUE: Final = 12
HAND_SIZE: Final = 10
SET_ASIDE: Final = 10
DEALS: Final = 4
VALUES_BY_PLAYERS = {3: 8, 4: 10, 5: 12}
COLOUR_NAME_KEYS = (
    "luz.colour.red",
    "luz.colour.yellow",
    "luz.colour.green",
    "luz.colour.blue",
    "luz.colour.purple",
)

SUCCESS_POINTS: Final[dict[int, tuple[int, int, int, int]]] = {
    0: (10, 20, 30, 40),
    1: (5, 10, 15, 20),
}
"""Points for a successful bet, by safety bead (0/1) and deal (1..4).

PROVISIONAL: the real table of the game could not be found; these are the project's
placeholder values (the table of ``rules.en.md``, "Scoring"). Every score computed with them is
provisional, and this constant is the one place to change when the table is found.
"""
FAIL_POINTS_PER_TRICK: Final = 5


def colour_of(card: int) -> int:
    return card // MAX_VALUE


def value_of(card: int) -> int:
    return card % MAX_VALUE + 1


CARD_VALUES: Final = tuple(map(value_of, range(COLOUR_COUNT * MAX_VALUE)))
"""Each card's value, by card id."""


def card(colour: int, value: int) -> int:
    return colour * MAX_VALUE + value - 1


def deck(players: int, values: int | None = None, colours: int = COLOUR_COUNT) -> list[int]:
    """The play deck for ``players``, in canonical order: the values 1 to ``values`` of the
    first ``colours`` colours (``None``: as many values as the rules give that many players)."""
    values = VALUES_BY_PLAYERS[players] if values is None else values
    return [card(colour, value) for colour in range(colours) for value in range(1, values + 1)]


def card_to_string(card_id: int) -> str:
    return f"{COLOURS[colour_of(card_id)]}{value_of(card_id)}"


def string_to_card(text: str) -> int:
    word = text.strip().upper()
    if len(word) >= 2 and word[0] in COLOURS:
        value = ascii_number(word[1:])
        if value is not None and 1 <= value <= MAX_VALUE:
            return card(COLOURS.index(word[0]), value)
    raise IllegalActionError("luz.error.not_a_card", text=text)


def colour_name(colour: int) -> Message:
    return message(COLOUR_NAME_KEYS[colour])


def trick_winner(cards: Sequence[int]) -> int:
    """The index of the winning card: the highest yellow, else the highest of the led colour."""
    yellows = [index for index, played in enumerate(cards) if colour_of(played) == YELLOW]
    led = colour_of(cards[0])
    pool = yellows or [index for index, played in enumerate(cards) if colour_of(played) == led]
    return max(pool, key=lambda index: cards[index])


def bet_succeeds(tricks: int, bet: int, safety: int) -> bool:
    return tricks == bet or (safety == 1 and tricks == bet + 1)


def final_ranking(
    totals: Sequence[int], last_deal_points: Sequence[int], last_first_player: int
) -> list[int]:
    """Seats from first to last: the total, then the points of the last deal, then the
    seat closest clockwise to the last deal's first player (who wins any tie they are in)."""
    players = len(totals)
    return sorted(
        range(players),
        key=lambda seat: (
            -totals[seat],
            -last_deal_points[seat],
            (seat - last_first_player) % players,
        ),
    )


def deal_score(tricks: int, bet: int, safety: int, deal_number: int) -> int:
    """The points of one deal (``deal_number`` from 1), with the provisional success table."""
    if bet_succeeds(tricks, bet, safety):
        return SUCCESS_POINTS[safety][deal_number - 1]
    return -FAIL_POINTS_PER_TRICK * abs(tricks - bet)
