"""The server's log lines: plain text or JSON lines, each naming the table, the person and
the node it is about where it is about one.

Those three are context variables, set where a table's operation runs (``about_table``),
where a connection or a request is handled (``USER``) and for each node (``NODE``): the
log calls already in the code pick them up, uvicorn's own lines too, through the filter
of the one handler (``logging_config``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, Literal

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

LogFormat = Literal["text", "json"]
LogLevel = Literal["debug", "info", "warning", "error"]

TABLE: ContextVar[int | None] = ContextVar("table", default=None)
USER: ContextVar[str | None] = ContextVar("user", default=None)
"""The name of the person whose request or connection is being handled."""
NODE: ContextVar[str | None] = ContextVar("node", default=None)
FIELDS = (("table", TABLE), ("user", USER), ("node", NODE))


@contextlib.contextmanager
def about_table(table_id: int) -> Iterator[None]:
    """Lines logged inside are about this table."""
    token = TABLE.set(table_id)
    try:
        yield
    finally:
        TABLE.reset(token)


def the_tables_own(table_id: int) -> None:
    """What the current task does from now on is the table's own (a bot's turn, say), not
    the doing of the person whose move started it."""
    TABLE.set(table_id)
    USER.set(None)


class Context(logging.Filter):
    """Adds ``table``, ``user`` and ``node`` to a record where they apply (a record that
    names them already, with ``extra``, keeps its own)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, variable in FIELDS:
            value = variable.get()
            if value is not None and not hasattr(record, name):
                setattr(record, name, value)
        return True


class NoFrames(logging.Filter):
    """Leaves out the debugging lines of the WebSocket protocol, which uvicorn has
    ``websockets`` write to ``uvicorn.error`` (uvicorn itself writes none there below
    ``INFO``): each shows a frame or a header of the handshake, and those carry session
    tokens, cookies and a seat's hidden cards."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.INFO or record.name != "uvicorn.error"


class TextLines(logging.Formatter):
    """``time level logger [table=… user=… node=…]: message``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(context)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        named = [f"{name}={getattr(record, name)}" for name, _ in FIELDS if hasattr(record, name)]
        record.context = f" [{' '.join(named)}]" if named else ""
        return super().format(record)


class JsonLines(JsonFormatter):
    """One JSON object a line: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``,
    and ``table``, ``user``, ``node`` where they apply (``exc_info`` with a traceback)."""

    def __init__(self) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger"},
            timestamp="time",
            # uvicorn's records carry a coloured copy of their message, websockets' its socket
            reserved_attrs=[*RESERVED_ATTRS, "color_message", "websocket"],
        )


FORMATTERS: dict[str, type[logging.Formatter]] = {"text": TextLines, "json": JsonLines}


def logging_config(form: str, level: str) -> dict[str, Any]:
    """The configuration of ``logging.config.dictConfig`` for ``form`` (a ``LogFormat``)
    and ``level`` (a ``LogLevel``), also given to uvicorn so that its lines go the same
    way: every logger's records to one handler on standard error."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": Context}, "no_frames": {"()": NoFrames}},
        "formatters": {"lines": {"()": FORMATTERS[form]}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "lines",
                "filters": ["no_frames", "context"],
            }
        },
        # uvicorn's loggers carry handlers of their own unless they are named here
        "loggers": {
            name: {"handlers": [], "propagate": True}
            for name in ("uvicorn", "uvicorn.error", "uvicorn.access")
        },
        "root": {"handlers": ["stderr"], "level": level.upper()},
    }
