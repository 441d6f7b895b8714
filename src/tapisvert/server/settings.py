"""How a node behaves: the delays, rates and bounds its operator may set."""

from __future__ import annotations

from dataclasses import dataclass, field

from tapisvert.server.auth import PASSWORD_MEMORY
from tapisvert.server.links import BACKLOG_BYTES
from tapisvert.server.quotas import QuotaSettings


@dataclass(frozen=True)
class Settings:
    bot_delay: float = 0.6
    """Seconds a bot waits before it plays, so that people can follow."""
    absence_grace: float = 60.0
    """Seconds after a person's last connection closes before a bot plays for them."""
    replacement_level: str = "easy"
    abandoned_after: float = 300.0
    """Seconds an open table stays with nobody at it (see ``GameTable.attended``)."""
    asleep_after: float = 60.0
    """Seconds a table over days stays in memory with nobody at it before it sleeps in the
    database alone (see ``table_life``)."""
    rate: float = 30.0
    """Messages a second one connection may send, with bursts of twice as many; the
    quotas of people and addresses grow and shrink with it (see ``Quotas``)."""
    unread_limit: int = BACKLOG_BYTES
    """Bytes of frames a client may leave unread before its connection is dropped."""
    bot_workers: int | None = None
    """Processes in which the search bots think (``None``: all cores but one)."""
    quotas: QuotaSettings = field(default_factory=QuotaSettings)
    leaderboard_min_games: int = 5
    """Rated games an account plays in a game before its leaderboard lists it."""
    bots_per_owner: int = 3
    """Bot accounts one person may own (see ``own_bots``)."""
    bot_tables_per_owner: int = 10
    """Open and playing tables the bot accounts of one owner may sit at, all together: a
    single owner cannot fill the server with bots."""
    tournaments_by_moderators: bool = False
    """Only moderators and administrators make tournaments (by default, any account)."""
    tournament_poll: float = 1.0
    """Seconds between two looks at the tournaments this node runs (see ``tournaments``)."""
    bot_account_clock: float = 60.0
    """Seconds a bot account has for a move at a table without a clock: one that stops
    answering is replaced by a built-in bot for the rest of the game."""
    lease_seconds: float = 10.0
    """How long a node's lease of a table lasts unrenewed: a node that dies leaves its
    tables to others after this long (renewed every quarter of it)."""
    secret_key: str | None = field(default=None, repr=False)
    """The key that signs session tokens; ``None``: the server makes one and keeps it in
    its database (then whoever reads the database could sign tokens)."""
    password_memory: int = PASSWORD_MEMORY
    """KiB of memory each password's argon2id hash takes (see ``auth.Passwords``): its cost
    in time follows. Hashes made before a change are still checked."""
    drain_seconds: float = 30.0
    """How long a node given SIGTERM takes at most to stop gently: to hand its tables over,
    tell its clients to reconnect and see them go (see ``draining``)."""


DEFAULT_RATE = Settings.rate
