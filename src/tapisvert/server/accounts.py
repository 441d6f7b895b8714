"""Accounts and sessions: guests, registration, signing in and out, passwords, tokens."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
import unicodedata
from dataclasses import replace

from tapisvert.server.auth import Passwords, Tokens
from tapisvert.server.connections import Connections
from tapisvert.server.errors import ServerError
from tapisvert.server.names import name_key, valid_name
from tapisvert.server.presence import Presence
from tapisvert.server.quotas import Quotas
from tapisvert.server.sanctions import Sanctions
from tapisvert.server.storage import Storage
from tapisvert.server.users import User

LOGINS_AT_ONCE = 2
"""Password hashes computed at once: argon2 costs a core each, the others wait."""
GUESS_SPACING = 1.0
"""Seconds between two attempts on a name being guessed at, from addresses its owner has
not signed in from (see ``Accounts._held_back``)."""
MIN_PASSWORD = 6
GUESS_TURNS_KEPT = 1000
"""Names whose next turn is remembered before the past ones are forgotten."""

_log = logging.getLogger(__name__)


def check_new_password(password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise ServerError("short_password")


def session_key(session: str) -> str:
    """What the database keeps of a session: its hash, so that whoever reads the database
    (and the signing key, if it is kept there) still cannot sign a token for an open one."""
    return hashlib.sha256(session.encode()).hexdigest()


def _password_checks(passwords: Passwords, password_hash: str | None, password: str) -> bool:
    """Whether ``password`` is the one of ``password_hash``; a hash is checked even when
    there is none to match."""
    matches = passwords.matches(password_hash or passwords.unknown, password)
    return matches and password_hash is not None


class Accounts:
    """Who may sign in, and the sessions their tokens carry; a session that ends closes
    the connections it opened (``connections``)."""

    def __init__(
        self,
        storage: Storage,
        quotas: Quotas,
        presence: Presence,
        connections: Connections,
        sanctions: Sanctions,
        passwords: Passwords,
        signing_key: str | None = None,
    ) -> None:
        """``signing_key``: the key that signs session tokens, or ``None`` for the one the
        database keeps (made on the first start)."""
        self.storage = storage
        self.passwords = passwords
        self.signing_key = signing_key
        self.sanctions = sanctions
        self.quotas = quotas
        self.presence = presence
        self.connections = connections
        self.tokens: Tokens | None = None
        self._hashing = asyncio.Semaphore(LOGINS_AT_ONCE)
        self._guess_turns: dict[str, float] = {}
        """When the next attempt on each name being guessed at may go (see ``_held_back``)."""

    async def start(self) -> None:
        """The key that signs tokens, as given or from the database."""
        # made once here, not by two sign-ins' threads at once
        await asyncio.to_thread(getattr, self.passwords, "unknown")
        self.tokens = Tokens(self.signing_key or await self.storage.secret())

    async def guest(self, name: str, address: str) -> tuple[str, User]:
        self.sanctions.refuse_banned(None, address)
        self.quotas.take("guests", address)
        return await self._new_user(name, None)

    async def register(self, name: str, password: str, address: str) -> tuple[str, User]:
        check_new_password(password)
        valid_name(name)  # before the hash's cost
        self.sanctions.refuse_banned(None, address)
        self.quotas.take("accounts", address)
        return await self._new_user(name, await self.new_hash(password))

    async def _new_user(self, text: str, password_hash: str | None) -> tuple[str, User]:
        name = valid_name(text)
        user_id = await self.storage.accounts.create(
            name, name_key(name), password_hash, password_hash is None
        )
        if user_id is None:
            raise ServerError("name_taken", status=409, name=name)
        self.presence.names[user_id] = name
        return await self.open_session(User(user_id, name, password_hash is None))

    async def login(self, name: str, password: str, address: str) -> tuple[str, User]:
        """A session for the name's owner; the answer takes as long whether or not the name
        exists (a hash is checked either way).

        Wrong passwords are held against the address they come from (see ``QuotaSettings``):
        an address that guessed too often is refused, for the name or for all, while others
        still sign in; a name guessed at from many addresses slows those addresses down.
        """
        name = unicodedata.normalize("NFKC", name)
        guessed = name.casefold()
        self.quotas.take("logins_per_address", address)
        await self._held_back(address, guessed)
        row = await self.storage.accounts.named(name)
        async with self._hashing:
            known = None if row is None else row.password_hash
            matches = await asyncio.to_thread(_password_checks, self.passwords, known, password)
        if row is None or not matches:
            self._failed(address, guessed)
            raise ServerError("bad_login", status=401)
        self.quotas.note("signed_in_from", guessed, address)
        self.sanctions.refuse_banned(row.id, None)  # told only to who knows the password
        self.presence.names[row.id] = row.name
        return await self.open_session(User(row.id, row.name, False))

    async def _held_back(self, address: str, name: str) -> None:
        """Refuse an address that failed too often. While a name is being guessed at, its
        attempts from addresses its owner has not signed in from take turns, one every
        ``GUESS_SPACING`` seconds: slowed, never refused."""
        quotas = self.quotas
        if quotas.spent("failures_per_address", address) or quotas.spent(
            "failures_per_address_and_name", address, name
        ):
            raise ServerError("too_many_failures", status=429)
        if quotas.spent("failures_per_name", name) and not quotas.counted(
            "signed_in_from", name, address
        ):
            now = time.monotonic()
            if len(self._guess_turns) > GUESS_TURNS_KEPT:
                self._guess_turns = {
                    guessed: turn for guessed, turn in self._guess_turns.items() if turn > now
                }
            turn = max(now, self._guess_turns.get(name, now))
            self._guess_turns[name] = turn + GUESS_SPACING
            await asyncio.sleep(turn - now)

    def _failed(self, address: str, name: str) -> None:
        self.quotas.note("failures_per_address", address)
        self.quotas.note("failures_per_address_and_name", address, name)
        self.quotas.note("failures_per_name", name)

    async def change_password(self, user: User, old: str, new: str, address: str) -> None:
        """A new password ends every other session of its owner (every other device signs
        in again); this one carries on. A wrong old password counts as a failed sign-in."""
        check_new_password(new)
        await self.confirm_password(user, old, address)
        password_hash = await self.new_hash(new)
        await self.storage.accounts.set_password(user.id, password_hash, session_key(user.session))
        self.connections.end_sessions(user, others=True)
        _log.info("the password is changed; the other sessions end")

    async def confirm_password(self, user: User, password: str, address: str) -> None:
        """Refuse unless ``password`` is the account's: a wrong one counts as a failed
        sign-in, so that an open session cannot be used to guess it."""
        guessed = user.name.casefold()
        self.quotas.take("logins_per_address", address)
        await self._held_back(address, guessed)
        row = await self.storage.accounts.load(user.id)
        known = None if row is None else row.password_hash
        async with self._hashing:
            matches = await asyncio.to_thread(_password_checks, self.passwords, known, password)
        if not matches:
            self._failed(address, guessed)
            raise ServerError("bad_login", status=401)

    async def new_hash(self, password: str) -> str:
        """A new password's hash, computed off the event loop (``check_new_password`` first)."""
        async with self._hashing:
            return await asyncio.to_thread(self.passwords.hash, password)

    def end_every_session(self, user: User) -> None:
        """Close every connection of the account, on every node (its sessions are gone)."""
        self.connections.end_sessions(user, others=True)
        self.connections.end_sessions(user, others=False)

    async def sign_out(self, user: User) -> None:
        """End this session: its token authenticates no one any more, and the connections
        it opened are closed."""
        await self.storage.sessions.close(user.id, session_key(user.session))
        self.connections.end_sessions(user, others=False)
        _log.info("a session ends: signed out")

    async def open_session(self, user: User) -> tuple[str, User]:
        """A new session of ``user``, and the token that carries it."""
        assert self.tokens is not None
        session = secrets.token_urlsafe(24)
        await self.storage.sessions.open(session_key(session), user.id)
        kind = "a guest's" if user.guest else "a"
        _log.info("%s session opens", kind, extra={"user": user.name})
        return self.tokens.issue(user.id, session), replace(user, session=session)

    async def authenticate(self, token: str, address: str | None = None) -> User:
        """The user of a session token, unless it is closed, or the account is banned (or,
        for a guest, ``address``: an address's ban keeps guests and new accounts out)."""
        assert self.tokens is not None
        named = self.tokens.read(token)
        if named is None or await self.storage.sessions.owner(session_key(named[1])) != named[0]:
            raise ServerError("bad_token", status=401)
        row = await self.storage.accounts.load(named[0])
        if row is None:
            raise ServerError("bad_token", status=401)
        self.sanctions.refuse_banned(row.id, address if row.guest else None)
        if row.owner_id is not None:  # a banned person's bots are kept out with them
            self.sanctions.refuse_banned(row.owner_id, None)
        self.presence.names[row.id] = row.name
        return User(row.id, row.name, row.guest, named[1], owner_id=row.owner_id)
