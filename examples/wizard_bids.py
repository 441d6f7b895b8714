"""How often bids in Wizard are made, from an export of the open database of games: by
bidding position and by round size, people and bots side by side.

A bid is made when its seat takes exactly the tricks it bid. A bid counts for the bots when
a bot placed it: a bot's seat, or a person's seat while a bot played for them (the export's
``stand_ins``). The bidding position is 1 for the seat after the dealer, who bids first, up
to the dealer, who bids last::

    tapisvert export --game wizard --since 2026-12-01 --output wizard.jsonl.gz
    python examples/wizard_bids.py wizard.jsonl.gz

or with the export of a running server (``curl -o wizard.jsonl.gz
'https://cards.example.org/api/export/wizard?since=2026-12-01'``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tapisvert.games.wizard.observation import WizardObservation
from tapisvert.records import ExportedGame, load_export

PEOPLE, BOTS = "people", "bots"


class Bid(NamedTuple):
    by: str
    """``PEOPLE`` or ``BOTS``: who placed it."""
    position: int
    cards: int
    """The round's size: the cards each seat was dealt."""
    made: bool


def bids(game: ExportedGame) -> Iterator[Bid]:
    """Each bid of a game of Wizard, with whether it was made: the bids are seen as the
    game is walked step by step, and the tricks each seat took in its round at the end."""
    stand_ins = set(game.stand_ins)
    placed: list[tuple[int, int, str]] = []  # (round, seat, by whom)
    final = None
    for step in game.steps():
        if step.text.startswith("bid "):
            by_bot = game.lineup[step.actor].bot is not None or step.number in stand_ins
            placed.append((step.state.segment(), step.actor, BOTS if by_bot else PEOPLE))
        final = step.state
    if final is None:
        return
    public = final.observation(None)
    assert isinstance(public, WizardObservation)
    for index, seat, by in placed:
        summary = public.past_rounds[index]
        position = (seat - summary.dealer - 1) % len(summary.bids) + 1
        made = summary.bids[seat] == summary.tricks[seat]
        yield Bid(by, position, summary.round_number, made)


@dataclass
class Tally:
    """Bids made and placed, by (people or bots, position) and by (people or bots, size)."""

    games: int = 0
    made_by_position: Counter[tuple[str, int]] = field(default_factory=Counter)
    placed_by_position: Counter[tuple[str, int]] = field(default_factory=Counter)
    made_by_size: Counter[tuple[str, int]] = field(default_factory=Counter)
    placed_by_size: Counter[tuple[str, int]] = field(default_factory=Counter)

    def add(self, bid: Bid) -> None:
        self.placed_by_position[bid.by, bid.position] += 1
        self.made_by_position[bid.by, bid.position] += bid.made
        self.placed_by_size[bid.by, bid.cards] += 1
        self.made_by_size[bid.by, bid.cards] += bid.made


def tally(games: Iterable[ExportedGame]) -> Tally:
    counted = Tally()
    for game in games:
        if game.record.game != "wizard":
            continue
        counted.games += 1
        for bid in bids(game):
            counted.add(bid)
    return counted


def table(
    title: str, made: Counter[tuple[str, int]], placed: Counter[tuple[str, int]]
) -> list[str]:
    """One line per value of the key, people and bots side by side."""
    lines = [f"{title:>10}  {PEOPLE:>16}  {BOTS:>16}"]
    for key in sorted({key for _, key in placed}):
        cells = []
        for by in (PEOPLE, BOTS):
            count = placed[by, key]
            share = f"{made[by, key] / count:.0%} of {count}" if count else "-"
            cells.append(f"{share:>16}")
        lines.append(f"{key:>10}  {'  '.join(cells)}")
    return lines


def report(counted: Tally) -> str:
    lines = [f"Bids made in {counted.games} games of Wizard", ""]
    lines += table("position", counted.made_by_position, counted.placed_by_position)
    lines.append("")
    lines += table("cards", counted.made_by_size, counted.placed_by_size)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> Tally:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("export", type=Path, help="an export, gzip-compressed or not")
    arguments = parser.parse_args(argv)
    counted = tally(load_export(arguments.export))
    print(report(counted))
    return counted


if __name__ == "__main__":
    main()
