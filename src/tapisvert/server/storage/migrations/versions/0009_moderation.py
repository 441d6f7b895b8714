"""Moderation: people's roles, mutes and bans, the audit log of every act, and reports."""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "roles",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("role", sa.String(16), primary_key=True),
        sa.Column("granted_by", sa.String(32), nullable=False),
        sa.Column("granted_at", sa.Float, nullable=False),
    )
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("user_id", sa.Integer, nullable=True, index=True),
        sa.Column("address", sa.String(64), nullable=True, index=True),
        sa.Column("scope", sa.String(48), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("given_by", sa.String(32), nullable=False),
        sa.Column("given_at", sa.Float, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("lifted_at", sa.Float, nullable=True, index=True),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False, index=True),
        sa.Column("actor", sa.String(32), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("context", sa.Text, nullable=False),
        sa.Column("made_at", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False, index=True),
        sa.Column("handled_by", sa.String(32), nullable=True),
        sa.Column("handled_at", sa.Float, nullable=True),
        sa.Column("notified", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    for table in ("reports", "audit_log", "sanctions", "roles"):
        op.drop_table(table)
