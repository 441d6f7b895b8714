"""Who sits with whom, round after round: Swiss for tables of several, knock-out by tables,
and round robin for small fields.

A round is a list of tables, each a tuple of player ids and ``None`` for a seat a bot takes
(when the creator fills the field with bots); the tables are listed strongest first.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Literal

Table = tuple[int | None, ...]
Round = list[Table]
Fill = Literal["bots", "smaller"]
Met = Counter[frozenset[int]]
"""How often each pair of players has sat at one table."""

SWAP_REACH = 2
"""How many tables apart two players may be swapped to avoid a repeated meeting: near
enough that each table still seats players of close standing."""


class FieldError(ValueError):
    """The field cannot be seated (too few players for a table of the game)."""


def table_plan(count: int, size: int, fill: Fill, smallest: int) -> list[int]:
    """How many players sit at each table: as even as can be, at most ``size``; with
    ``bots`` the empty seats are a bot's (at most one table's worth less than ``size`` in
    all, spread one or so per table), with ``smaller`` some tables are a seat or more short,
    never below ``smallest`` (the game's fewest players)."""
    if count < 1 or (fill == "smaller" and count < smallest):
        raise FieldError(f"{count} players cannot fill a table of {smallest} or more")
    tables = -(-count // size)
    base, extra = divmod(count, tables)
    plan = [base + 1] * extra + [base] * (tables - extra)
    if fill == "smaller" and plan[-1] < smallest:
        raise FieldError(f"{count} players do not divide into tables of {smallest} to {size}")
    return plan


def seated(players: Sequence[int], plan: Sequence[int], size: int, fill: Fill) -> Round:
    """``players`` in order, cut into tables by ``plan``; bots in the empty seats."""
    tables: Round = []
    start = 0
    for count in plan:
        bots = size - count if fill == "bots" else 0
        tables.append((*players[start : start + count], *([None] * bots)))
        start += count
    return tables


def meetings(rounds: Iterable[Round]) -> Met:
    met: Met = Counter()
    for tables in rounds:
        for table in tables:
            people = [player for player in table if player is not None]
            met.update(frozenset(pair) for pair in itertools.combinations(people, 2))
    return met


def repeats(table: Sequence[int | None], met: Met) -> int:
    people = [player for player in table if player is not None]
    return sum(met[frozenset(pair)] for pair in itertools.combinations(people, 2))


def swiss_round(
    ranked: Sequence[int], plan: Sequence[int], size: int, fill: Fill, met: Met
) -> Round:
    """Players of close standing together (``ranked``: best first), then swaps between
    tables at most ``SWAP_REACH`` apart wherever a swap lowers the number of repeated
    meetings without spreading a table's standings wider than the swap's reach."""
    tables = [list(table) for table in seated(ranked, plan, size, fill)]
    rank = {player: index for index, player in enumerate(ranked)}

    def cost(table: list[int | None]) -> tuple[int, int]:
        places = [rank[player] for player in table if player is not None]
        return repeats(table, met), max(places) - min(places)

    improved = True
    while improved:
        improved = False
        for first, second in _nearby(len(tables)):
            for one, other in itertools.product(
                range(len(tables[first])), range(len(tables[second]))
            ):
                a, b = tables[first][one], tables[second][other]
                if a is None or b is None:
                    continue
                before = _added(cost(tables[first]), cost(tables[second]))
                tables[first][one], tables[second][other] = b, a
                if _added(cost(tables[first]), cost(tables[second])) < before:
                    improved = True
                else:
                    tables[first][one], tables[second][other] = a, b
    for table in tables:
        table.sort(key=lambda player: len(ranked) if player is None else rank[player])
    tables.sort(key=lambda table: min(rank[player] for player in table if player is not None))
    return [tuple(table) for table in tables]


def _nearby(count: int) -> list[tuple[int, int]]:
    return [
        (first, second)
        for first in range(count)
        for second in range(first + 1, min(count, first + SWAP_REACH + 1))
    ]


def _added(one: tuple[int, int], other: tuple[int, int]) -> tuple[int, int]:
    return one[0] + other[0], one[1] + other[1]


def knockout_round(ranked: Sequence[int], plan: Sequence[int], size: int, fill: Fill) -> Round:
    """The players still in, spread by standing as a snake (1st, 2nd… to the last table,
    then back), so that the strongest do not meet before the final."""
    tables: list[list[int | None]] = [[] for _ in plan]
    order = itertools.cycle([*range(len(plan)), *reversed(range(len(plan)))])
    for player in ranked:
        index = next(order)
        while len(tables[index]) >= plan[index]:
            index = next(order)
        tables[index].append(player)
    if fill == "bots":
        for table in tables:
            table.extend([None] * (size - len(table)))
    return [tuple(table) for table in tables]


def round_robin(players: Sequence[int], size: int, smallest: int = 2) -> list[Round]:
    """Rounds after which every two players have sat at one table at least once, as few as
    a greedy covering finds (for two-player tables, the circle method: each pair once).

    Each round seats everyone (tables as even as can be); each table is filled with the
    player who meets the most players not met yet at that table, earliest registered first.
    """
    if len(players) < 2:
        return []
    if size == 2:
        return _circle(players)
    plan = table_plan(len(players), size, "smaller", smallest)
    met: Met = Counter()
    every = {frozenset(pair) for pair in itertools.combinations(players, 2)}
    rounds: list[Round] = []
    while not every <= set(met):
        if len(rounds) > len(every):  # each round covers a pair at least: never reached
            raise FieldError("the round robin does not cover every pair")
        left = list(players)
        tables: Round = []
        for count in plan:
            table = [left.pop(0)]
            while len(table) < count:
                best = max(
                    left,
                    key=lambda player: sum(met[frozenset((player, other))] == 0 for other in table),
                )
                left.remove(best)
                table.append(best)
            tables.append(tuple(table))
        rounds.append(tables)
        met.update(meetings([tables]))
        players = [*players[1:], players[0]]  # each round starts the tables from another player
    return rounds


def _circle(players: Sequence[int]) -> list[Round]:
    """Two-player round robin: one fixed, the others turning (a bye when the count is odd)."""
    ring: list[int | None] = [*players, *([None] if len(players) % 2 else [])]
    rounds: list[Round] = []
    for _ in range(len(ring) - 1):
        half = len(ring) // 2
        pairs = [(ring[index], ring[-1 - index]) for index in range(half)]
        rounds.append([pair for pair in pairs if None not in pair])
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return rounds
