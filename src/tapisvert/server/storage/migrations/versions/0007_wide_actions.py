"""Actions as 64-bit integers: a Fzzzt! bid is a set of cards, one bit each, above 2**56.

SQLite's integers have 64 bits whatever the declared type; PostgreSQL's ``integer`` has 32.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("actions", "action", type_=sa.BigInteger, existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("actions", "action", type_=sa.Integer, existing_nullable=False)
