"""Who asks: a person or a guest, as every part of the server knows them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class User:
    id: int
    name: str
    guest: bool
    session: str = ""
    """The session a token opened, by which signing out reaches this user's connections."""
    address: str = "?"
    """Where the request comes from, for the quotas of addresses."""
    owner_id: int | None = None
    """The person who owns this bot account (``None``: a person or a guest)."""


ANYONE = User(0, "?", True)
"""Who asks for what anybody may know (a table's public description)."""

_USER_FIELDS = frozenset(User.__dataclass_fields__)


def user_from(fields: dict[str, Any]) -> User:
    """A user as another node sent it; fields this version does not know are left out, so
    that nodes of two versions work together during an upgrade."""
    return User(**{name: value for name, value in fields.items() if name in _USER_FIELDS})
