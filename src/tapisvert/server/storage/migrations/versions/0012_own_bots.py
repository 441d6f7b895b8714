"""Bot accounts of one's own: the account that owns each (people own none)."""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as users:
        users.add_column(sa.Column("owner_id", sa.Integer, nullable=True))
        users.create_index("ix_users_owner_id", ["owner_id"])
        users.create_foreign_key("fk_users_owner_id", "users", ["owner_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("users") as users:
        users.drop_constraint("fk_users_owner_id", type_="foreignkey")
        users.drop_index("ix_users_owner_id")
        users.drop_column("owner_id")
