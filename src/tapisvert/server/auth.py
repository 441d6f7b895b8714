"""Passwords (argon2 hashes) and signed session tokens."""

from __future__ import annotations

import secrets
from functools import cached_property

from argon2 import DEFAULT_MEMORY_COST, PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

TOKEN_MAX_AGE = 30 * 24 * 3600
PASSWORD_MEMORY = DEFAULT_MEMORY_COST
"""KiB of memory an argon2id hash takes by default (64 MiB, three passes, four lanes: the
second choice of RFC 9106), about a fifth of a second of a core."""
MIN_PASSWORD_MEMORY = 1024


class Passwords:
    """Argon2id hashes of passwords, made with ``memory`` KiB each. A hash names the
    parameters it was made with: one made at another cost is still checked."""

    def __init__(self, memory: int = PASSWORD_MEMORY) -> None:
        self._hasher = PasswordHasher(memory_cost=memory)

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def matches(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    @cached_property
    def unknown(self) -> str:
        """Checked against when a name has no password, so that a sign-in takes as long
        either way."""
        return self.hash(secrets.token_hex(16))


class Tokens:
    """Session tokens naming a user id and a session, signed with the server's secret.

    The signature proves who issued a token; the session, looked up in the database, says
    whether it still holds: signing out and changing a password close sessions.
    """

    def __init__(self, secret: str) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="tapisvert-session")

    def issue(self, user_id: int, session: str) -> str:
        return self._serializer.dumps({"user": user_id, "session": session})

    def read(self, token: str) -> tuple[int, str] | None:
        """The user id and session a token names, if it is genuine and not expired."""
        try:
            payload = self._serializer.loads(token, max_age=TOKEN_MAX_AGE)
        except BadSignature:
            return None
        if not isinstance(payload, dict):
            return None
        user, session = payload.get("user"), payload.get("session")
        if not isinstance(user, int) or not isinstance(session, str):
            return None
        return user, session
