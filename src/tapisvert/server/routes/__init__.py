"""The HTTP API, one router per area; ``app.create_app`` includes them.

Each route reaches the server's parts through dependencies (``dependencies``) that read
them from the application's state, where ``create_app`` put them.
"""
