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
    """Session tokens naming a user id, signed with the server's secret."""

    def __init__(self, secret: str) -> None:
        self._serializer = URLSafeTimedSerializer(secret, salt="tapisvert-session")

    def issue(self, user_id: int) -> str:
        return self._serializer.dumps({"user": user_id})

    def user_id(self, token: str) -> int | None:
        try:
            payload = self._serializer.loads(token, max_age=TOKEN_MAX_AGE)
        except BadSignature:
            return None
        user = payload.get("user") if isinstance(payload, dict) else None
        return user if isinstance(user, int) else None
