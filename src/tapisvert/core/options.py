"""Game options: their specification and the parsers the games share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from tapisvert.core.notation import ascii_number

OptionKind = Literal["bool", "seat", "int", "choice", "text"]
"""The control a form shows for an option: a switch, a seat (``None``: random), a number
(``None``: none, unlimited), one of ``choices``, or a text (``choices`` then suggest)."""


@dataclass(frozen=True)
class OptionSpec:
    """One game option (a variant switch or a parameter) with its default and parser.

    ``kind``, ``choices``, ``minimum`` and ``maximum`` say what a form needs to offer it;
    the parser, not they, decides what the game accepts.
    """

    name: str
    default: object
    parse: Callable[[object], object]
    description_key: str
    kind: OptionKind = "text"
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    shrinks: bool = False
    """An option that shrinks the game for analysis (a smaller deck, fewer deals): forms
    keep it apart from the variants people play."""


def parse_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in {"1", "true", "yes", "on", "oui"}:
        return True
    if isinstance(value, str) and value.lower() in {"0", "false", "no", "off", "non"}:
        return False
    raise ValueError(f"expected true or false, got {value!r}")


def parse_optional_seat(value: object) -> int | None:
    if value is None or value == "random":
        return None
    if isinstance(value, str) and value.upper().startswith("P"):
        return int(value[1:]) - 1
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(
        "expected a seat such as P1 (from Python, a seat number from 0), "
        f"or 'random', got {value!r}"
    )


def parse_optional_int(value: object) -> int | None:
    if value is None or value == "" or str(value).lower() in {"none", "unlimited"}:
        return None
    number = int(str(value))
    if number < 0:
        raise ValueError("expected a number from 0, or none")
    return number


def parse_int_between(low: int, high: int) -> Callable[[object], int]:
    """A parser for a whole number from ``low`` to ``high`` (an option that shrinks a game)."""

    def parse(value: object) -> int:
        number = value if isinstance(value, int) else ascii_number(str(value).strip())
        if isinstance(number, bool) or number is None or not low <= number <= high:
            raise ValueError(f"expected a whole number from {low} to {high}")
        return number

    return parse


def parse_optional_int_between(low: int, high: int) -> Callable[[object], int | None]:
    """As :func:`parse_int_between`, with ``None`` (``none``, empty) for the game's own value."""
    parse_number = parse_int_between(low, high)

    def parse(value: object) -> int | None:
        if value is None or str(value).strip().lower() in {"", "none"}:
            return None
        return parse_number(value)

    return parse
