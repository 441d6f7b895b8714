"""Game records and the open database of games, as the library's users reach them.

>>> from tapisvert import CHANCE
>>> from tapisvert.records import load_record
>>> record = load_record('{"game": "wizard", "players": 3, "actions": ["dealer P1"]}')
>>> record.state_at(1).current_player() == CHANCE  # the deal comes next
True

``load_record`` and ``parse_record`` take a record's text; ``read_record(path)`` reads a
record's file, as ``save_record(record, path)`` writes one.

``load_export(path)`` yields the games of an export of the server (``tapisvert export``,
``GET /api/export/GAME``): each with its record, its players and move times, and
``game.steps()`` to walk its states.
"""

from tapisvert.core.errors import RecordError
from tapisvert.core.exports import EXPORT_FORMAT, ExportedGame, ExportedSeat, load_export
from tapisvert.core.records import (
    FORMAT,
    Record,
    Step,
    load_record,
    parse_record,
    read_record,
    record_of,
    save_record,
)

__all__ = [
    "EXPORT_FORMAT",
    "FORMAT",
    "ExportedGame",
    "ExportedSeat",
    "Record",
    "RecordError",
    "Step",
    "load_export",
    "load_record",
    "parse_record",
    "read_record",
    "record_of",
    "save_record",
]
