"""Each user's name key (what the name looks like), so that no name passes for another."""

import sqlalchemy as sa
from alembic import op

from tapisvert.server.names import name_key

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_key", sa.String(64), nullable=True))
        batch.create_index("ix_users_name_key", ["name_key"])
    connection = op.get_bind()
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("name", sa.String))
    keyed = sa.table("users", sa.column("id", sa.Integer), sa.column("name_key", sa.String))
    for user_id, name in connection.execute(sa.select(users.c.id, users.c.name)).all():
        connection.execute(
            sa.update(keyed).where(keyed.c.id == user_id).values(name_key=name_key(name))
        )


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_index("ix_users_name_key")
        batch.drop_column("name_key")
