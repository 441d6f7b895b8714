"""Standings: tournament points from the places taken at each table, and the tie-breaks.

A game at a table of ``n`` gives each player a point for every other player they finish
ahead of and half a point for each one level with them (a chess score, generalised to
tables of several), scaled to the tournament's table size so that a player at a table one
seat short is not the poorer for it: at a table of four, 3, 2, 1 and 0 points. A player who
was absent when the round began, or who withdrew, finishes behind everyone (a bot played
for them): no points.

Ties are broken, in order, by (1) the opponents' points (the sum of the tournament points of
every player met, each time met: who faced the stronger field), (2) the score margin (the
sum over games of the player's score minus their table's mean score), (3) the earlier
registration.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Finished:
    """One finished tournament game: who sat there (by player id), their places (1 first,
    equal places for a tie), their scores, and who was absent."""

    players: tuple[int, ...]
    places: tuple[int, ...]
    scores: tuple[float, ...]
    absent: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Standing:
    player: int
    points: float
    opponents_points: float
    margin: float
    games: int
    rank: int
    """1 first: the last tie-break, the earlier registration, leaves no two level."""


def game_points(game: Finished, table_size: int) -> dict[int, float]:
    """Each player's tournament points from one game (see the module's text)."""
    present = [
        (player, place)
        for player, place in zip(game.players, game.places, strict=True)
        if player not in game.absent
    ]
    others = len(game.players) - 1
    scale = (table_size - 1) / others if others else 0.0
    points = dict.fromkeys(game.players, 0.0)
    for player, place in present:
        beaten = float(sum(other in game.absent for other in game.players if other != player))
        for other, other_place in present:
            if other != player:
                beaten += 1.0 if place < other_place else 0.5 if place == other_place else 0.0
        points[player] = beaten * scale
    return points


def standings(
    registered: Sequence[int], games: Sequence[Finished], table_size: int
) -> list[Standing]:
    """The players in ``registered`` (in the order they registered) ranked after ``games``."""
    points: dict[int, float] = defaultdict(float)
    margin: dict[int, float] = defaultdict(float)
    played: dict[int, int] = defaultdict(int)
    met: dict[int, list[int]] = defaultdict(list)
    for game in games:
        for player, earned in game_points(game, table_size).items():
            points[player] += earned
            played[player] += 1
        mean = sum(game.scores) / len(game.scores)
        for player, score in zip(game.players, game.scores, strict=True):
            margin[player] += score - mean
            met[player].extend(other for other in game.players if other != player)
    order = {player: index for index, player in enumerate(registered)}

    def key(player: int) -> tuple[float, float, float]:
        opponents = sum(points[other] for other in met[player])
        return (-points[player], -opponents, -margin[player])

    ranked = sorted(registered, key=lambda player: (key(player), order[player]))
    return [
        Standing(
            player=player,
            points=points[player],
            opponents_points=-key(player)[1],
            margin=margin[player],
            games=played[player],
            rank=index + 1,
        )
        for index, player in enumerate(ranked)
    ]
