"""Name keys made again from Unicode's confusables skeleton (UTS #39).

The keys made before let look-alikes through (Cyrillic ``КЕА`` beside ``KEA``), and a name
blocks its look-alikes only if its stored key is made as theirs are. Bots keep theirs: a
bot's key is its name, which no person's name can match (it has a space).
"""

import sqlalchemy as sa
from alembic import op

from tapisvert.server.names import name_key

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    connection = op.get_bind()
    users = sa.table(
        "users",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_key", sa.String),
        sa.column("bot", sa.Boolean),
    )
    people = sa.select(users.c.id, users.c.name).where(users.c.bot == sa.false())
    for user_id, name in connection.execute(people).all():
        connection.execute(
            sa.update(users).where(users.c.id == user_id).values(name_key=name_key(name))
        )


def downgrade() -> None:
    """The keys stay as they are: the earlier ones cannot be made without the earlier code."""
