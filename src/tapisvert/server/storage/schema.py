"""The database's tables, as the latest migration leaves them, and the migrations' runner."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    inspect,
    text,
    true,
)

MIGRATIONS = Path(__file__).with_name("migrations")

metadata = MetaData()

settings_table = Table(
    "settings",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
users_table = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(32), nullable=False, unique=True),
    Column("name_key", String(64), nullable=True, index=True),
    Column("password_hash", String(200), nullable=True),
    Column("guest", Boolean, nullable=False),
    Column("bot", Boolean, nullable=False, server_default=false()),
    Column("deleted_at", Float, nullable=True),
    Column("owner_id", Integer, nullable=True, index=True),  # a bot account's owner
    Column("invites", String(8), nullable=False, server_default="anyone"),  # who seats it
    Column("export_name", Boolean, nullable=False, server_default=false()),
    Column("export_unrated", Boolean, nullable=False, server_default=false()),
)
"""``export_name``: the open database of games names the account (else a pseudonym);
``export_unrated``: its unrated games may go in it too (see ``server.exports``)."""
sessions_table = Table(
    "sessions",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("opened_at", Float, nullable=False),
)
password_resets_table = Table(
    "password_resets",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("expires_at", Float, nullable=False),
)
"""One-time links that set a new password: the link's key is kept hashed, as sessions' are."""
reviews_table = Table(
    "reviews",
    metadata,
    Column("table_id", Integer, ForeignKey("game_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("review", Text, nullable=False),
    Column("made_at", Float, nullable=False),
)
tables_table = Table(
    "game_tables",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(32), nullable=False),
    Column("game", String(32), nullable=False),
    Column("players", Integer, nullable=False),
    Column("options", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("clock", Float, nullable=True),
    Column("status", String(16), nullable=False, index=True),
    Column("seats", Text, nullable=False),
    Column("result", Text, nullable=True),
    Column("rated", Boolean, nullable=False, server_default=true()),
    Column("finished_at", Float, nullable=True),
    Column("timeout", String(8), nullable=False, server_default="bot"),
    Column("deadline", Float, nullable=True),
    Column("to_act", Integer, nullable=True, index=True),
    Column("asleep", Boolean, nullable=False, server_default=false()),
    Column("chat", Text, nullable=True),
)
"""``deadline``: when the clock of the person to act (``to_act``, an account) runs out, in
seconds since 1970; ``timeout``: what happens then (``bot``: a bot plays that move;
``lose``: the seat loses, a bot playing it to the end); ``asleep``: a table played over days
that no node keeps in memory while nobody is at it, until someone comes or its clock runs
out (see ``table_life``), its chat and notices kept in ``chat`` meanwhile (JSON)."""
actions_table = Table(
    "actions",
    metadata,
    Column("table_id", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("actor", Integer, nullable=False),
    Column("action", BigInteger, nullable=False),
    Column("stand_in", Boolean, nullable=False, server_default=false()),
    Column("took", Float, nullable=True),
)
"""``took``: the seconds a seat's move took from the position's showing to its arrival
(``None`` for chance, and for moves logged before migration 0014)."""
leases_table = Table(
    "table_leases",
    metadata,
    Column("table_id", Integer, ForeignKey("game_tables.id"), primary_key=True),
    Column("node", String(64), nullable=False, index=True),
    Column("fence", BigInteger, nullable=False),
    Column("expires_at", Float, nullable=False),
)
"""Which node serves a table that is open or being played, until when (the database's
clock, in seconds since 1970), and the fencing token of that node's tenure: it grows each
time the table changes hands, and a write carrying an older one is refused."""
tournaments_table = Table(
    "tournaments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("room", String(32), nullable=False),
    Column("game", String(32), nullable=False),
    Column("options", Text, nullable=False),
    Column("clock", Float, nullable=True),
    Column("format", String(12), nullable=False),
    Column("table_size", Integer, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("advance", Integer, nullable=False),
    Column("fill", String(8), nullable=False),
    Column("bot_level", String(16), nullable=False),
    Column("creator_id", Integer, nullable=False),
    Column("starts_at", Float, nullable=False),
    Column("registration_ends", Float, nullable=False),
    Column("status", String(12), nullable=False, index=True),
    Column("round", Integer, nullable=False, server_default=text("0")),
    Column("winner_id", Integer, nullable=True),
    Column("node", String(64), nullable=True),
    Column("lease_expires", Float, nullable=True),
    Column("fence", BigInteger, nullable=False, server_default=text("0")),
    Column("cancelled_by", String(32), nullable=True),
    Column("cancel_reason", String(300), nullable=True),
)
tournament_players_table = Table(
    "tournament_players",
    metadata,
    Column("tournament_id", Integer, primary_key=True),
    Column("user_id", Integer, primary_key=True, index=True),
    Column("registered_at", Float, nullable=False),
    Column("withdrawn_at", Float, nullable=True),
)
tournament_tables_table = Table(
    "tournament_tables",
    metadata,
    Column("tournament_id", Integer, nullable=False, index=True),
    Column("round", Integer, nullable=False),
    Column("table_id", Integer, primary_key=True),
    Column("absent", Text, nullable=False),
    Column("seating", Text, nullable=False),
)
ratings_table = Table(
    "ratings",
    metadata,
    Column("user_id", Integer, primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("speed", String(8), primary_key=True, server_default="live"),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
)
results_table = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("user_id", Integer, nullable=True, index=True),
    Column("game", String(32), nullable=False),
    Column("speed", String(8), nullable=False, server_default="live"),
    Column("place", Integer, nullable=False),
    Column("score", Float, nullable=False),
    Column("won", Boolean, nullable=False),
    Column("absent", Boolean, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("mu_before", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("mu_after", Float, nullable=True),
    Column("sigma_after", Float, nullable=True),
    Column("finished_at", Float, nullable=False),
    UniqueConstraint("table_id", "seat", name="uq_results_table_seat"),
)

roles_table = Table(
    "roles",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("role", String(16), primary_key=True),
    Column("granted_by", String(32), nullable=False),
    Column("granted_at", Float, nullable=False),
)
"""Who is an administrator or a moderator (a person may be both)."""
sanctions_table = Table(
    "sanctions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(8), nullable=False),
    Column("user_id", Integer, nullable=True, index=True),
    Column("address", String(64), nullable=True, index=True),
    Column("scope", String(48), nullable=False),
    Column("reason", Text, nullable=False),
    Column("given_by", String(32), nullable=False),
    Column("given_at", Float, nullable=False),
    Column("until", Float, nullable=True),
    Column("lifted_at", Float, nullable=True, index=True),
)
"""Mutes and bans of an account (``user_id``) or a guest's address: ``scope`` is ``all``,
``room:NAME`` or ``table:N`` (for a mute); ``until`` none: for good; ``lifted_at``: undone."""
audit_table = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False, index=True),
    Column("actor", String(32), nullable=False),
    Column("action", String(16), nullable=False),
    Column("target", String(64), nullable=False),
    Column("reason", Text, nullable=False),
    Column("until", Float, nullable=True),
    Column("detail", Text, nullable=False),
)
"""Every act of moderation: who, to whom, what, why, when, until when (``detail``: JSON,
the words of a removed chat line, say)."""
reports_table = Table(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("target", String(64), nullable=False),
    Column("reason", Text, nullable=False),
    Column("context", Text, nullable=False),
    Column("made_at", Float, nullable=False),
    Column("status", String(12), nullable=False, index=True),
    Column("handled_by", String(32), nullable=True),
    Column("handled_at", Float, nullable=True),
    Column("notified", Boolean, nullable=False, server_default=false()),
)
"""A chat line, a person or a table reported (``kind``: line, player, table), with what was
said around it (``context``: JSON); ``status``: open, acted or dismissed."""
ignores_table = Table(
    "ignores",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("ignored_id", Integer, ForeignKey("users.id"), primary_key=True, index=True),
    Column("since", Float, nullable=False),
)
"""Whom each person ignores: their chat lines do not reach them, nor their messages."""
friendships_table = Table(
    "friendships",
    metadata,
    Column("asker_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("asked_id", Integer, ForeignKey("users.id"), primary_key=True, index=True),
    Column("asked_at", Float, nullable=False),
    Column("accepted_at", Float, nullable=True),
)
"""A friendship asked for, and once ``accepted_at`` is set, agreed."""
messages_table = Table(
    "messages",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sender_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("recipient_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("text", Text, nullable=False),
    Column("table_id", Integer, nullable=True),
    Column("sent_at", Float, nullable=False),
    Column("read_at", Float, nullable=True),
)
"""Private messages, kept until read and after; ``table_id``: an invitation to that table."""

ACTION_COLUMNS = tuple(column.name for column in actions_table.columns)


def latest_revision() -> str:
    """The newest migration's revision: each is named for its file's number (``0011_….py``
    is revision ``0011``), which a test holds to."""
    return max(
        path.name[:4] for path in (MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py")
    )


def migrate(connection: Connection) -> None:
    """Bring the database to the latest migration, in the caller's transaction.

    A database already there is only read: Alembic is not imported, which a server
    restarting on its database would otherwise spend a second of its start on."""
    if inspect(connection).has_table("alembic_version"):
        current = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        if current == latest_revision():
            return
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
