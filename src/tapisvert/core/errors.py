"""Errors that carry a message a player can read, in their own language."""

from __future__ import annotations

from tapisvert.i18n import Message, message


class TapisvertError(Exception):
    """Base of the errors this package raises on purpose."""

    def __init__(self, key: str, **arguments: object) -> None:
        self.message: Message = message(key, **arguments)
        super().__init__(self.message.render())

    def render(self, language: str) -> str:
        return self.message.render(language)


class IllegalActionError(TapisvertError, ValueError):
    """An action that the rules do not allow now, or a text that names no action."""


class OptionError(TapisvertError, ValueError):
    """A game option that does not exist or has a value the game cannot take."""


class SeatError(TapisvertError, ValueError):
    """A seat that is none of the game's: seats count from 0 (``P1`` in notation)."""


class RecordError(TapisvertError, ValueError):
    """A game record that cannot be read or does not replay; ``line`` names where."""

    def __init__(self, key: str, line: int | None = None, **arguments: object) -> None:
        self.line = line
        super().__init__(key, line=line, **arguments)
