"""Refusals the server sends back: a code for programs, a catalogue message for people."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tapisvert.core.errors import TapisvertError
from tapisvert.i18n import DEFAULT_LANGUAGE, Message, catalogue, message

PROBLEMS = {
    "missing": "missing",
    "string_too_long": "too_long",
    "too_long": "too_many",
    "greater_than_equal": "too_small",
    "less_than_equal": "too_big",
    "int_parsing": "not_whole",
    "int_type": "not_whole",
    "int_from_float": "not_whole",
    "float_parsing": "not_number",
    "float_type": "not_number",
    "string_type": "not_text",
    "bool_type": "not_yes_no",
    "bool_parsing": "not_yes_no",
    "literal_error": "not_one_of",
    "extra_forbidden": "unexpected",
    "json_invalid": "not_json",
    "dict_type": "not_object",
    "model_type": "not_object",
    "model_attributes_type": "not_object",
    "union_tag_invalid": "unknown_type",
    "union_tag_not_found": "no_type",
}
"""Pydantic's kinds of problem → ``server.problem.*``, a sentence for a player; the
others are ``invalid``, which still names the field."""


class ServerError(TapisvertError):
    """A request refused; ``status`` is its HTTP status when it came over HTTP.

    Its message is the catalogue's ``server.error.<code>``, or ``key`` when one code has
    several messages (a malformed request says what is wrong with it).
    """

    def __init__(
        self, code: str, status: int = 400, key: str | None = None, **arguments: object
    ) -> None:
        self.code = code
        self.status = status
        super().__init__(key or f"server.error.{code}", **arguments)

    def body(self, language: str) -> dict[str, str]:
        """The refusal as an HTTP response's JSON body."""
        return {"code": self.code, "message": self.render(language)}

    @classmethod
    def wrapping(cls, code: str, error: TapisvertError) -> ServerError:
        """A refusal that explains itself with an engine error's message."""
        return cls(code, reason=error.message)


class StorageError(ServerError):
    """The database did not store what it was given (locked, full, refused): nothing of
    the request happened, and it may be asked again."""

    def __init__(self) -> None:
        super().__init__("storage", status=503)


class TableMoved(ServerError):
    """Another node took the table over (this one lost its lease): nothing was stored, and
    the request may be sent again, where the table is now."""

    def __init__(self, table: int) -> None:
        super().__init__("table_moved", status=503, table=table)


def malformed(problems: Sequence[Mapping[str, Any]]) -> ServerError:
    """The refusal of a request that does not fit its form (pydantic's ``errors()``, over
    HTTP or WebSocket): its first problem, in words, naming the field as a player would."""
    problem = problems[0] if problems else {}
    kind = str(problem.get("type", ""))
    context = problem.get("ctx") or {}
    limit = next(
        (context[name] for name in ("min_length", "max_length", "ge", "le") if name in context),
        None,
    )
    if isinstance(limit, float) and limit.is_integer():
        limit = int(limit)  # a clock of at least 1 second, not 1.0
    where = list(problem.get("loc", ()))[1:]
    if kind == "string_too_short":
        key = "empty" if limit == 1 else "too_short"
    elif where[:1] == ["options"] and len(where) > 2 and where[-1] != "[key]":
        # not one of the kinds an option's value may have (text, number, true or false)
        key = "not_option_value"
    else:
        key = PROBLEMS.get(kind, "invalid")
    expected = str(context.get("expected") or context.get("expected_tags") or "")
    return ServerError(
        "malformed",
        key=f"server.problem.{key}",
        field=_field(where),
        limit=limit,
        expected=expected.replace(" or ", ", "),
        tag=context.get("tag"),
    )


def _field(where: list[object]) -> Message:
    """The field a problem is about, in words: ``where`` is its place after the message's
    type (WebSocket) or the request's part (HTTP ``body``, ``path``…)."""
    if not where:
        return message("server.field.content")
    name = str(where[0])
    if name == "options" and len(where) > 1:
        if where[-1] == "[key]":
            return message("server.field.option_name")
        return message("server.field.option", name=where[1])
    if f"server.field.{name}" in catalogue(DEFAULT_LANGUAGE):
        return message(f"server.field.{name}")
    return message("server.field.other", name=name)
