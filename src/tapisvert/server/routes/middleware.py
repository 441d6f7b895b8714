"""What every HTTP request goes through before its route: a bound on its body, the
headers that tell a browser what the pages may do, and the node its log lines name."""

from __future__ import annotations

import base64
import hashlib
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tapisvert.i18n import accepted_language
from tapisvert.server.errors import ServerError
from tapisvert.server.links import read_body, refuse_body
from tapisvert.server.logs import NODE
from tapisvert.server.routes.pages import WEB


def _content_security_policy() -> str:
    """Scripts and styles from this server only (the page's one inline script, its import
    map, by its hash); no frames around the page, no plugins, no foreign forms."""
    page = (WEB / "index.html").read_text(encoding="utf-8")
    inline = re.findall(r"<script[^>]*>(.*?)</script>", page, flags=re.DOTALL)
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"
        for text in inline
        if text.strip()
    )
    return (
        f"default-src 'self'; script-src 'self' {hashes}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )


class SecurityHeaders:
    """Headers that tell a browser what the pages may do: every HTTP answer carries them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.headers = [
            (b"content-security-policy", _content_security_policy().encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, with_headers)


class LogContext:
    """Lines logged while a request or a socket is handled here name this node (see
    ``logs``); outermost, so that uvicorn's line about the request does too."""

    def __init__(self, app: ASGIApp, node: str) -> None:
        self.app = app
        self.node = node

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        NODE.set(self.node)  # each request and socket runs in a task of its own
        await self.app(scope, receive, send)


class BodyLimit:
    """HTTP request bodies of ``MAX_BODY_BYTES`` at most, read before anything else."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive)
        except ServerError as refusal:
            accepted = dict(scope["headers"]).get(b"accept-language", b"").decode("latin-1")
            await refuse_body(send, refusal, accepted_language(accepted))
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()  # a disconnect, once the response is sent
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
