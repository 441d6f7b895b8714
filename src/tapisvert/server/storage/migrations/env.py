"""Alembic runs here with the server's own connection (see ``schema.migrate``)."""

from alembic import context

from tapisvert.server.storage.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
