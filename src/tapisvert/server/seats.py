"""A table's seats: who sits in each, and how a free one is found or a bot named."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tapisvert.server.errors import ServerError


@dataclass
class Seat:
    kind: Literal["empty", "human", "bot"] = "empty"
    user_id: int | None = None
    name: str | None = None
    level: str | None = None
    replaced: bool = False
    """An absent person's seat, played by a bot until they come back."""
    owner: str | None = None
    """The name of the person who owns the bot account sitting here (see ``own_bots``)."""
    forfeited: bool = False
    """The person lost the game on time, over days: a bot plays their seat to the end."""

    def stored(self) -> dict[str, Any]:
        """The seat as its table's row keeps it (``asdict`` copies deeply, and slowly)."""
        return dict(vars(self))


_SEAT_FIELDS = frozenset(Seat.__dataclass_fields__)


def stored_seat(fields: dict[str, Any]) -> Seat:
    """A seat as a table's row keeps it; fields this version does not know are left out,
    so that nodes of two versions share tables during an upgrade."""
    return Seat(**{name: value for name, value in fields.items() if name in _SEAT_FIELDS})


def free_seat(seats: list[Seat], seat: int | None) -> int:
    """``seat`` if it is free, or (``None``) the first free one; refused otherwise."""
    if seat is None:
        for index, candidate in enumerate(seats):
            if candidate.kind == "empty":
                return index
        raise ServerError("table_full", status=409)
    if not 0 <= seat < len(seats):
        raise ServerError("no_such_seat", seat=seat + 1, seats=len(seats))
    if seats[seat].kind != "empty":
        raise ServerError("seat_taken", status=409, seat=seat + 1)
    return seat


def bot_name(seats: list[Seat], level: str) -> str:
    """``bot hard``, then ``bot hard 2``…: each seat's name says who it is.

    A person's name has no space, so no person is taken for a bot.
    """
    taken = {seat.name for seat in seats}
    name = f"bot {level}"
    number = 2
    while name in taken:
        name, number = f"bot {level} {number}", number + 1
    return name
