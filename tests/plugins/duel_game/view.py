"""Duel in the terminal: one line for the table, one for the hand."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from duel_game import DuelObservation, name
from tapisvert.core.game import Observation
from tapisvert.i18n import translate


def render(observation: Observation, language: str) -> RenderableType:
    assert isinstance(observation, DuelObservation)
    cards = " ".join(name(card) for card in observation.hand) or "-"
    trick = " ".join(name(card) for card in observation.trick) or "-"
    points = " / ".join(str(points) for points in observation.points)
    return Text(translate("duel.view", language, trick=trick, points=points, hand=cards))


def news(before: Observation | None, after: Observation, language: str) -> list[RenderableType]:
    return []
