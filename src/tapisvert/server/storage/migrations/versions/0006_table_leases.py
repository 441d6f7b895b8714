"""Which node serves each table, until when, under which fencing token."""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("node", sa.String(64), nullable=False),
        sa.Column("fence", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("table_leases_node", "table_leases", ["node"])


def downgrade() -> None:
    op.drop_table("table_leases")
