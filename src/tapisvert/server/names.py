"""People's names: one form for each name, and one person for each look.

A name is stored in Unicode's NFKC form (fullwidth and mathematical letters become
plain ones) and is made of letters, digits, dots, dashes and underscores, none of them
invisible. Two names that read alike (``Alice``, ``alice``, ``аlice`` with a Cyrillic
``а``, ``al1ce``) share one key, and a key belongs to one person.
"""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import confusables

from tapisvert.server.errors import ServerError

MAX_LENGTH = 32
_NAME = re.compile(r"[\w.-]+")
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0")
"""Hangul fillers: letters to Unicode, blanks to the eye."""
_ASCII_LOOKS = str.maketrans({"i": "l", "1": "l", "0": "o"})
"""Plain characters that look alike in some case: ``I`` and ``l``, ``1`` and ``l``, ``O`` and
``0``; names count them as one."""


def valid_name(text: str) -> str:
    """``text`` as a name is stored (NFKC), or the ``bad_name`` refusal.

    Names that mix scripts with characters that look like another script's are refused:
    they are there to pass for someone else.
    """
    name = unicodedata.normalize("NFKC", text)
    if (
        not 1 <= len(name) <= MAX_LENGTH
        or not _NAME.fullmatch(name)
        or any(char in _INVISIBLE for char in name)
        or confusables.is_dangerous(name)
    ):
        raise ServerError("bad_name", name=text)
    return name


def name_key(name: str) -> str:
    """What ``name`` looks like: the same key for names that read alike, whatever their
    case or script (each character that looks like a Latin one counts as it)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    looks = []
    for char in folded:
        found = char.isascii() or confusables.is_confusable(char, preferred_aliases=["latin"])
        if isinstance(found, list):
            latin = [glyph["c"] for glyph in found[0]["homoglyphs"] if glyph["c"].isascii()]
            char = latin[0].casefold() if latin else char
        looks.append(char)
    return "".join(looks).translate(_ASCII_LOOKS)
