"""Game records: a JSON form for machines and a PGN-like text form for people.

Both hold the game, its options, the seats, the date, the result and every action in
the game's notation, chance outcomes included, so that loading a record replays and
validates the whole game. The text form::

    [Game "wizard"]
    [Players "3"]
    [Options "{\\"canadian\\": false}"]
    [Seats "[\\"ana\\", \\"heuristic\\", \\"random\\"]"]
    [Date "2026-11-29"]
    [Result "[60, 40, 40]"]

    1. chance: dealer P1
    2. chance: deal B7
    ...
    64. P2: bid 1
"""

from __future__ import annotations

import datetime
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tapisvert.core.errors import IllegalActionError, OptionError, RecordError
from tapisvert.core.game import CHANCE, Action, Game, Seat, State
from tapisvert.core.registry import load_game

FORMAT = "tapisvert-record/1"
CHANCE_ACTOR = "chance"
_HEADER = re.compile(r'^\[(\w+)\s+("(?:[^"\\]|\\.)*")\]$')
_MOVE = re.compile(r"^(\d+)\.\s+(\w+):\s+(.+)$")
_REQUIRED = ("Game", "Players")


def actor_label(seat: Seat) -> str:
    return CHANCE_ACTOR if seat == CHANCE else f"P{seat + 1}"


@dataclass
class Record:
    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    seats: list[str] = field(default_factory=list)
    date: str = ""
    result: list[float] | None = None
    actions: list[str] = field(default_factory=list)
    lines: list[int] | None = None
    """Where each action stands in the file it was read from, for error messages."""
    actors: list[str] | None = None
    """Who the text form says acts at each step (``P2``, ``chance``), checked on replay."""

    def new_game(self) -> Game[Any]:
        try:
            return load_game(self.game, self.players, **self.options)
        except OptionError as error:
            raise RecordError("record.unreadable", line=1, reason=error.message) from None

    def line_of(self, index: int) -> int | None:
        return None if self.lines is None else self.lines[index]

    def steps(self) -> Iterator[Step]:
        """Replay the record, checking every action; yields the state after each one.

        Every step holds the same live state, which the next action changes in place
        (replaying costs no copy): keep ``step.state.clone()``, or ask :meth:`state_at`.
        """
        state = self.new_game().new_initial_state()
        for index, text in enumerate(self.actions):
            line = self.line_of(index)
            actor = state.current_player()
            if self.actors is not None and self.actors[index] != actor_label(actor):
                raise RecordError(
                    "record.wrong_actor",
                    line=line,
                    expected=actor_label(actor),
                    found=self.actors[index],
                )
            try:
                action = state.string_to_action(text)
                state.apply_action(action)
            except IllegalActionError as error:
                raise RecordError(
                    "record.bad_action", line=line, text=text, reason=error.message
                ) from None
            yield Step(index + 1, line, actor, text, state)
        if self.result is not None and state.is_terminal() and state.returns() != self.result:
            raise RecordError(
                "record.result_mismatch", line=None, recorded=self.result, replayed=state.returns()
            )

    def state_at(self, step: int) -> State:
        """An independent copy of the state after ``step`` actions (0: the initial state),
        the actions up to it checked."""
        if not 0 <= step <= len(self.actions):
            raise RecordError("record.no_step", line=None, step=step, moves=len(self.actions))
        if step == 0:
            initial: State = self.new_game().new_initial_state()
            return initial
        for replayed in self.steps():
            if replayed.number == step:
                return replayed.state.clone()
        raise AssertionError("steps() yields one step per action")

    def replay(self) -> State:
        """The final state, after checking the whole record."""
        state: State | None = None
        for step in self.steps():
            state = step.state
        return state if state is not None else self.new_game().new_initial_state()

    def head(self) -> dict[str, Any]:
        """Every field of the JSON form but the actions, in its order."""
        return {
            "format": FORMAT,
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "seats": self.seats,
            "date": self.date,
            "result": self.result,
        }

    def to_json(self) -> str:
        """One action per line, so that an error can name its line."""
        body = json.dumps(self.head(), ensure_ascii=False, indent=1)[:-2]
        moves = ",\n".join(f"  {json.dumps(text, ensure_ascii=False)}" for text in self.actions)
        return f'{body},\n "actions": [\n{moves}\n ]\n}}\n'

    def to_text(self) -> str:
        headers = [
            ("Game", self.game),
            ("Players", str(self.players)),
            ("Options", json.dumps(self.options, sort_keys=True)),
            ("Seats", json.dumps(self.seats, ensure_ascii=False)),
            ("Date", self.date),
            ("Result", "*" if self.result is None else json.dumps(self.result)),
        ]
        lines = [f"[{name} {json.dumps(value, ensure_ascii=False)}]" for name, value in headers]
        lines.append("")
        state = self.new_game().new_initial_state()
        for number, text in enumerate(self.actions, start=1):
            lines.append(f"{number}. {actor_label(state.current_player())}: {text}")
            state.apply_string(text)
        return "\n".join(lines) + "\n"


@dataclass
class Step:
    number: int
    line: int | None
    actor: Seat
    text: str
    state: State


def record_of(state: State, seats: list[str] | None = None, date: str | None = None) -> Record:
    """The record of the game that led to ``state``."""
    return record_of_actions(state.game, state.history(), seats, date)


def record_of_actions(
    game: Game[Any],
    actions: Iterable[Action],
    seats: list[str] | None = None,
    date: str | None = None,
) -> Record:
    """The record of ``game`` played from its start with ``actions`` (a log, say), which
    are replayed once, each applied as the rules allow."""
    replay = game.new_initial_state()
    texts = []
    for action in actions:
        texts.append(replay.action_to_string(action))
        replay.apply_action(action)
    return Record(
        game=game.name,
        players=game.players,
        options=dict(game.options),
        seats=list(seats) if seats else [f"P{seat + 1}" for seat in range(game.players)],
        date=date or datetime.date.today().isoformat(),
        result=replay.returns() if replay.is_terminal() else None,
        actions=texts,
    )


def record_path(folder: Path, game: str, *places: tuple[int, int]) -> Path:
    """Where to save a record among many: ``folder/wizard-007-2.txt`` for game 7 of 120,
    rotation 2 of 4. Each ``(number, count)`` is zero-padded to the width of ``count``, so
    that the files sort in the order of the games."""
    numbers = [f"{number:0{len(str(count))}d}" for number, count in places]
    return folder / ("-".join([game, *numbers]) + ".txt")


def records_folder(path: str | os.PathLike[str]) -> Path:
    """The folder where the records of many games go, made if missing and tried with a file:
    one that cannot be written is refused before the first game, not after it."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as error:
        raise RecordError(
            "record.unwritable_folder", line=None, path=folder, reason=error
        ) from None
    return folder


def save_record(record: Record, path: str | os.PathLike[str]) -> None:
    """Write ``record`` in its text form (JSON if ``path`` ends in ``.json``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record.to_json() if path.suffix == ".json" else record.to_text(), "utf-8")


def read_record(path: str | os.PathLike[str], check: bool = True) -> Record:
    """The record in the file at ``path`` (either form), as :func:`load_record` gives it;
    ``check=False`` only parses it, for a caller that replays it step by step (the
    command line's ``replay``). A file that cannot be read raises :class:`RecordError`."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RecordError("record.unreadable_file", line=None, path=path, reason=error) from None
    return load_record(text) if check else parse_record(text)


def parse_record(text: str) -> Record:
    """Read either form from the record's text (a file's: :func:`read_record`); raises
    :class:`RecordError` naming the first bad line."""
    if not isinstance(text, str):
        kind = type(text).__name__
        raise RecordError("record.not_text", line=None, kind=kind)
    if text.lstrip().startswith("{"):
        return _parse_json(text)
    return _parse_text(text)


def _parse_json(text: str) -> Record:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError("record.bad_json", line=error.lineno, reason=error.msg) from None
    record = record_from_dict(data, line=1)
    record.lines = _json_action_lines(text, record.actions)
    return record


def record_from_dict(data: object, line: int) -> Record:
    """The record a decoded JSON form holds (other fields are left to the caller); ``line``
    is where it stands, for the errors."""
    if not isinstance(data, dict):
        raise RecordError("record.unreadable", line=line, reason="not a JSON object")
    for name in ("game", "players", "actions"):
        if name not in data:
            raise RecordError("record.missing_header", line=line, name=name)
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(item, str) for item in actions):
        reason = "actions must be a list of strings"
        raise RecordError("record.unreadable", line=line, reason=reason)
    return Record(
        game=str(data["game"]),
        players=_as_int(data["players"], line),
        options=dict(data.get("options") or {}),
        seats=[str(seat) for seat in data.get("seats") or []],
        date=str(data.get("date") or ""),
        result=data.get("result"),
        actions=actions,
    )


def _json_action_lines(text: str, actions: list[str]) -> list[int] | None:
    """Line numbers of the actions when the file keeps one action per line, as written."""
    lines = text.splitlines()
    start = next((n for n, line in enumerate(lines) if line.strip().startswith('"actions"')), None)
    if start is None:
        return None
    numbers = []
    for index, action in enumerate(actions):
        number = start + 1 + index
        if number >= len(lines) or json.dumps(action, ensure_ascii=False) not in lines[number]:
            return None
        numbers.append(number + 1)
    return numbers


def _parse_text(text: str) -> Record:
    headers: dict[str, tuple[str, int]] = {}
    actions: list[str] = []
    actors: list[str] = []
    lines: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("["):
            match = _HEADER.match(line)
            if not match:
                raise RecordError("record.bad_header", line=number, text=line)
            headers[match.group(1)] = (json.loads(match.group(2)), number)
            continue
        move = _MOVE.match(line)
        if not move:
            raise RecordError("record.bad_move_line", line=number, text=line)
        if int(move.group(1)) != len(actions) + 1:
            raise RecordError(
                "record.bad_number", line=number, found=move.group(1), expected=len(actions) + 1
            )
        actors.append(move.group(2))
        actions.append(move.group(3).strip())
        lines.append(number)
    for name in _REQUIRED:
        if name not in headers:
            raise RecordError("record.missing_header", line=1, name=name)
    result_text, result_line = headers.get("Result", ("*", 1))
    return Record(
        game=headers["Game"][0],
        players=_as_int(headers["Players"][0], headers["Players"][1]),
        options=_json_header(headers, "Options", {}),
        seats=_json_header(headers, "Seats", []),
        date=headers.get("Date", ("", 0))[0],
        result=None if result_text == "*" else _json_value(result_text, result_line),
        actions=actions,
        lines=lines,
        actors=actors,
    )


def _json_header(headers: dict[str, tuple[str, int]], name: str, default: Any) -> Any:
    if name not in headers:
        return default
    text, line = headers[name]
    return _json_value(text, line)


def _json_value(text: str, line: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError("record.bad_json", line=line, reason=error.msg) from None


def _as_int(value: object, line: int) -> int:
    try:
        return int(str(value))
    except ValueError:
        reason = f"{value!r} is not a number"
        raise RecordError("record.unreadable", line=line, reason=reason) from None


def load_record(text: str) -> Record:
    """Parse and fully validate a record from its text (both forms; a file's:
    :func:`read_record`); raises :class:`RecordError`."""
    record = parse_record(text)
    record.replay()
    return record
