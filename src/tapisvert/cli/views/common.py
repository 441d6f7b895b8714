"""Pieces every terminal view uses."""

from __future__ import annotations

from rich.text import Text

from tapisvert.i18n import translate


def heading(key: str, language: str, **arguments: object) -> Text:
    """A view's first line, in bold: the round, deal or turn under way."""
    return Text(translate(key, language, **arguments), style="bold")


def seat_name(seat: int, viewer: int | None, language: str) -> str:
    """``P2``, or ``P2 (you)`` for the viewer's own seat."""
    name = translate("cli.seat", language, seat=seat + 1)
    return f"{name} ({translate('cli.you', language)})" if seat == viewer else name
