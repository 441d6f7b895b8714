"""The platform: lobby, tables, chat commands, play over WebSocket, persistence.

Layers: ``protocol`` (messages), ``storage`` (database port and adapter), ``pubsub``
(frame delivery), ``tables`` (one game table's actor), ``lobby`` (people, rooms,
tables), ``commands`` (chat commands), ``routes`` (HTTP and WebSocket), ``app`` (the
parts wired together).
"""
