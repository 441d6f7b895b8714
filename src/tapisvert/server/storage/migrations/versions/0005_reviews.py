"""Reviews of finished games, one per table and seat, kept once computed."""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("review", sa.Text, nullable=False),
        sa.Column("made_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reviews")
