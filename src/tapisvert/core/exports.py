"""The open database of games: finished games as gzip-compressed JSON lines.

Each line is one game in the JSON record format (``tapisvert-record/1``: ``load_record``
reads a line alone), with what a study of the games needs besides: whether it was rated,
each seat's player (a pseudonym, or the account's name where it allowed it), rating before
the game and place, the seconds each move took, and which moves a bot played for an
absent person. The server writes it (``tapisvert export``, ``GET /api/export/GAME``);
:func:`load_export` reads it back. The fields are described in ``docs/platform/export.md``.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, cast

from tapisvert.core.errors import RecordError
from tapisvert.core.records import Record, Step, record_from_dict

EXPORT_FORMAT = "tapisvert-export/1"
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class ExportedSeat:
    """Who played a seat, as the export may tell it."""

    player: str
    """The account's name where it allowed it (bots always), else a pseudonym that stays
    the same for the account within one export and tells nothing of it."""
    named: bool
    """``player`` is the account's own name."""
    bot: str | None
    """The bot level that played the seat from the start (``None``: a person)."""
    place: int | None
    """1 first; a person a bot played for most of the game comes after everyone
    (``None``: a game stored without its results)."""
    absent: bool
    """A bot played most of this person's moves."""
    mu: float | None = None
    sigma: float | None = None
    """The seat's OpenSkill rating before the game (``None``: not rated in it); people saw
    it as μ − 3σ, to one decimal."""


@dataclass
class ExportedGame:
    """One game of an export: its record and what the export says of it."""

    record: Record
    """Its ``date`` is the day the game ended (UTC); its ``seats``, the lineup's players."""
    rated: bool
    """The game's end moved at least one rating (else every person at it allowed its
    export)."""
    lineup: list[ExportedSeat]
    times: list[float | None]
    """For each action, the seconds its seat took (``None``: chance, or a move stored
    before the server kept move times)."""
    stand_ins: list[int] = field(default_factory=list)
    """The steps (numbered from 1, as :class:`Step`) a bot played for an absent person."""

    def steps(self) -> Iterator[Step]:
        """The game replayed step by step, every action checked (see :meth:`Record.steps`)."""
        return self.record.steps()

    def to_line(self) -> str:
        """The game as one line of the export, without its newline."""
        data: dict[str, Any] = {
            **self.record.head(),
            "actions": self.record.actions,
            "export": EXPORT_FORMAT,
            "rated": self.rated,
            "lineup": [asdict(seat) for seat in self.lineup],
            "times": self.times,
            "stand_ins": self.stand_ins,
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_line(cls, text: str, line: int = 1) -> ExportedGame:
        """A line of an export read back; :class:`RecordError` names the line if it is not
        one (its actions are checked when the game is replayed)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError("record.bad_json", line=line, reason=error.msg) from None
        record = record_from_dict(data, line)
        if data.get("export") != EXPORT_FORMAT:
            reason = f"not a line of {EXPORT_FORMAT}"
            raise RecordError("record.unreadable", line=line, reason=reason)
        try:
            lineup = [ExportedSeat(**seat) for seat in data["lineup"]]
            times = [None if took is None else float(took) for took in data["times"]]
            game = cls(
                record=record,
                rated=bool(data["rated"]),
                lineup=lineup,
                times=times,
                stand_ins=[int(step) for step in data.get("stand_ins") or []],
            )
        except (KeyError, TypeError, ValueError) as error:
            reason = f"{type(error).__name__}: {error}"
            raise RecordError("record.unreadable", line=line, reason=reason) from None
        if len(game.times) != len(record.actions) or len(lineup) != record.players:
            reason = "a time for each action and a lineup entry for each seat are needed"
            raise RecordError("record.unreadable", line=line, reason=reason)
        return game


def load_export(source: str | Path | IO[bytes]) -> Iterator[ExportedGame]:
    """The games of an export (a path, or a binary file open for reading), one at a time:
    gzip-compressed as the server gives it, or decompressed. A line that is not a game
    raises :class:`RecordError` naming it; the games before it were yielded."""
    if isinstance(source, str | Path):
        with Path(source).open("rb") as opened:
            yield from load_export(opened)
        return
    wrapped = not isinstance(source, io.BufferedReader)
    if isinstance(source, io.BufferedReader):
        peeking = source
    else:  # a buffer of its own, to peek at the first bytes of any stream
        peeking = io.BufferedReader(cast(io.RawIOBase, source))
    lines: Iterable[bytes] = gzip.GzipFile(fileobj=peeking) if _gzipped(peeking) else peeking
    try:
        for number, raw in enumerate(lines, start=1):
            text = raw.decode("utf-8", errors="replace")
            if text.strip():
                yield ExportedGame.from_line(text, number)
    finally:
        if wrapped:  # the caller's file stays open, as it was given
            peeking.detach()


def _gzipped(source: io.BufferedReader) -> bool:
    return source.peek(2)[:2] == GZIP_MAGIC
