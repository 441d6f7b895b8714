"""Passwords (argon2 hashes) and signed session tokens."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from itsdangerous import BadSignature, URLSafeTimedSerializer

TOKEN_MAX_AGE = 30 * 24 * 3600
_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def password_matches(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


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
