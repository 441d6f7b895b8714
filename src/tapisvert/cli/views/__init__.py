"""Terminal views: each game renders one seat's observation, and nothing else."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import RenderableType

from tapisvert.cli.views.abluxxen import abluxxen_news, render_abluxxen
from tapisvert.cli.views.fzzzt import fzzzt_news, render_fzzzt
from tapisvert.cli.views.luz import luz_news, render_luz
from tapisvert.cli.views.wizard import render_wizard, wizard_news
from tapisvert.core.game import Observation

View = Callable[[Observation, str], RenderableType]
News = Callable[[Observation | None, Observation, str], list[RenderableType]]
VIEWS: dict[str, tuple[View, News]] = {
    "abluxxen": (render_abluxxen, abluxxen_news),
    "fzzzt": (render_fzzzt, fzzzt_news),
    "luz": (render_luz, luz_news),
    "wizard": (render_wizard, wizard_news),
}


def render(game: str, observation: Observation, language: str) -> RenderableType:
    """The table as the observation's seat sees it."""
    return VIEWS[game][0](observation, language)


def news(
    game: str, before: Observation | None, after: Observation, language: str
) -> list[RenderableType]:
    """What that seat learnt between two observations (tricks taken, rounds scored)."""
    return VIEWS[game][1](before, after, language)
