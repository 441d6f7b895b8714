"""Ratings, each seat's result, bot accounts, unrated tables and moves played by a stand-in.

A game's end writes its table's status, its results and the ratings they change in one
transaction (see ``TableStore.finish``).
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("bot", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column(
        "game_tables", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.true())
    )
    op.add_column("game_tables", sa.Column("finished_at", sa.Float, nullable=True))
    op.add_column(
        "actions", sa.Column("stand_in", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
    )
    op.create_index("ix_ratings_game", "ratings", ["game"])
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("absent", sa.Boolean, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=True),
        sa.Column("sigma_before", sa.Float, nullable=True),
        sa.Column("mu_after", sa.Float, nullable=True),
        sa.Column("sigma_after", sa.Float, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.UniqueConstraint("table_id", "seat", name="uq_results_table_seat"),
    )
    op.create_index("ix_results_user_id", "results", ["user_id"])


def downgrade() -> None:
    op.drop_table("results")
    op.drop_table("ratings")
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("stand_in")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("finished_at")
        batch.drop_column("rated")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("bot")
