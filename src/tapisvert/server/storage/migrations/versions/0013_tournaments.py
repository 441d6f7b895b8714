"""Tournaments: their settings and schedule, the players registered, the tables of each round."""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("room", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("clock", sa.Float, nullable=True),
        sa.Column("format", sa.String(12), nullable=False),
        sa.Column("table_size", sa.Integer, nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("advance", sa.Integer, nullable=False),
        sa.Column("fill", sa.String(8), nullable=False),
        sa.Column("bot_level", sa.String(16), nullable=False),
        sa.Column("creator_id", sa.Integer, nullable=False),
        sa.Column("starts_at", sa.Float, nullable=False),
        sa.Column("registration_ends", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False, index=True),
        sa.Column("round", sa.Integer, nullable=False, server_default="0"),
        sa.Column("winner_id", sa.Integer, nullable=True),
        sa.Column("node", sa.String(64), nullable=True),
        sa.Column("lease_expires", sa.Float, nullable=True),
        sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
    )
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, primary_key=True, index=True),
        sa.Column("registered_at", sa.Float, nullable=False),
        sa.Column("withdrawn_at", sa.Float, nullable=True),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("tournament_id", sa.Integer, nullable=False, index=True),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("table_id", sa.Integer, primary_key=True),
        sa.Column("absent", sa.Text, nullable=False),
        sa.Column("seating", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tournament_tables")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
