"""The lobby: people, rooms, tables and the chat commands, for WebSocket and HTTP alike.

Every request, from a WebSocket message, an HTTP call or a chat command, ends in one
method here, so the three ways of asking behave the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import os
import random
import re
import secrets
import socket
import time
import unicodedata
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from tapisvert.bots.base import LEVELS
from tapisvert.core.errors import OptionError
from tapisvert.core.records import Record, record_of
from tapisvert.core.registry import game_class, game_names, load_game
from tapisvert.i18n import translate
from tapisvert.server.addresses import Addresses, TokenBucket
from tapisvert.server.auth import Tokens, hash_password, password_matches
from tapisvert.server.errors import ServerError, StorageError, TableMoved
from tapisvert.server.links import BACKLOG_BYTES, Link
from tapisvert.server.names import name_key, valid_name
from tapisvert.server.peers import Peers
from tapisvert.server.protocol import (
    ChatLine,
    Error,
    People,
    RoomInfo,
    SeatView,
    ServerMessage,
    TableInfo,
)
from tapisvert.server.pubsub import (
    PRESENCE_CHANNEL,
    Frame,
    LocalPubSub,
    PubSub,
    room_channel,
    seat_channel,
    table_channel,
    user_channel,
)
from tapisvert.server.quotas import Quotas, QuotaSettings
from tapisvert.server.replays import Replays
from tapisvert.server.reviews import Reviews
from tapisvert.server.storage import Storage, TableRow
from tapisvert.server.tables import CHAT_HISTORY, GameTable, Said, Seat, seat_ratings
from tapisvert.server.thinking import BotWorkers, Thinking

MAIN_ROOM = "main"
VIEW_HEAD = re.compile(r'\{"type":"view","table":(?P<table>\d+),"seq":(?P<seq>\d+),')
"""The head of a view frame (see ``GameTable.view_frame``)."""


def rooms() -> tuple[str, ...]:
    """The main room, then a room for each installed game."""
    return (MAIN_ROOM, *game_names())


ROOM_LISTING = 150
"""Tables a room's listing gives at most: the open ones first (those one may join), then
those being played, then the latest finished; changes to the others still reach it."""
LISTED_FIRST = ("open", "playing", "finished", "closed")
OPEN_TABLES_PER_ROOM = 100
"""Open tables one room may hold at once (on each node)."""
OPEN_TABLES_PER_PERSON = 3
"""Open tables one person may sit at at once."""
OPEN_TABLES_PER_ADDRESS = 6
"""Open tables the people of one address may have opened (on each node): a few addresses
cannot keep a room full."""

FINISHED_KEPT_SECONDS = 300.0
RESTORED_FINISHED = 100
"""A finished table stays in memory this long for its players; its record stays for good."""


@dataclass(frozen=True)
class User:
    id: int
    name: str
    guest: bool
    session: str = ""
    """The session a token opened, by which signing out reaches this user's connections."""
    address: str = "?"
    """Where the request comes from, for the quotas of addresses."""


ANYONE = User(0, "?", True)


def _user_from(fields: dict[str, Any]) -> User:
    """A user as another node sent it; fields this version does not know are left out, so
    that nodes of two versions work together during an upgrade."""
    return User(**{name: value for name, value in fields.items() if name in _USER_FIELDS})


"""Who asks for what anybody may know (a table's public description)."""


@dataclass(frozen=True)
class Settings:
    bot_delay: float = 0.6
    """Seconds a bot waits before it plays, so that people can follow."""
    absence_grace: float = 60.0
    """Seconds after a person's last connection closes before a bot plays for them."""
    replacement_level: str = "easy"
    abandoned_after: float = 300.0
    """Seconds an open table stays with nobody at it (see ``GameTable.attended``)."""
    rate: float = 30.0
    """Messages a second one connection may send, with bursts of twice as many; the
    quotas of people and addresses grow and shrink with it (see ``Quotas``)."""
    unread_limit: int = BACKLOG_BYTES
    """Bytes of frames a client may leave unread before its connection is dropped."""
    bot_workers: int | None = None
    """Processes in which the search bots think (``None``: all cores but one)."""
    quotas: QuotaSettings = field(default_factory=QuotaSettings)
    leaderboard_min_games: int = 5
    """Rated games an account plays in a game before its leaderboard lists it."""
    lease_seconds: float = 10.0
    """How long a node's lease of a table lasts unrenewed: a node that dies leaves its
    tables to others after this long (renewed every quarter of it)."""


_log = logging.getLogger(__name__)
DEFAULT_RATE = Settings.rate
_USER_FIELDS = frozenset(User.__dataclass_fields__)
MAX_TABLE_ID = 2**31 - 1
FLOOD_SECONDS = 10
"""A connection whose refused messages outrun its rate by this many seconds' worth is
dropped: a client that backs off when refused never comes near it."""
RECENT_IDS = 64
"""A request that repeats the id of one of its connection's last this many is refused."""
LOGINS_AT_ONCE = 2
"""Password hashes computed at once: argon2 costs a core each, the others wait."""
GUESS_SPACING = 1.0
"""Seconds between two attempts on a name being guessed at, from addresses its owner has
not signed in from (see ``Lobby._held_back``)."""
GUESS_TURNS_KEPT = 1000
"""Names whose next turn is remembered before the past ones are forgotten."""


def signing_key() -> str | None:
    """The key that signs session tokens, from ``TAPISVERT_SECRET_KEY`` or the file named by
    ``TAPISVERT_SECRET_KEY_FILE``; ``None`` when neither is set, and the server makes one
    and keeps it in its database (then whoever reads the database could sign tokens)."""
    key = os.environ.get("TAPISVERT_SECRET_KEY", "")
    path = os.environ.get("TAPISVERT_SECRET_KEY_FILE", "")
    if not key and path:
        key = Path(path).read_text(encoding="utf-8").strip()
    if key and len(key) < 32:
        raise ValueError("a signing key has at least 32 characters")
    return key or None


@functools.cache
def _unknown_hash() -> str:
    """Checked against when a name has no password, so that a login takes as long either way."""
    return hash_password(secrets.token_hex(16))


def _session_key(session: str) -> str:
    """What the database keeps of a session: its hash, so that whoever reads the database
    (and the signing key, if it is kept there) still cannot sign a token for an open one."""
    return hashlib.sha256(session.encode()).hexdigest()


def _password_checks(password_hash: str | None, password: str) -> bool:
    """Whether ``password`` is the one of ``password_hash``; a hash is checked even when
    there is none to match."""
    matches = password_matches(password_hash or _unknown_hash(), password)
    return matches and password_hash is not None


class Connection:
    """One client's link: what it follows, what it may send, and its outgoing frames."""

    def __init__(
        self,
        lobby: Lobby,
        user: User,
        language: str,
        link: Link,
        shared: TokenBucket | None = None,
    ) -> None:
        """``shared``: the rate the connection shares with the others of its address."""
        self.lobby = lobby
        self._shared = shared
        self.user = user
        self.language = language
        self.link = link
        self.channels: set[str] = set()
        self.recent_ids: dict[str, None] = {}
        """The ids of the last ``RECENT_IDS`` requests, oldest first (a dict: looked up by hash)."""
        self._allowance = 2 * lobby.settings.rate
        self._refused = 0.0
        """Refused messages, draining at the rate (see ``within_rate``)."""
        self._checked = time.monotonic()
        self.closed = False
        self._held: dict[int, list[str]] = {}
        """Views of tables served elsewhere, kept while their first view is on its way."""
        self._last_published: Frame | None = None
        """The frame last published to this connection: the same one, published on two of
        its channels, is sent once (two equal chat lines are two lines, and both are sent)."""

    def deliver(self, frame: Frame) -> None:
        """A frame published on a channel this connection listens to."""
        if frame is self._last_published:  # a table's news reaches its room and its players
            return
        if self._held and isinstance(frame, str):
            head = VIEW_HEAD.match(frame)
            if head is not None and int(head["table"]) in self._held:
                self._held[int(head["table"])].append(frame)
                return
        self._last_published = frame
        if isinstance(frame, dict):
            frame = self.lobby.render_notice(frame, self.language)
        self._enqueue(frame)

    def send(self, message: ServerMessage) -> None:
        """A frame for this connection alone: an answer, or the view it asked for."""
        self._enqueue(message.model_dump_json())

    def recall(self, history: Iterable[Said]) -> None:
        """What a room or a table said before this connection came, marked as history."""
        for said in history:
            if isinstance(said, ChatLine):
                self.send(said.model_copy(update={"history": True}))
            else:
                self._enqueue(self.lobby.render_notice({**said, "history": True}, self.language))

    def _enqueue(self, frame: str) -> None:
        if self.closed:
            return
        if self.link.backlog() >= self.lobby.settings.unread_limit:
            self.drop()
            return
        self.link.push(frame)

    def hold(self, table_id: int) -> None:
        """Keep the table's views until ``release``: the node serving the table is asked for
        its first view, and views published meanwhile may come before it (see
        ``catch_up``)."""
        self._held.setdefault(table_id, [])

    def release(self, table_id: int) -> list[str]:
        """Stop keeping the table's views; those kept since ``hold``."""
        return self._held.pop(table_id, [])

    def catch_up(self, views: list[str], seq: int) -> None:
        """Send the views kept that came after position ``seq`` (the one the table's first
        view showed): the others were changes to a view this connection never had."""
        for frame in views:
            head = VIEW_HEAD.match(frame)
            if head is not None and int(head["seq"]) > seq:
                self._enqueue(frame)

    def listen(self, channel: str) -> None:
        if channel not in self.channels:
            self.channels.add(channel)
            self.lobby.pubsub.subscribe(channel, self.deliver)

    def stop_listening(self, test: Callable[[str], bool]) -> None:
        for channel in [name for name in self.channels if test(name)]:
            self.channels.discard(channel)
            self.lobby.pubsub.unsubscribe(channel, self.deliver)

    def stop_following(self, table: int, seat_only: bool = False) -> None:
        """Stop hearing a table's views (``seat_only``) or everything about it."""
        public = table_channel(table)
        self.stop_listening(
            lambda name: name.startswith(f"{public}:") or (not seat_only and name == public)
        )

    def follows_seat(self, table_id: int) -> bool:
        """Whether this connection hears its user's seat at the table (and so its views)."""
        seats = f"{table_channel(table_id)}:seat:"
        return any(channel.startswith(seats) for channel in self.channels)

    def within_rate(self) -> bool:
        """A token bucket: ``rate`` messages a second, bursts of twice that.

        Refusals fill a second bucket that drains at ``rate`` a second: a client whose
        refusals outrun it by ``FLOOD_SECONDS`` seconds' worth of messages is flooding, and
        its connection is dropped. A burst that then waits is only slowed down.
        """
        now = time.monotonic()
        rate = self.lobby.settings.rate
        elapsed, self._checked = now - self._checked, now
        self._allowance = min(2 * rate, self._allowance + elapsed * rate)
        self._refused = max(0.0, self._refused - elapsed * rate)
        if self._allowance < 1 or (self._shared is not None and not self._shared.take()):
            self._refused += 1
            if self._refused > FLOOD_SECONDS * rate:
                self.drop(ServerError("flooding", status=429))
                self.lobby.flooded(self.link.address)
            return False
        self._allowance -= 1
        return True

    def repeated(self, request_id: str | None) -> bool:
        if request_id is None:
            return False
        if request_id in self.recent_ids:
            return True
        self.recent_ids[request_id] = None
        if len(self.recent_ids) > RECENT_IDS:
            del self.recent_ids[next(iter(self.recent_ids))]
        return False

    def close(self, code: int = 1000) -> None:
        if not self.closed:
            self.closed = True
            self.stop_listening(lambda name: True)
            self.link.close(code)

    def drop(self, reason: ServerError | None = None) -> None:
        """Cut a connection that floods or does not read (see ``Link.drop``), saying why
        in the log and, as far as it goes, to the client: a socket closed with unread data
        on it may lose its last frames on the way."""
        if not self.closed:
            why = "it does not read" if reason is None else reason.code
            _log.warning("the connection of %s is cut: %s", self.user.name, why)
            if reason is not None:
                refusal = Error(code=reason.code, message=reason.render(self.language))
                self.link.push(refusal.model_dump_json())
            self.closed = True
            self.stop_listening(lambda name: True)
            self.link.drop()


def node_name() -> str:
    """A name for this server process among the platform's nodes, new at every start."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


class Lobby:
    """The people, rooms and tables of one node.

    A node serves the tables it holds a lease of in the database (see ``storage``); alone
    (``sole``: no bus, so no other node can reach its clients) it takes every table at
    start, even from a process that was killed a moment ago. With other nodes, it takes
    the tables nobody serves, at start and whenever a node's leases run out.
    """

    def __init__(
        self,
        storage: Storage,
        pubsub: PubSub | None = None,
        settings: Settings | None = None,
        sole: bool = True,
    ) -> None:
        self.storage = storage
        self.node = node_name()
        self.sole = sole
        self.pubsub: PubSub = pubsub or LocalPubSub()
        self.settings = settings or Settings()
        self.thinking: Thinking = BotWorkers(self.settings.bot_workers)
        self.quotas = Quotas(self.settings.quotas, self.settings.rate / DEFAULT_RATE)
        self.addresses = Addresses(self.quotas, self.settings.rate)
        self._guess_turns: dict[str, float] = {}
        """When the next attempt on each name being guessed at may go (see ``_held_back``)."""
        self._opening: Counter[tuple[str, str]] = Counter()
        """Tables being opened, by person, address and room (see ``_opening_table``)."""
        self.reviews = Reviews(storage.reviews, self.record, self.players_of, self.quotas)
        self.replays = Replays(self.record)
        self._hashing = asyncio.Semaphore(LOGINS_AT_ONCE)
        self.tokens: Tokens | None = None
        self.tables: dict[int, GameTable] = {}
        self._seated: dict[int, set[int]] = {}
        """Each person's tables here (by id) where they sit, so that their coming and going
        looks at those tables only, not at every table in memory (finished ones stay for
        minutes: thousands on a busy node)."""
        self._seated_at: dict[int, frozenset[int]] = {}
        """The people each table here is indexed under in ``_seated``."""
        self.bot_accounts: dict[str, int] = {}
        """The rated account of each bot level."""
        self.names: dict[int, str] = {}
        self.connections: dict[int, set[Connection]] = {}
        self.rooms: dict[str, dict[int, int]] = {room: {} for room in rooms()}
        self.room_history: dict[str, deque[Said]] = {
            room: deque(maxlen=CHAT_HISTORY) for room in rooms()
        }
        self._tasks: set[asyncio.Task[Any]] = set()
        self.peers: Peers | None = None
        """Calls to and from the other nodes; ``None`` for a node alone."""
        self.nodes_of: dict[int, str] = {}
        """The node serving each table served elsewhere, as last found."""
        self.tables_elsewhere: dict[int, TableInfo] = {}
        """The latest description of each table other nodes serve, from their rooms' news."""
        self.online_elsewhere: dict[str, tuple[float, dict[int, str]]] = {}
        """Each other node's connected people (id → name), and when it last said so."""
        self.rooms_elsewhere: dict[str, dict[int, str]] = {}
        """The room each person connected to another node is in (id → room), by node."""
        self.keeper: asyncio.Task[None] | None = None
        """Renews this node's leases and takes over the tables of nodes that stopped."""
        self._rematching = asyncio.Lock()
        """Held while a rematch table is made: a second request waits for it, not a copy."""

    # -- life -------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the database and bring back the tables that were open or playing.

        The latest finished tables come back too, for a while: whoever was there when the
        server stopped may not have seen the end.
        """
        await self.storage.start()
        # made once here, not by two sign-ins' threads at once
        await asyncio.to_thread(_unknown_hash)
        self.tokens = Tokens(signing_key() or await self.storage.secret())
        self.bot_accounts = await self.storage.accounts.bots(LEVELS)
        leases = await self.storage.leases.take(
            self.node, self.settings.lease_seconds, force=self.sole
        )
        rows = await self.storage.tables.listed(["open", "playing"])
        rows = [row for row in rows if row.id in leases]
        rows += await self.storage.tables.listed(["finished"], latest=RESTORED_FINISHED)
        for row in rows:
            await self._bring_back(row, leases.get(row.id))
        if not self.sole:
            self.peers = Peers(self.pubsub, self.node, self._answer)
            self.peers.start()
            self.pubsub.subscribe(PRESENCE_CHANNEL, self._heard_presence)
            for room in rooms():
                self.pubsub.subscribe(room_channel(room), self._heard_in_room)
        self.keeper = asyncio.get_running_loop().create_task(self._keep_leases())

    async def _bring_back(self, row: TableRow, fence: int | None) -> GameTable:
        """A table from the database, as it was when its last node stopped serving it."""
        table = GameTable(row, self)
        table.fence = fence
        if row.status != "open":
            await table.restore(await self.storage.tables.actions(row.id))
        self._hold(table)
        for seat in table.seats:
            if seat.user_id is not None:
                self.names[seat.user_id] = seat.name or "?"
                self._later(self.settings.absence_grace, self._check_absent, seat.user_id)
        if table.status == "playing":
            table._next_turn()
        elif table.status == "finished":
            self._later(FINISHED_KEPT_SECONDS, self._forget, table)
        else:
            self._review_attendance(table)
        return table

    def _hold(self, table: GameTable) -> None:
        """``table`` is served here now."""
        self.tables[table.id] = table
        self._index_seats(table)

    def _let_go(self, table: GameTable) -> bool:
        """``table`` is no longer in memory here; false if it was not."""
        if self.tables.get(table.id) is not table:
            return False
        del self.tables[table.id]
        for user_id in self._seated_at.pop(table.id, frozenset()):
            self._unseat(user_id, table.id)
        return True

    def _index_seats(self, table: GameTable) -> None:
        """Index ``table`` under the people who sit there now (after a change of seats)."""
        if self.tables.get(table.id) is not table:
            return
        seated = frozenset(
            seat.user_id
            for seat in table.seats
            if seat.kind == "human" and seat.user_id is not None
        )
        before = self._seated_at.get(table.id, frozenset())
        if seated == before:
            return
        self._seated_at[table.id] = seated
        for user_id in before - seated:
            self._unseat(user_id, table.id)
        for user_id in seated - before:
            self._seated.setdefault(user_id, set()).add(table.id)

    def _unseat(self, user_id: int, table_id: int) -> None:
        tables = self._seated.get(user_id)
        if tables is not None:
            tables.discard(table_id)
            if not tables:
                del self._seated[user_id]

    def seated_tables(self, user_id: int) -> list[tuple[GameTable, int]]:
        """The tables here where the person sits, with their seat."""
        found = []
        for table_id in self._seated.get(user_id, ()):
            table = self.tables.get(table_id)
            if table is not None and (seat := table.seat_of(user_id)) is not None:
                found.append((table, seat))
        return found

    def _forget(self, table: GameTable) -> None:
        """A finished table leaves memory (and this node lets its lease go): its record
        stays in the database. Its players and spectators stop following it, on every
        node: nothing is said there any more, and a connection that plays game after game
        would otherwise carry every table it ever sat at."""
        followers = {seat.user_id for seat in table.seats if seat.user_id is not None}
        if self._let_go(table):
            for user_id in followers | table.spectators.keys():
                self._unfollow_all(user_id, table.id)
            self.spawn(self.storage.leases.release(self.node, table.id))

    async def _keep_leases(self) -> None:
        """Renew this node's leases; let go of the tables another node took; take over
        the tables of nodes whose leases ran out."""
        seconds = self.settings.lease_seconds
        while True:
            await asyncio.sleep(seconds / 4)
            if not self.sole:
                self._announce()
                self._expire_presence(seconds)
            leased = [table for table in self.tables.values() if table.fence is not None]
            try:
                held = await self.storage.leases.renew(self.node, seconds)
                for table in leased:
                    if table.id not in held:
                        self.lost(table)
                if not self.sole:
                    await self._take_over(await self.storage.leases.take(self.node, seconds))
            except StorageError:
                continue  # the database is away: the leases are renewed when it is back
            except Exception:
                _log.exception("keeping this node's leases failed; trying again")

    async def _take_over(self, leases: dict[int, int]) -> None:
        """Serve the tables of a node that stopped: their players, wherever they are
        connected, hear the position as it is now."""
        for table_id, fence in leases.items():
            row = await self.storage.tables.load(table_id)
            if row is None or row.status not in ("open", "playing"):
                continue
            _log.warning("table %d was left by its node: it is served here now", table_id)
            table = await self._bring_back(row, fence)
            self.table_changed(table)
            if table.state is not None:
                table.publish_views()
            for index, seat in enumerate(table.seats):
                if seat.user_id is not None:
                    await self._follow_all(seat.user_id, table.id, index)

    # -- what the nodes tell each other ------------------------------------------------

    def _announce(self, user_id: int | None = None, online: bool = True) -> None:
        """Tell the other nodes who is connected here: one person who came or went, or
        (every quarter of a lease) everyone."""
        if user_id is None:
            people = {str(user): self.user_name(user) for user in self.connections}
            rooms_here = {str(user): room for room, in_it in self.rooms.items() for user in in_it}
            said: dict[str, Any] = {"node": self.node, "everyone": people, "rooms": rooms_here}
        else:
            said = {"node": self.node, "user": user_id, "name": self.user_name(user_id)}
            said["online"] = online
            said["room"] = self._room_of(user_id)  # none once their last connection here closed
        self.pubsub.publish(PRESENCE_CHANNEL, orjson.dumps(said).decode())

    def _heard_presence(self, frame: Frame) -> None:
        if not isinstance(frame, str):
            return
        said = orjson.loads(frame)
        node = said["node"]
        if node == self.node:
            return
        _, before = self.online_elsewhere.get(node, (0.0, {}))
        if "everyone" in said:
            people = {int(user): name for user, name in said["everyone"].items()}
            in_rooms = {int(user): room for user, room in said["rooms"].items()}
        else:
            people, in_rooms = dict(before), dict(self.rooms_elsewhere.get(node, {}))
            in_rooms.pop(said["user"], None)
            if said["online"]:
                people[said["user"]] = said["name"]
            else:
                people.pop(said["user"], None)
            if said["room"] is not None:
                in_rooms[said["user"]] = said["room"]
        self.online_elsewhere[node] = (time.monotonic(), people)
        self.rooms_elsewhere[node] = in_rooms
        self._presence_changed(before, people)

    def _expire_presence(self, seconds: float) -> None:
        """A node not heard from for a lease's length is gone, and so are its people."""
        for node, (heard, people) in list(self.online_elsewhere.items()):
            if time.monotonic() - heard > seconds:
                del self.online_elsewhere[node]
                self.rooms_elsewhere.pop(node, None)
                self._presence_changed(people, {})

    def _presence_changed(self, before: dict[int, str], after: dict[int, str]) -> None:
        for user_id, name in after.items():
            self.names.setdefault(user_id, name)
            if user_id not in before:
                for table, _ in self.seated_tables(user_id):
                    self._review_attendance(table)
        for user_id in before.keys() - after.keys():
            if not self.is_online(user_id):
                self._went_offline(user_id)

    def _heard_in_room(self, frame: Frame) -> None:
        """A room's chat, said on any node, is kept for those who enter it later; a table's
        news, for tables served elsewhere, for the room's list."""
        if isinstance(frame, str) and frame.startswith('{"type":"chat"'):
            line = ChatLine.model_validate_json(frame)
            if line.room in self.room_history:
                self.room_history[line.room].append(line)
            return
        if not isinstance(frame, str) or not frame.startswith('{"type":"table"'):
            return
        info = TableInfo.model_validate_json(frame)
        if info.table in self.tables:
            return
        if info.status in ("open", "playing"):
            self.tables_elsewhere[info.table] = info
        else:
            self.tables_elsewhere.pop(info.table, None)

    def _instruct(self, user_id: int, **instruction: Any) -> None:
        """Have the user's connections on the other nodes follow a table, or stop, or close."""
        said = {"node": self.node, "user": user_id, **instruction}
        self.pubsub.publish(user_channel(user_id), orjson.dumps(said).decode())

    def _heard_for_user(self, frame: Frame) -> None:
        if not isinstance(frame, str):
            return
        said = orjson.loads(frame)
        if said["node"] == self.node:
            return
        user_id = said["user"]
        if "follow" in said:
            for connection in list(self.connections.get(user_id, ())):
                following = self.follow(connection, said["follow"], said["seat"])
                self.spawn(self._quietly(following))
        elif "unfollow" in said:
            for connection in self.connections.get(user_id, ()):
                connection.stop_following(said["unfollow"])
        elif "sessions" in said:
            session, others = said["sessions"], said["others"]
            self._end_sessions(
                user_id, lambda mine: (mine != session) if others else (mine == session)
            )

    def lost(self, table: GameTable) -> None:
        """Another node serves ``table`` now: this one forgets it (its timers too) and
        stores nothing more of it."""
        if table.moved:
            return
        _log.warning("table %d is served by another node now", table.id)
        table.moved = True
        table.stop_timers()
        self._let_go(table)

    async def stop(self) -> None:
        if self.keeper is not None:
            self.keeper.cancel()
        if self.peers is not None:
            self.peers.close()
        for task in list(self._tasks):
            task.cancel()
        await self.thinking.close()
        await self.reviews.close()
        await self.replays.close()
        await self.storage.close()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _later(self, delay: float, callback: Any, *arguments: Any) -> None:
        asyncio.get_running_loop().call_later(delay, callback, *arguments)

    # -- people -----------------------------------------------------------------------

    async def guest(self, name: str, address: str) -> tuple[str, User]:
        self.quotas.take("guests", address)
        return await self._new_user(name, None)

    async def register(self, name: str, password: str, address: str) -> tuple[str, User]:
        if len(password) < 6:
            raise ServerError("short_password")
        valid_name(name)  # before the hash's cost
        self.quotas.take("accounts", address)
        async with self._hashing:
            password_hash = await asyncio.to_thread(hash_password, password)
        return await self._new_user(name, password_hash)

    async def _new_user(self, text: str, password_hash: str | None) -> tuple[str, User]:
        name = valid_name(text)
        user_id = await self.storage.accounts.create(
            name, name_key(name), password_hash, password_hash is None
        )
        if user_id is None:
            raise ServerError("name_taken", status=409, name=name)
        self.names[user_id] = name
        return await self._open_session(User(user_id, name, password_hash is None))

    async def login(self, name: str, password: str, address: str) -> tuple[str, User]:
        """A session for the name's owner; the answer takes as long whether or not the name
        exists (a hash is checked either way).

        Wrong passwords are held against the address they come from (see ``QuotaSettings``):
        an address that guessed too often is refused, for the name or for all, while others
        still sign in; a name guessed at from many addresses slows those addresses down.
        """
        name = unicodedata.normalize("NFKC", name)
        guessed = name.casefold()
        self.quotas.take("logins_per_address", address)
        await self._held_back(address, guessed)
        row = await self.storage.accounts.named(name)
        async with self._hashing:
            known = None if row is None else row.password_hash
            matches = await asyncio.to_thread(_password_checks, known, password)
        if row is None or not matches:
            self._failed(address, guessed)
            raise ServerError("bad_login", status=401)
        self.quotas.note("signed_in_from", guessed, address)
        self.names[row.id] = row.name
        return await self._open_session(User(row.id, row.name, False))

    async def _held_back(self, address: str, name: str) -> None:
        """Refuse an address that failed too often. While a name is being guessed at, its
        attempts from addresses its owner has not signed in from take turns, one every
        ``GUESS_SPACING`` seconds: slowed, never refused."""
        quotas = self.quotas
        if quotas.spent("failures_per_address", address) or quotas.spent(
            "failures_per_address_and_name", address, name
        ):
            raise ServerError("too_many_failures", status=429)
        if quotas.spent("failures_per_name", name) and not quotas.counted(
            "signed_in_from", name, address
        ):
            now = time.monotonic()
            if len(self._guess_turns) > GUESS_TURNS_KEPT:
                self._guess_turns = {
                    guessed: turn for guessed, turn in self._guess_turns.items() if turn > now
                }
            turn = max(now, self._guess_turns.get(name, now))
            self._guess_turns[name] = turn + GUESS_SPACING
            await asyncio.sleep(turn - now)

    def _failed(self, address: str, name: str) -> None:
        self.quotas.note("failures_per_address", address)
        self.quotas.note("failures_per_address_and_name", address, name)
        self.quotas.note("failures_per_name", name)

    async def change_password(self, user: User, old: str, new: str, address: str) -> None:
        """A new password ends every other session of its owner (every other device signs
        in again); this one carries on. A wrong old password counts as a failed sign-in."""
        if len(new) < 6:
            raise ServerError("short_password")
        guessed = user.name.casefold()
        self.quotas.take("logins_per_address", address)
        await self._held_back(address, guessed)
        row = await self.storage.accounts.load(user.id)
        known = None if row is None else row.password_hash
        async with self._hashing:
            matches = await asyncio.to_thread(_password_checks, known, old)
        if not matches:
            self._failed(address, guessed)
            raise ServerError("bad_login", status=401)
        async with self._hashing:
            password_hash = await asyncio.to_thread(hash_password, new)
        await self.storage.accounts.set_password(user.id, password_hash, _session_key(user.session))
        self._end_sessions(user.id, lambda session: session != user.session)
        if self.peers is not None:
            self._instruct(user.id, sessions=user.session, others=True)

    async def sign_out(self, user: User) -> None:
        """End this session: its token authenticates no one any more, and the connections
        it opened are closed."""
        await self.storage.sessions.close(user.id, _session_key(user.session))
        self._end_sessions(user.id, lambda session: session == user.session)
        if self.peers is not None:
            self._instruct(user.id, sessions=user.session, others=False)

    def _end_sessions(self, user_id: int, ended: Callable[[str], bool]) -> None:
        """Close the user's connections opened by the sessions that ``ended``."""
        for connection in list(self.connections.get(user_id, ())):
            if ended(connection.user.session):
                signed_out = ServerError("signed_out", status=401)
                message = signed_out.render(connection.language)
                connection.send(Error(code=signed_out.code, message=message))
                connection.close(code=1008)

    async def _open_session(self, user: User) -> tuple[str, User]:
        assert self.tokens is not None
        session = secrets.token_urlsafe(24)
        await self.storage.sessions.open(_session_key(session), user.id)
        return self.tokens.issue(user.id, session), replace(user, session=session)

    async def authenticate(self, token: str) -> User:
        assert self.tokens is not None
        named = self.tokens.read(token)
        if named is None or await self.storage.sessions.owner(_session_key(named[1])) != named[0]:
            raise ServerError("bad_token", status=401)
        row = await self.storage.accounts.load(named[0])
        if row is None:
            raise ServerError("bad_token", status=401)
        self.names[row.id] = row.name
        return User(row.id, row.name, row.guest, named[1])

    def user_name(self, user_id: int) -> str:
        return self.names.get(user_id, "?")

    def online_users(self) -> list[int]:
        """Everyone connected, here or to another node."""
        online = dict.fromkeys(self.connections)
        for _, people in self.online_elsewhere.values():
            online.update(dict.fromkeys(people))
        return list(online)

    def is_online(self, user_id: int | None) -> bool:
        """Connected here, or to another node."""
        if user_id is None:
            return False
        return bool(self.connections.get(user_id)) or any(
            user_id in people for _, people in self.online_elsewhere.values()
        )

    # -- connections ------------------------------------------------------------------

    def may_connect(self, user: User) -> None:
        """Refuse a connection beyond the number one person may hold."""
        if len(self.connections.get(user.id, ())) >= self.quotas.sockets():
            raise ServerError("too_many_sockets", status=429, limit=self.quotas.sockets())
        self.quotas.take("connections", user.id)

    async def connect(
        self, user: User, language: str, link: Link, shared: TokenBucket | None = None
    ) -> Connection:
        """A new connection: it follows every table where the user sits, here or on
        another node, with its view. ``shared``: the rate of its address (see
        ``Addresses.open``)."""
        connection = Connection(self, user, language, link, shared)
        mine = self.connections.setdefault(user.id, set())
        mine.add(connection)
        if len(mine) == 1 and self.peers is not None:
            self.pubsub.subscribe(user_channel(user.id), self._heard_for_user)
            self._announce(user.id, online=True)
        try:
            for table_id, seat in await self._seats_of(user.id):
                try:
                    await self.follow(connection, table_id, seat, returning=True)
                except ServerError as refusal:  # its node is away: the table comes back later
                    _log.warning("table %d is out of reach: %s", table_id, refusal.code)
        except BaseException:  # the database failed, say: the connection does not stay
            self.disconnect(connection)
            raise
        return connection

    async def _seats_of(self, user_id: int) -> list[tuple[int, int]]:
        """The tables where the user sits, with the seat: here, and with other nodes, the
        open and playing ones they serve."""
        seats = [(table.id, seat) for table, seat in self.seated_tables(user_id)]
        if self.peers is not None:
            for row in await self.storage.tables.seated(user_id, ["open", "playing"]):
                if row.id not in self.tables:
                    seats.extend(
                        (row.id, index)
                        for index, seat_row in enumerate(row.seats)
                        if seat_row.get("kind") == "human" and seat_row.get("user_id") == user_id
                    )
        return seats

    def flooded(self, address: str) -> None:
        """A socket of ``address`` was cut for flooding: past a few, the address is barred
        and its other sockets are cut too."""
        if self.addresses.flooded(address):
            _log.warning("the address %s is barred for flooding", address)
            barred = ServerError("address_barred", status=429)
            for connections in list(self.connections.values()):
                for connection in list(connections):
                    if connection.link.address == address:
                        connection.drop(barred)

    def disconnect(self, connection: Connection) -> None:
        watched = [
            int(channel.split(":")[1])
            for channel in connection.channels
            if channel.endswith(":watch") and channel.startswith("table:")
        ]
        connection.close()
        user_id = connection.user.id
        mine = self.connections.get(user_id, set())
        mine.discard(connection)
        for room in self.rooms.values():
            self._leave_room(room, user_id)
        for table_id in watched:
            if table_id in self.tables:
                self._unwatch(self.tables[table_id], user_id)
            elif self.peers is not None:
                self.spawn(self._quietly(self.on_table(table_id, "unwatch", connection.user)))
        if mine and self.peers is not None:
            self._announce(user_id)  # in no room now
        if not mine:
            self.connections.pop(user_id, None)
            if self.peers is not None:
                self.pubsub.unsubscribe(user_channel(user_id), self._heard_for_user)
                self._announce(user_id, online=False)
            self._went_offline(user_id)

    def _went_offline(self, user_id: int) -> None:
        """The user's last connection closed (here, or on another node): the tables
        where they sit count them away, and a bot may play for them later."""
        self._later(self.settings.absence_grace, self._check_absent, user_id)
        for table, _ in self.seated_tables(user_id):
            self._review_attendance(table)

    async def _quietly(self, work: Awaitable[Any]) -> None:
        """Work for another node whose refusal nobody waits for: it is logged."""
        try:
            await work
        except ServerError as refusal:
            _log.warning("another node refused: %s", refusal.code)

    def _check_absent(self, user_id: int) -> None:
        if self.is_online(user_id):
            return
        for table, _ in self.seated_tables(user_id):
            table.went_away(user_id)

    async def follow(
        self, connection: Connection, table_id: int, seat: int | None, returning: bool = False
    ) -> None:
        """Hear the table and one seat's views (``None``: a spectator's), from the table's
        news and history on; a connection that already heard the table gets no history.
        ``returning``: the user connects again, and is back at the table."""
        connection.stop_following(table_id, seat_only=True)
        arriving = table_channel(table_id) not in connection.channels
        connection.listen(table_channel(table_id))
        connection.listen(seat_channel(table_id, seat))
        elsewhere = table_id not in self.tables
        if elsewhere:
            connection.hold(table_id)
            await self.pubsub.following(seat_channel(table_id, seat))
        try:
            snapshot = await self.on_table(
                table_id,
                "snapshot",
                connection.user,
                seat=seat,
                history=arriving,
                returning=returning,
            )
        except BaseException:
            connection.release(table_id)
            raise
        held = connection.release(table_id)
        connection.send(TableInfo.model_validate(snapshot["info"]))
        if arriving:
            connection.recall(said_from(said) for said in snapshot["history"])
        if snapshot["view"] is not None:
            connection.deliver(snapshot["view"])
        connection.catch_up(held, snapshot["seq"])

    async def _follow_all(self, user_id: int, table_id: int, seat: int | None) -> None:
        """Every connection of the user follows the table, on every node."""
        for connection in list(self.connections.get(user_id, ())):
            await self.follow(connection, table_id, seat)
        if self.peers is not None:
            self._instruct(user_id, follow=table_id, seat=seat)

    def _unfollow_all(self, user_id: int, table_id: int) -> None:
        for connection in self.connections.get(user_id, ()):
            connection.stop_following(table_id)
        if self.peers is not None:
            self._instruct(user_id, unfollow=table_id)

    async def enter(self, connection: Connection, room: str) -> RoomInfo:
        if room not in self.rooms:
            raise ServerError("no_such_room", status=404, room=room, rooms=", ".join(rooms()))
        for other in self.rooms.values():
            self._leave_room(other, connection.user.id)
        people = self.rooms[room]
        people[connection.user.id] = people.get(connection.user.id, 0) + 1
        connection.stop_listening(lambda name: name.startswith("room:"))
        connection.listen(room_channel(room))
        if self.peers is not None:
            self._announce(connection.user.id)
        return await self.room_info(room)

    def _room_of(self, user_id: int) -> str | None:
        """The room a person connected here is in, if any."""
        return next((room for room, in_it in self.rooms.items() if user_id in in_it), None)

    def _leave_room(self, people: dict[int, int], user_id: int) -> None:
        if user_id in people:
            people[user_id] -= 1
            if people[user_id] <= 0:
                del people[user_id]

    async def room_info(self, room: str) -> RoomInfo:
        """The room's tables and the people in it, here and on the other nodes."""
        if room not in self.rooms:
            raise ServerError("no_such_room", status=404, room=room, rooms=", ".join(rooms()))
        here = [table for table in self.tables.values() if table.room == room]
        here.sort(key=lambda table: (LISTED_FIRST.index(table.status), -table.id))
        tables = [table.info() for table in here[:ROOM_LISTING]]
        if self.peers is not None:
            others = await self.storage.tables.listed(["open", "playing"], ROOM_LISTING, room)
            for row in others:
                if row.id not in self.tables:
                    tables.append(self.tables_elsewhere.get(row.id) or self._info_of(row))
            tables.sort(key=lambda info: (LISTED_FIRST.index(info.status), -info.table))
            del tables[ROOM_LISTING:]
        tables.sort(key=lambda info: info.table)
        in_it = set(self.rooms[room])
        for in_rooms in self.rooms_elsewhere.values():
            in_it.update(user for user, where in in_rooms.items() if where == room)
        people = sorted(self.user_name(user) for user in in_it)
        return RoomInfo(room=room, tables=tables, people=people)

    def _info_of(self, row: TableRow, present: bool = True) -> TableInfo:
        """What the database tells of a table: served elsewhere, until its node says more
        (``present``: who is online), or finished."""
        return TableInfo(
            table=row.id,
            room=row.room,
            game=row.game,
            players=row.players,
            options=dict(load_game(row.game, row.players, **row.options).options),
            clock=row.clock,
            status=row.status,  # type: ignore[arg-type]
            seats=[
                SeatView(
                    name=seat.get("name"),
                    kind=seat.get("kind", "empty"),
                    level=seat.get("level"),
                    present=present
                    and (seat.get("kind") == "bot" or self.is_online(seat.get("user_id"))),
                    replaced=seat.get("replaced", False),
                )
                for seat in row.seats
            ],
            spectators=0,
            result=row.result,
            rated=row.rated,
        )

    # -- tables -----------------------------------------------------------------------

    async def table_info(self, table_id: int) -> TableInfo:
        """What anybody may know of a table: one in play, or a finished one from the
        database (for its replay, from a player's history)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table.info()
        if self.peers is not None and await self._node_of(table_id, fresh=True) is not None:
            return TableInfo.model_validate(await self.on_table(table_id, "info", ANYONE))
        row = await self._finished_row(table_id)
        results = await self.storage.ratings.results(table_id)
        info = self._info_of(row, present=False)
        return info.model_copy(update={"ratings": seat_ratings(results) if results else None})

    async def _finished_row(self, table_id: int) -> TableRow:
        """A finished game's row; nothing of a running one (its deal is secret)."""
        if not 1 <= table_id <= MAX_TABLE_ID:  # the database's integers stop there
            raise ServerError("no_such_table", status=404, table=table_id)
        row = await self.storage.tables.load(table_id)
        if row is None or row.status == "closed":
            raise ServerError("no_such_table", status=404, table=table_id)
        if row.status != "finished":
            raise ServerError("not_finished", status=409)
        return row

    async def create_table(
        self,
        user: User,
        room: str,
        game: str,
        players: int,
        options: dict[str, Any],
        clock: float | None,
        rated: bool = True,
    ) -> GameTable:
        if room not in self.rooms:
            raise ServerError("no_such_room", status=404, room=room, rooms=", ".join(rooms()))
        try:
            load_game(game, players, **options)
        except OptionError as error:
            raise ServerError.wrapping("bad_option", error) from None
        options = {name: value for name, value in options.items() if value is not None}
        seats = [Seat() for _ in range(players)]
        with self._opening_table(user, room):
            table = await self._open_table(room, game, options, clock, seats, rated)
            table.opened_from = user.address
            await self.join(user, table.id, 0)
        return table

    @contextlib.contextmanager
    def _opening_table(self, user: User, room: str) -> Iterator[None]:
        """Count a new table against its person's and address's quotas, within the bounds
        on open tables (a room full of empty tables is of use to nobody); tables being
        opened count as open until they are."""
        opening = (("person", str(user.id)), ("address", user.address), ("room", room))
        waiting = self._opening[opening[0]] + sum(
            table.status == "open" for table, _ in self.seated_tables(user.id)
        )
        if waiting >= OPEN_TABLES_PER_PERSON:
            raise ServerError("too_many_open_tables", status=429, limit=OPEN_TABLES_PER_PERSON)
        from_address = self._opening[opening[1]] + sum(
            table.status == "open" and table.opened_from == user.address
            for table in self.tables.values()
        )
        if from_address >= OPEN_TABLES_PER_ADDRESS:
            raise ServerError("address_tables", status=429, limit=OPEN_TABLES_PER_ADDRESS)
        in_room = self._opening[opening[2]] + sum(
            table.room == room and table.status == "open" for table in self.tables.values()
        )
        if in_room >= OPEN_TABLES_PER_ROOM:
            raise ServerError("room_full", status=429, limit=OPEN_TABLES_PER_ROOM)
        self.quotas.take("tables_per_address", user.address)
        self.quotas.take("tables", user.id)
        self._opening.update(opening)
        try:
            yield
        finally:
            self._opening.subtract(opening)
            self._opening += Counter()  # drops the zeros

    async def _open_table(
        self,
        room: str,
        game: str,
        options: dict[str, Any],
        clock: float | None,
        seats: list[Seat],
        rated: bool,
    ) -> GameTable:
        """A new open table, stored, with these seats; nobody is told of it yet."""
        row = TableRow(
            room=room,
            game=game,
            players=len(seats),
            options=options,
            seed=random.SystemRandom().getrandbits(62),
            clock=clock,
            status="open",
            seats=[seat.stored() for seat in seats],
            rated=rated,
        )
        row.id = await self.storage.tables.create(row, self.node, self.settings.lease_seconds)
        table = GameTable(row, self)
        table.fence = 1
        self._hold(table)
        return table

    async def rematch(self, user: User, table_id: int) -> int:
        """The table of the rematch of a finished game: the same game, options, clock, bots
        and people, each seat moved one along (seat 1's player to seat 2…); asked again,
        the same table. Anybody who sat at the finished table may ask."""
        rematch: int = await self.on_table(table_id, "rematch", user)
        return rematch

    async def _rematch_here(self, table: GameTable, user: User) -> int:
        if table.seat_of(user.id) is None:
            raise ServerError("not_seated", status=403)
        if table.status != "finished":
            raise ServerError("not_over", status=409)
        async with self._rematching:
            if table.rematch is None:
                seats = [replace(seat, replaced=False) for seat in table.seats]
                with self._opening_table(user, table.room):
                    rematch = await self._open_table(
                        table.room,
                        table.game.name,
                        table.options,
                        table.clock,
                        seats[-1:] + seats[:-1],
                        table.rated,
                    )
                    rematch.opened_from = user.address
                table.rematch = rematch.id
                self.table_changed(rematch)
                for index, seat in enumerate(rematch.seats):
                    if seat.user_id is not None:
                        await self._follow_all(seat.user_id, rematch.id, index)
                self.tell(
                    table,
                    "server.notice.rematch",
                    rematch=rematch.id,
                    name=user.name,
                    number=rematch.id,
                )
        return table.rematch

    async def join(self, user: User, table_id: int, seat: int | None) -> int:
        index: int = await self.on_table(table_id, "join", user, seat=seat)
        await self._follow_all(user.id, table_id, index)
        return index

    async def leave(self, user: User, table_id: int) -> None:
        await self.on_table(table_id, "leave", user)
        self._unfollow_all(user.id, table_id)

    async def watch(self, connection: Connection, table_id: int) -> None:
        """Follow a table as a spectator; someone seated there follows their own seat."""
        seat: int | None = await self.on_table(table_id, "watch", connection.user)
        await self.follow(connection, table_id, seat)

    def _unwatch(self, table: GameTable, user_id: int) -> None:
        table.spectators.pop(user_id, None)
        self.table_changed(table)

    async def act(
        self, user: User, table_id: int, action: str, seq: int, request: str | None = None
    ) -> int:
        position: int = await self.on_table(
            table_id, "act", user, action=action, seq=seq, request=request
        )
        return position

    async def start_game(self, user: User, table_id: int) -> None:
        await self.on_table(table_id, "start", user)

    async def set_option(self, user: User, table_id: int, name: str, value: str) -> None:
        await self.on_table(table_id, "option", user, name=name, value=value)

    async def add_bot(self, user: User, table_id: int, level: str, seat: int | None) -> None:
        await self.on_table(table_id, "bot", user, level=level, seat=seat)

    async def view(self, user: User, table_id: int) -> str:
        """The user's view of a table (a spectator's where they do not sit), as JSON."""
        frame: str = await self.on_table(table_id, "view", user)
        return frame

    # -- where a table is served ------------------------------------------------------

    async def on_table(self, table_id: int, operation: str, user: User, **arguments: Any) -> Any:
        """Do ``operation`` on a table where it is served: here, or on the node that holds
        its lease (asked over the bus). The answer is JSON's kind of value either way."""
        table = self.tables.get(table_id)
        if table is not None:
            return await self._operate(table, operation, user, arguments)
        if self.peers is None:
            raise ServerError("no_such_table", status=404, table=table_id)
        request = {"table": table_id, "operation": operation, **arguments}
        if user is not ANYONE:
            request["user"] = asdict(user)
        for attempt in range(2):
            node = await self._node_of(table_id, fresh=attempt > 0)
            table = self.tables.get(table_id)  # taken over here meanwhile
            if table is not None:
                return await self._operate(table, operation, user, arguments)
            if node is None or node == self.node:
                break
            try:
                return await self.peers.call(node, request)
            except ServerError as refusal:
                self.nodes_of.pop(table_id, None)
                if refusal.code not in ("table_moved", "node_unreachable"):
                    raise
                await asyncio.sleep(self.settings.lease_seconds / 4 * attempt)
        raise ServerError("no_such_table", status=404, table=table_id)

    async def _node_of(self, table_id: int, fresh: bool) -> str | None:
        """The node that serves a table, as last found in the database."""
        if fresh or table_id not in self.nodes_of:
            node = await self.storage.leases.holder(table_id)
            if node is None:
                return None
            self.nodes_of[table_id] = node
        return self.nodes_of[table_id]

    async def _answer(self, request: dict[str, Any]) -> Any:
        """Another node's request for a table served here."""
        table_id = request.pop("table")
        operation, user = (
            request.pop("operation"),
            _user_from(request.pop("user")) if "user" in request else ANYONE,
        )
        table = self.tables.get(table_id)
        if table is None:
            raise TableMoved(table_id)
        if user is not ANYONE:
            self.names[user.id] = user.name
        return await self._operate(table, operation, user, request)

    async def _operate(
        self, table: GameTable, operation: str, user: User, arguments: dict[str, Any]
    ) -> Any:
        """A request for a table served here; what it answers crosses between nodes."""
        match operation:
            case "act":
                return await table.act(
                    user.id, arguments["action"], arguments["seq"], arguments["request"]
                )
            case "join":
                index = await table.join(user.id, user.name, arguments["seat"])
                if table.spectators.pop(user.id, None) is not None:
                    self.table_changed(table)
                return index
            case "leave":
                if user.id in table.spectators:
                    self._unwatch(table, user.id)
                else:
                    await table.leave(user.id)
            case "watch":
                seat = table.seat_of(user.id)
                if seat is None:
                    table.spectators[user.id] = table.spectators.get(user.id, 0) + 1
                    self.table_changed(table)
                return seat
            case "unwatch":
                if user.id in table.spectators:
                    self._unwatch(table, user.id)
            case "start":
                await table.start(user.id)
            case "option":
                await table.set_option(user.id, arguments["name"], arguments["value"])
            case "bot":
                return await table.add_bot(user.id, arguments["level"], arguments["seat"])
            case "rematch":
                return await self._rematch_here(table, user)
            case "chat":
                if table.seat_of(user.id) is None and user.id not in table.spectators:
                    raise ServerError("chat_not_at_table", status=403, table=table.id)
                line = ChatLine(table=table.id, sender=user.name, text=arguments["text"])
                table.history.append(line)
                self.pubsub.publish(table_channel(table.id), line.model_dump_json())
            case "who":
                return table.people()
            case "info":
                return table.info().model_dump(mode="json")
            case "view":
                return table.view_frame(table.seat_of(user.id))
            case "snapshot":
                return await self._snapshot(table, user, **arguments)
            case _:
                raise ServerError("node_failed", status=500)
        return None

    async def _snapshot(
        self, table: GameTable, user: User, seat: int | None, history: bool, returning: bool
    ) -> dict[str, Any]:
        """What a connection that starts following the table is sent: the table, what was
        said there (``history``), the seat's view; ``returning``: the user is back."""
        self.pubsub.expect(seat_channel(table.id, seat))
        snapshot = {
            "seq": table.seq,
            "info": table.info().model_dump(mode="json"),
            "history": [said_to(said) for said in table.history] if history else [],
            "view": None if table.state is None else table.view_frame(seat),
        }
        if returning:
            self._review_attendance(table)
            await table.come_back(user.id)
        return snapshot

    def table_changed(self, table: GameTable) -> None:
        self._index_seats(table)
        frame = table.info().model_dump_json()
        self.pubsub.publish(room_channel(table.room), frame)
        self.pubsub.publish(table_channel(table.id), frame)
        if table.status == "finished":
            self._later(FINISHED_KEPT_SECONDS, self._forget, table)
        self._review_attendance(table)

    def _review_attendance(self, table: GameTable) -> None:
        """Start the countdown that closes an open table nobody is at, or stop it."""
        if table.status == "open" and not table.attended():
            if table.unattended is None:
                table.unattended = asyncio.get_running_loop().call_later(
                    self.settings.abandoned_after, self._abandoned, table
                )
        elif table.unattended is not None:
            table.unattended.cancel()
            table.unattended = None

    def _abandoned(self, table: GameTable) -> None:
        self.spawn(self._close(table))

    async def _close(self, table: GameTable) -> None:
        """Remove an abandoned table for good: from memory, the database and the room."""
        self._let_go(table)
        table.status = "closed"
        self.table_changed(table)
        await table.save_until_stored()
        await self.storage.leases.release(self.node, table.id)

    def tell(
        self, table: GameTable, key: str, rematch: int | None = None, **arguments: Any
    ) -> None:
        """A notice to the table, rendered for each reader; ``rematch``: the table of the
        rematch it announces, for a link."""
        notice = {
            "type": "notice",
            "table": table.id,
            "key": key,
            "arguments": arguments,
            "history": False,
            "rematch": rematch,
        }
        table.history.append(notice)
        self.pubsub.publish(table_channel(table.id), notice)

    def render_notice(self, notice: dict[str, Any], language: str) -> str:
        text = translate(notice["key"], language, **notice["arguments"])
        return orjson.dumps({**notice, "text": text}).decode()

    async def who(self, room: str | None, table_id: int | None, user: User) -> People:
        if table_id is not None:
            return People(table=table_id, people=await self.on_table(table_id, "who", user))
        info = await self.room_info(room or MAIN_ROOM)
        return People(room=info.room, people=info.people)

    async def chat(self, user: User, text: str, room: str | None, table_id: int | None) -> None:
        if table_id is not None:
            await self.on_table(table_id, "chat", user, text=text)
        elif room is not None and room in self.rooms:
            line = ChatLine(room=room, sender=user.name, text=text)
            if self.sole:  # with other nodes, kept as it is heard on the room's channel
                self.room_history[room].append(line)
            self.pubsub.publish(room_channel(room), line.model_dump_json())
        else:
            raise ServerError("no_such_room", status=404, room=room, rooms=", ".join(rooms()))

    async def players_of(self, table_id: int) -> set[int]:
        """The people who sat at a finished table (a seat a bot took over included)."""
        row = await self._finished_row(table_id)
        return {seat["user_id"] for seat in row.seats if seat.get("user_id") is not None}

    async def record(self, table_id: int) -> Record:
        """The record of a finished game; nothing of a running one (its deal is secret)."""
        row = await self._finished_row(table_id)
        state = load_game(row.game, row.players, **row.options).new_initial_state()
        for entry in await self.storage.tables.actions(table_id):
            state.apply_action(entry.action)
        return record_of(state, [seat.get("name") or "?" for seat in row.seats])

    def games(self) -> list[dict[str, Any]]:
        """Each game with what a form needs: player counts, option controls, card faces."""
        described = []
        for name in game_names():
            cls = game_class(name)
            described.append(
                {
                    "name": name,
                    "min_players": cls.min_players,
                    "max_players": cls.max_players,
                    "options": [
                        {
                            "name": spec.name,
                            "kind": spec.kind,
                            "label": spec.description_key,
                            "default": spec.default,
                            "choices": list(spec.choices),
                            "min": spec.minimum,
                            "max": spec.maximum,
                        }
                        for spec in cls.option_specs
                    ],
                    "bots": list(LEVELS),
                    "card_faces": cls.card_faces(),
                    "scoring": cls.scoring(),
                }
            )
        return described


def said_to(said: Said) -> dict[str, Any]:
    """A chat line or a notice as JSON, to cross to another node."""
    if isinstance(said, ChatLine):
        return {"chat": said.model_dump(mode="json")}
    return {"notice": said}


def said_from(said: dict[str, Any]) -> Said:
    return ChatLine.model_validate(said["chat"]) if "chat" in said else said["notice"]
