"""Accounts that end: when one was deleted, and one-time links that set a new password."""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("deleted_at", sa.Float, nullable=True))
    op.create_table(
        "password_resets",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("expires_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("password_resets")
    op.drop_column("users", "deleted_at")
