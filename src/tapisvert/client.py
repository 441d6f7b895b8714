"""A program of one's own playing at a tapisvert server, as a bot account.

The client speaks the server's WebSocket protocol with the bot account's token, and so sees
exactly what its seat sees: each ``view`` frame is the seat's observation (changes merged
into the previous one), with the legal moves in notation when the seat is to act. It plays
at every table where the account sits (the server sends their views as soon as it is
seated, by an invitation or by itself), and reconnects after a drop or when the server asks.

What chooses the moves (``Player``) is one of:

- a bot level or a registered bot's name (``"easy"``, ``"hard"``…: see ``make_bot``);
- a class or function building a ``Bot`` for a game (``factory(game) -> Bot``), such as a
  class of your own with a ``choose(observation, legal_actions, rng)`` method;
- a function from the observation and the legal moves, in notation, to one of them
  (``decide(observation, legal) -> str``), marked with :func:`deciding`.

A ``Bot`` chooses among actions, which only a position can read from notation: the client
samples a position consistent with the seat's observation (``Game.sample_state``), whose
legal actions are the seat's, and maps the notation through it.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import random
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import websockets

from tapisvert.bots.base import Bot, BotFactory, make_bot
from tapisvert.core.errors import OptionError, TapisvertError
from tapisvert.core.game import Game, Observation
from tapisvert.core.registry import load_game

Decide = Callable[[Observation, list[str]], str]
"""A function choosing one of the legal moves, in notation, from the seat's observation."""

RECONNECT_FIRST = 0.5
RECONNECT_LONGEST = 10.0
"""Seconds before connecting again after a drop, doubling each time up to the longest."""
HTTP_SECONDS = 30.0

_log = logging.getLogger(__name__)


class ClientError(TapisvertError):
    """The client cannot go on: a refused token, a bot that cannot be built, a move the
    position does not offer."""


@dataclass(frozen=True)
class Deciding:
    """A ``Decide`` function, marked so that it is not taken for a bot factory."""

    decide: Decide


def deciding(decide: Decide) -> Deciding:
    """Mark ``decide(observation, legal) -> str`` as what chooses the moves."""
    return Deciding(decide)


Player = str | BotFactory | Deciding


def player_named(text: str) -> Player:
    """A bot level (``easy``), or ``module:name`` for a factory of bots or a function marked
    with :func:`deciding` (a module-level ``decide = deciding(...)``)."""
    module, colon, attribute = text.partition(":")
    if not colon:
        return text
    try:
        found = getattr(import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise ClientError("client.no_bot", name=text, reason=str(error)) from None
    if not (isinstance(found, Deciding) or callable(found)):
        raise ClientError("client.no_bot", name=text, reason=type(found).__name__)
    player: Player = found
    return player


@dataclass
class Seated:
    """One table where the account sits: its game, what chooses there, the view so far."""

    game: Game[Any]
    bot: Bot | None
    decide: Decide | None
    view: dict[str, Any] = field(default_factory=dict)
    answered: int = -1
    """The position last answered: a view repeated at one position is not played twice."""


@dataclass
class Played:
    """What a run did."""

    finished: list[int] = field(default_factory=list)
    """The tables whose game ended while the client played, in that order."""
    moves: int = 0
    connections: int = 0


class Client:
    """Plays every table where the account sits until ``games`` have finished (``None``:
    until stopped)."""

    def __init__(
        self,
        server: str,
        token: str,
        player: Player,
        games: int | None = None,
        seed: int = 0,
    ) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.player = player
        self.games = games
        self.seed = seed
        self.played = Played()
        self._tables: dict[int, Seated] = {}
        self._ids = itertools.count()

    @property
    def socket_url(self) -> str:
        parts = urlsplit(self.server)
        scheme = "wss" if parts.scheme == "https" else "ws"
        return urlunsplit((scheme, parts.netloc, parts.path + "/ws", "", ""))

    async def run(self) -> Played:
        wait = RECONNECT_FIRST
        while not self._done():
            try:
                async with websockets.connect(self.socket_url, max_size=None) as link:
                    for seated in self._tables.values():  # a move sent before a drop may
                        seated.answered = -1  # not have come: the next view asks again
                    await link.send(
                        json.dumps({"type": "hello", "version": 1, "token": self.token})
                    )
                    self.played.connections += 1
                    await self._serve(link)
                    wait = RECONNECT_FIRST
            except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake) as error:
                _log.warning("the connection is lost (%s); connecting again", error)
                await asyncio.sleep(wait)
                wait = min(2 * wait, RECONNECT_LONGEST)
        return self.played

    def _done(self) -> bool:
        return self.games is not None and len(self.played.finished) >= self.games

    async def _serve(self, link: Any) -> None:
        while not self._done():
            frame = json.loads(await link.recv())
            kind = frame["type"]
            if kind == "reconnect":
                return
            if kind == "error":
                self._refused(frame)
            elif kind == "view" and frame["seat"] is not None:
                await self._viewed(link, frame)

    def _refused(self, frame: dict[str, Any]) -> None:
        """A refused token ends the run; a refused move is logged (the next view says what
        to do: a move that came too late is answered by the position that came first)."""
        if frame["code"] in ("bad_token", "banned", "hello_first"):
            raise ClientError("client.refused", reason=frame["message"])
        _log.warning("refused: %s", frame["message"])

    async def _viewed(self, link: Any, frame: dict[str, Any]) -> None:
        table_id = frame["table"]
        seated = self._tables.get(table_id)
        if seated is None:
            seated = self._tables[table_id] = await asyncio.to_thread(self._seated, table_id)
        seated.view = merged_view(seated.view, frame)
        if frame["result"] is not None:
            if table_id not in self.played.finished:
                self.played.finished.append(table_id)
            del self._tables[table_id]
            return
        if (
            frame["to_act"] != frame["seat"]
            or not frame["legal"]
            or seated.answered == frame["seq"]
        ):
            return
        seated.answered = frame["seq"]
        rng = random.Random(f"{self.seed}:{table_id}:{frame['seq']}")
        observation = seated.game.observation_class.from_dict(seated.view)
        action = await asyncio.to_thread(choose, seated, observation, frame["legal"], rng)
        message = {
            "type": "act",
            "id": f"c{next(self._ids)}",
            "table": table_id,
            "seq": frame["seq"],
            "action": action,
        }
        await link.send(json.dumps(message))
        self.played.moves += 1

    def _seated(self, table_id: int) -> Seated:
        """The game of a table (public: anybody may know it), and what chooses there."""
        try:
            info = request_json("GET", f"{self.server}/api/tables/{table_id}")
        except ClientError as error:  # the server is busy or stopping: connect again
            raise OSError(error.message.render()) from None
        game = load_game(info["game"], info["players"], **info["options"])
        player = self.player
        if isinstance(player, Deciding):
            return Seated(game, None, player.decide)
        return Seated(game, self._bot_for(game, player), None)

    def _bot_for(self, game: Game[Any], player: str | BotFactory) -> Bot:
        try:
            return make_bot(player, game) if isinstance(player, str) else built(player, game)
        except OptionError as error:
            name = player if isinstance(player, str) else repr(player)
            raise ClientError("client.no_bot", name=name, reason=error.message.render()) from None


def built(factory: BotFactory, game: Game[Any]) -> Bot:
    """The bot ``factory`` makes for ``game``: a factory (or class) of one parameter is given
    the game, one of none (a bot that needs no rules, such as ``RandomBot``) is not."""
    try:
        wanted = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin without a signature: given the game
        return factory(game)
    bot: Bot = factory(game) if wanted else factory()  # type: ignore[call-arg]
    return bot


def choose(seated: Seated, observation: Observation, legal: list[str], rng: random.Random) -> str:
    """The move, in notation, that the table's player chooses among ``legal``."""
    if seated.bot is None:
        assert seated.decide is not None
        move = seated.decide(observation, list(legal))
        if move not in legal:
            raise ClientError("client.illegal_choice", move=move, legal=", ".join(legal))
        return move
    position = seated.game.sample_state(observation, rng)
    actions = {position.action_to_string(action): action for action in position.legal_actions()}
    if any(text not in actions for text in legal):
        raise ClientError("client.unknown_position", legal=", ".join(legal))
    action = seated.bot.choose(observation, [actions[text] for text in legal], rng)
    chosen: str = position.action_to_string(action)
    return chosen


def merged_view(previous: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
    """The observation a ``view`` frame shows: whole, or the previous one with its changes
    and the items its histories gained."""
    if frame["full"]:
        return dict(frame["view"])
    view = {**previous, **frame["view"]}
    for key, items in frame.get("append", {}).items():
        view[key] = [*previous[key], *items]
    return view


def request_json(
    method: str, url: str, body: dict[str, Any] | None = None, token: str | None = None
) -> Any:
    """The JSON a server answers (``None`` for no content); its refusal raised with the
    server's own words."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    asked = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(asked, timeout=HTTP_SECONDS) as answer:
            content = answer.read()
    except urllib.error.HTTPError as refusal:
        try:
            reason = json.loads(refusal.read())["message"]
        except (ValueError, KeyError, TypeError):
            reason = f"HTTP {refusal.code}"
        raise ClientError("client.refused", reason=reason) from None
    except urllib.error.URLError as error:
        raise ClientError("client.unreachable", url=url, reason=str(error.reason)) from None
    return json.loads(content) if content else None


def play(
    server: str, token: str, player: Player, games: int | None = None, seed: int = 0
) -> Played:
    """Play as the bot account of ``token`` at ``server`` until ``games`` have finished
    (``None``: until interrupted), reconnecting after a drop."""
    return asyncio.run(Client(server, token, player, games, seed).run())


__all__ = [
    "Client",
    "ClientError",
    "Played",
    "deciding",
    "merged_view",
    "play",
    "player_named",
    "request_json",
]
