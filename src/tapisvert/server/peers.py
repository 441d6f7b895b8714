"""Calls between the nodes of one platform, over the pub/sub port.

Each node follows a channel of its own; a call is a JSON text on the callee's channel, and
its answer one on the caller's, with the result or the refusal (its code, HTTP status and
arguments, so that it is rendered in each reader's language where it is read). Frames of
one publisher on one channel arrive in order (see ``redis_bus``), so a node's calls to a
table reach its node in the order they were made.

What crosses is what the two nodes need of a request: the user it is for, the table, the
arguments; a seat's view goes only to the node of a connection that follows that seat.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from tapisvert.i18n import Message
from tapisvert.server.errors import ServerError
from tapisvert.server.pubsub import Frame, PubSub

CALL_SECONDS = 10.0
"""How long a node waits for another's answer before it refuses the request."""

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


def node_channel(node: str) -> str:
    return f"node:{node}"


class Peers:
    """This node's calls to the others, and its answers to theirs (by ``handler``)."""

    def __init__(self, pubsub: PubSub, node: str, handler: Handler) -> None:
        self.pubsub = pubsub
        self.node = node
        self.handler = handler
        self._numbers = itertools.count()
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._answering: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        self.pubsub.subscribe(node_channel(self.node), self._heard)

    def close(self) -> None:
        self.pubsub.unsubscribe(node_channel(self.node), self._heard)
        for task in self._answering:
            task.cancel()

    async def call(self, node: str, request: dict[str, Any]) -> Any:
        """The answer of ``node`` to ``request``; its refusal is raised here."""
        number = next(self._numbers)
        answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[number] = answer
        frame = {"call": number, "from": self.node, "request": request}
        self.pubsub.publish(node_channel(node), orjson.dumps(frame).decode())
        try:
            return await asyncio.wait_for(answer, CALL_SECONDS)
        except TimeoutError:
            raise ServerError("node_unreachable", status=503) from None
        finally:
            self._waiting.pop(number, None)

    def _heard(self, frame: Frame) -> None:
        if not isinstance(frame, str):
            return
        message = orjson.loads(frame)
        if "answer" in message:
            waiting = self._waiting.get(message["answer"])
            if waiting is not None and not waiting.done():
                if "refusal" in message:
                    waiting.set_exception(refusal_from(message["refusal"]))
                else:
                    waiting.set_result(message["result"])
            return
        task = asyncio.get_running_loop().create_task(self._answer(message))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _answer(self, message: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"answer": message["call"]}
        try:
            reply["result"] = await self.handler(message["request"])
        except ServerError as error:
            reply["refusal"] = refusal_to(error)
        except Exception:
            log.exception("a request from node %s failed", message["from"])
            reply["refusal"] = refusal_to(ServerError("node_failed", status=500))
        self.pubsub.publish(node_channel(message["from"]), orjson.dumps(reply).decode())


def refusal_to(error: ServerError) -> dict[str, Any]:
    """A refusal as JSON, its message still to be rendered."""
    return {
        "code": error.code,
        "status": error.status,
        "key": error.message.key,
        "arguments": {name: _value_to(value) for name, value in error.message.arguments.items()},
    }


def refusal_from(refusal: dict[str, Any]) -> ServerError:
    arguments = {name: _value_from(value) for name, value in refusal["arguments"].items()}
    return ServerError(refusal["code"], refusal["status"], refusal["key"], **arguments)


def _value_to(value: object) -> object:
    if isinstance(value, Message):
        return {
            "message": value.key,
            "arguments": {n: _value_to(v) for n, v in value.arguments.items()},
        }
    return value


def _value_from(value: Any) -> object:
    if isinstance(value, dict) and "message" in value:
        arguments = {name: _value_from(inner) for name, inner in value["arguments"].items()}
        return Message(value["message"], arguments)
    return value
