"""Bot accounts of one's own: the account that owns each (people own none), and who may
invite it to a table (``anyone``, ``friends`` of its owner, or ``nobody``)."""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("owner_id", sa.Integer, nullable=True))
    op.create_index("ix_users_owner_id", "users", ["owner_id"])
    invites = sa.Column("invites", sa.String(8), nullable=False, server_default="anyone")
    op.add_column("users", invites)


def downgrade() -> None:
    op.drop_column("users", "invites")
    op.drop_index("ix_users_owner_id", "users")
    op.drop_column("users", "owner_id")
