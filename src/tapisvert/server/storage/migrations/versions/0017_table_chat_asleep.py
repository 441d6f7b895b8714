"""A table played over days keeps its chat and notices while it sleeps (``chat``: the lines
as JSON, written as it falls asleep and read as it wakes): those who come back read what was
said, and what happened while they were away (a clock that ran out, say)."""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("chat", sa.Text, nullable=True))


def downgrade() -> None:
    op.drop_column("game_tables", "chat")
