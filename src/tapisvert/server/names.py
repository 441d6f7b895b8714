"""People's names: one form for each name, and one person for each look.

Others know a person by name alone, so no name may pass for another's. Names are stored in
NFKC form, lest fullwidth or mathematical letters make a second ``alice``. Look-alikes are
found with Unicode's confusables data (UTS #39) through ICU, which keeps up with Unicode
where a hand-made table misses letters. That data covers the characters of UTS #39's General
Security Profile only, so names keep to them (small capitals such as ``ᴋ`` and Hangul fillers
are left out); and a name keeps to one script, or to Latin with Chinese, Japanese or Korean,
since a mix is how a Cyrillic ``а`` hides among Latin letters. A name needs a letter or a
digit: ``.`` and ``..`` would be no names, and their ``/api/players/`` pages unreachable.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

import icu

from tapisvert.server.errors import ServerError

MAX_LENGTH = 32
_NAME = re.compile(r"[\w.-]+")


def _name_checker() -> icu.SpoofChecker:
    """ICU's checks for names: the General Security Profile (``Identifier_Status=Allowed``,
    ICU's recommended and inclusion sets), its restriction of scripts (highly restrictive),
    no invisible marks and one set of digits."""
    checker = icu.SpoofChecker()
    profile = icu.UnicodeSet()  # a copy of ICU's frozen sets would be frozen too
    profile.addAll(checker.getRecommendedUnicodeSet())
    profile.addAll(checker.getInclusionUnicodeSet())
    profile.freeze()
    checker.setAllowedUnicodeSet(profile)
    checker.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)
    checks = icu.USpoofChecks
    checker.setChecks(
        checks.CHAR_LIMIT | checks.RESTRICTION_LEVEL | checks.INVISIBLE | checks.MIXED_NUMBERS
    )
    return checker


_CHECKER = _name_checker()
"""Set up once: ICU allows checks from several threads at a time on a checker left as is."""


def _skeleton(text: str) -> str:
    """UTS #39's skeleton: each character replaced by the one it is mistaken for."""
    return str(_CHECKER.getSkeleton(0, text))


def valid_name(text: str) -> str:
    """``text`` as a name is stored (NFKC), or the ``bad_name`` refusal."""
    name = unicodedata.normalize("NFKC", text)
    if (
        not 1 <= len(name) <= MAX_LENGTH
        or not _NAME.fullmatch(name)
        or not any(char.isalnum() for char in name)
        or _CHECKER.check(name) != 0
    ):
        raise ServerError("bad_name", name=text)
    return name


def name_key(name: str) -> str:
    """What ``name`` looks like, whatever its case: names that look alike get one key.

    The skeleton keeps case, and a key must not (``alice``, ``Alice``); so it is taken of
    the name in capitals, where ``I`` is ``l`` and ``1`` is ``l`` too, then casefolded and
    taken again, for small letters that read as two (``m`` and ``rn``). Capitals first,
    because casefolding first loses letters that look alike as capitals only: Cyrillic
    ``К`` is ``K``, where ``к`` is like no Latin letter. A few letters look alike as small
    letters only (Greek ``ν`` and ``v``) and keep keys apart: a key that followed both ways
    would make Latin ``n`` and ``v`` one letter. The key is a SHA-256 digest: a skeleton may
    be six times as long as the name (a Hangul syllable's), and the digest fits the
    ``name_key`` column whatever the name.

    The keys follow ICU's confusables data: an ICU whose data differs calls for the stored
    keys to be made again (as migration 0008 does).
    """
    looks = _skeleton(unicodedata.normalize("NFKC", name).upper())
    return hashlib.sha256(_skeleton(looks.casefold()).encode()).hexdigest()
