"""The open database of games: how long each move took, and what each account lets the
export show of its games (its name; its unrated games), both off until it says so.

Moves logged before this migration have no time (``took`` stays null)."""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("actions", sa.Column("took", sa.Float, nullable=True))
    for name in ("export_name", "export_unrated"):
        op.add_column(
            "users", sa.Column(name, sa.Boolean, nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    for name in ("export_unrated", "export_name"):
        op.drop_column("users", name)
    op.drop_column("actions", "took")
