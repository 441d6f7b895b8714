"""The platform: lobby, tables, chat commands, play over WebSocket, persistence.

Layers: ``protocol`` (messages), ``storage`` (database port and adapter, one store per
area), ``pubsub`` (frame delivery), ``tables`` (one game table's actor), ``lobby`` (the
composition root of accounts, presence, connections, cluster, rooms, tables and records),
``commands`` (chat commands), ``routes`` (HTTP and WebSocket, one router per area),
``app`` (the parts wired together).
"""
