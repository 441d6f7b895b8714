"""Ratings per game, with OpenSkill's Plackett-Luce model (any number of players, shared
places for ties).

A rating is shown as OpenSkill's ordinal, μ − 3σ: it starts at 0, as on Board Game Arena,
and grows as the rating becomes both higher and surer. A person whose seat a bot played for
most of the game is placed after everyone: leaving a game that goes badly costs what
losing it would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Skill:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def shown(self) -> float:
        """The rating people see: μ − 3σ, to one decimal."""
        return round(self.mu - 3 * self.sigma, 1)


@dataclass(frozen=True)
class Standing:
    """One seat at a game's end, as the ratings and the players' histories need it."""

    seat: int
    account: int | None
    """The person's user id, or the account of the bot's level."""
    score: float
    won: bool
    absent: bool
    """A bot played most of this person's moves."""
    rated: bool
    """The table is rated and this account may be (not a guest, not a second seat of it)."""


def places(scores: Sequence[float], winners: Sequence[int], absent: Sequence[bool]) -> list[int]:
    """Each seat's place, 1 first: the game's winners ahead (its tie-breaks decide), then by
    points; equal seats share a place; the absent come after everyone, sharing the last."""

    def key(seat: int) -> tuple[bool, bool, float]:
        return (absent[seat], seat not in winners, -scores[seat])

    return [
        1 + sum(key(other) < key(seat) for other in range(len(scores)))
        for seat in range(len(scores))
    ]


def rate(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """The skills after one game in which each player took the place in ``ranks``; alone,
    nobody is measured."""
    if len(skills) < 2:
        return list(skills)
    teams = [[MODEL.rating(mu=skill.mu, sigma=skill.sigma)] for skill in skills]
    updated = MODEL.rate(teams, ranks=list(ranks))
    return [Skill(team[0].mu, team[0].sigma) for team in updated]
