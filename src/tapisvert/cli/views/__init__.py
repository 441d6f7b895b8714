"""Terminal views: each game renders one seat's observation, and nothing else.

A game's view is the module its plugin names (``GamePlugin.terminal_view``), with two
functions of the shape of :class:`tapisvert.core.registry.TerminalView`; ``common`` holds
what the games' views share. The table is drawn from a state by
:func:`tapisvert.core.display.render_state`, which adds a finished game's end.
"""

from __future__ import annotations

from rich.console import RenderableType

from tapisvert.core.game import Observation
from tapisvert.core.registry import terminal_view


def news(
    game: str, before: Observation | None, after: Observation, language: str
) -> list[RenderableType]:
    """What that seat learnt between two observations (tricks taken, rounds scored)."""
    return terminal_view(game).news(before, after, language)
