"""A tournament a moderator cancelled: who did, and why (shown on its page).

A tournament cancelled before this migration (too few players) has neither."""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("cancelled_by", sa.String(32), nullable=True))
    op.add_column("tournaments", sa.Column("cancel_reason", sa.String(300), nullable=True))


def downgrade() -> None:
    op.drop_column("tournaments", "cancel_reason")
    op.drop_column("tournaments", "cancelled_by")
