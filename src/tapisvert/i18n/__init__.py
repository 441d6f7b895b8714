"""Message catalogues: every text a person reads comes from here, in French or English.

Engine code never builds user-facing sentences itself; it raises or returns a
:class:`Message` (a key and its arguments) and the layer that talks to a person
renders it in that person's language.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files

LANGUAGES: tuple[str, ...] = ("en", "fr")
DEFAULT_LANGUAGE = "en"


@cache
def catalogue(language: str) -> Mapping[str, str]:
    """The flat key → template table of one language."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    raw = tomllib.loads(files(__package__).joinpath(f"{language}.toml").read_text("utf-8"))
    flat: dict[str, str] = {}

    def walk(prefix: str, table: Mapping[str, object]) -> None:
        for key, value in table.items():
            name = f"{prefix}.{key}" if prefix else key
            if isinstance(value, Mapping):
                walk(name, value)
            else:
                flat[name] = str(value)

    walk("", raw)
    return flat


def default_language() -> str:
    """The language from ``TAPISVERT_LANG`` or the locale, falling back to English."""
    for variable in ("TAPISVERT_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(variable, "")[:2].lower()
        if value in LANGUAGES:
            return value
    return DEFAULT_LANGUAGE


def accepted_language(header: str | None) -> str:
    """The first of our languages an HTTP ``Accept-Language`` header names, else English."""
    for part in (header or "").split(","):
        code = part.strip()[:2].lower()
        if code in LANGUAGES:
            return code
    return DEFAULT_LANGUAGE


def translate(key: str, language: str = DEFAULT_LANGUAGE, **arguments: object) -> str:
    """Render ``key`` in ``language``; :class:`Message` arguments are rendered recursively."""
    template = catalogue(language).get(key)
    if template is None:
        template = catalogue(DEFAULT_LANGUAGE)[key]
    rendered = {
        name: value.render(language) if isinstance(value, Message) else value
        for name, value in arguments.items()
    }
    return template.format(**rendered)


@dataclass(frozen=True)
class Message:
    """A catalogue key with its arguments, rendered late in the reader's language."""

    key: str
    arguments: Mapping[str, object] = field(default_factory=dict)

    def render(self, language: str = DEFAULT_LANGUAGE) -> str:
        return translate(self.key, language, **self.arguments)

    def __str__(self) -> str:
        return self.render()


def message(key: str, **arguments: object) -> Message:
    """Shorthand for ``Message(key, arguments)``."""
    return Message(key, arguments)
