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
from importlib.resources.abc import Traversable

LANGUAGES: tuple[str, ...] = ("en", "fr")
DEFAULT_LANGUAGE = "en"


@cache
def catalogue(language: str) -> Mapping[str, str]:
    """The flat key → template table of one language."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    flat: dict[str, str] = {}

    def walk(prefix: str, table: Mapping[str, object], source: str) -> None:
        for key, value in table.items():
            name = f"{prefix}.{key}" if prefix else key
            if isinstance(value, Mapping):
                walk(name, value, source)
            elif name in flat:
                raise ValueError(f"{source}: {name!r} is defined in another catalogue file too")
            else:
                flat[name] = str(value)

    for source in _catalogue_files(language):
        walk("", tomllib.loads(source.read_text("utf-8")), source.name)
    return flat


_ADDED: list[str] = []
"""Packages whose catalogue files are read after the platform's (a game's own texts)."""


def add_catalogues(package: str) -> None:
    """Read the ``*.<language>.toml`` files of ``package`` too, from now on."""
    if package not in _ADDED:
        _ADDED.append(package)
        catalogue.cache_clear()


def _catalogue_files(language: str) -> list[Traversable]:
    """``en.toml``, then the catalogues of single areas, such as ``web.en.toml``, then those
    of the packages added (a key defined twice is an error).

    An area of many texts (the web pages) keeps a file of its own, so that its texts are
    found, reviewed and translated together; each game's texts are in its own package,
    which its plugin adds (so the installed games are looked up first).
    """
    from tapisvert.core.registry import plugins  # here: the registry imports this module

    plugins()
    folder = files(__package__)
    found = [folder.joinpath(f"{language}.toml")]
    for package in [__package__, *_ADDED]:
        found += sorted(
            (
                entry
                for entry in files(package).iterdir()
                if entry.name.endswith(f".{language}.toml") and entry.name != f"{language}.toml"
            ),
            key=lambda entry: entry.name,
        )
    return found


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
