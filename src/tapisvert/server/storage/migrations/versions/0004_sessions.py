"""Sessions, so that signing out and changing a password take effect on the server.

A token names a session as well as its user; a session that is closed (signed out, or
every session of a person whose password changed) no longer authenticates anyone, even
with a token that has not expired. Tokens issued before sessions existed name none and
are refused: their holders sign in again (guests come back as new guests).
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("opened_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sessions")
