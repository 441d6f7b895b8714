"""The first schema: settings, users, tables and the append-only action log."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "settings",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("guest", sa.Boolean, nullable=False),
    )
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("clock", sa.Float, nullable=True),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=True),
    )
    op.create_table(
        "actions",
        sa.Column("table_id", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("actor", sa.Integer, nullable=False),
        sa.Column("action", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    for name in ("actions", "game_tables", "users", "settings"):
        op.drop_table(name)
