"""Games over days: a table's clock as stored (when the person to act runs out of time, and
who that is), what happens then (``timeout``: a bot plays the move, or the seat loses), and
whether the table sleeps out of every node's memory until someone comes or its clock runs
out; ratings and results kept per speed (``live``, ``days``).

Tables, ratings and results stored before this migration are live ones: a table open or
under way (or a tournament to come) with a clock of an hour, the longest a live table had,
keeps 3,599 seconds a move, since an hour or more now makes a table played over days."""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "game_tables",
        sa.Column("timeout", sa.String(8), nullable=False, server_default="bot"),
    )
    op.add_column("game_tables", sa.Column("deadline", sa.Float, nullable=True))
    op.add_column("game_tables", sa.Column("to_act", sa.Integer, nullable=True))
    op.add_column(
        "game_tables",
        sa.Column("asleep", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_game_tables_to_act", "game_tables", ["to_act"])
    op.add_column(
        "results", sa.Column("speed", sa.String(8), nullable=False, server_default="live")
    )
    _ratings_keyed_by(["user_id", "game", "speed"], "'live'")
    op.execute(
        "UPDATE game_tables SET clock = 3599 WHERE clock >= 3600 AND status IN ('open', 'playing')"
    )
    op.execute(
        "UPDATE tournaments SET clock = 3599 WHERE clock >= 3600"
        " AND status IN ('registering', 'running')"
    )


def _ratings_keyed_by(key: list[str], speed: str | None) -> None:
    """The ratings table made again with this primary key (SQLite cannot change one in
    place), its rows copied; ``speed``: the speed of the rows copied (``None``: none)."""
    columns: list[sa.schema.SchemaItem] = [
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
    ]
    if speed is not None:
        columns.insert(2, sa.Column("speed", sa.String(8), nullable=False, server_default="live"))
    op.create_table("ratings_rekeyed", *columns, sa.PrimaryKeyConstraint(*key))
    kept = "user_id, game, mu, sigma, games, wins"
    if speed is None:
        op.execute(
            f"INSERT INTO ratings_rekeyed ({kept}) SELECT {kept} FROM ratings WHERE speed = 'live'"
        )
    else:
        op.execute(
            f"INSERT INTO ratings_rekeyed ({kept}, speed) SELECT {kept}, {speed} FROM ratings"
        )
    op.drop_index("ix_ratings_game", "ratings")
    op.drop_table("ratings")
    op.rename_table("ratings_rekeyed", "ratings")
    if op.get_bind().dialect.name == "postgresql":  # the names a table called ratings has
        op.execute("ALTER TABLE ratings RENAME CONSTRAINT ratings_rekeyed_pkey TO ratings_pkey")
        op.execute(
            "ALTER TABLE ratings RENAME CONSTRAINT ratings_rekeyed_user_id_fkey"
            " TO ratings_user_id_fkey"
        )
    op.create_index("ix_ratings_game", "ratings", ["game"])


def downgrade() -> None:
    _ratings_keyed_by(["user_id", "game"], None)
    op.drop_column("results", "speed")
    op.drop_index("ix_game_tables_to_act", "game_tables")
    for name in ("asleep", "to_act", "deadline", "timeout"):
        op.drop_column("game_tables", name)
