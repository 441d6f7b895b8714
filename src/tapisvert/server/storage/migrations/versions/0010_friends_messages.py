"""Ignores, friendships and private messages.

A friendship is asked by one account and accepted by the other (``accepted_at``); a private
message is kept until its recipient reads it (``read_at``), and an invitation to a table is
a message that names the table.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ignores",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("ignored_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
    )
    op.create_index("ix_ignores_ignored_id", "ignores", ["ignored_id"])
    op.create_table(
        "friendships",
        sa.Column("asker_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("asked_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("asked_at", sa.Float, nullable=False),
        sa.Column("accepted_at", sa.Float, nullable=True),
    )
    op.create_index("ix_friendships_asked_id", "friendships", ["asked_id"])
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("sender_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("recipient_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("table_id", sa.Integer, nullable=True),
        sa.Column("sent_at", sa.Float, nullable=False),
        sa.Column("read_at", sa.Float, nullable=True),
    )
    op.create_index("ix_messages_recipient_id", "messages", ["recipient_id"])
    op.create_index("ix_messages_sender_id", "messages", ["sender_id"])


def downgrade() -> None:
    op.drop_table("messages")
    op.drop_table("friendships")
    op.drop_table("ignores")
