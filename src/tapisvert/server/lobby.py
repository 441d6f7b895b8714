"""The lobby: the composition root of one node, which makes its parts and holds them.

Every request, from a WebSocket message, an HTTP call or a chat command, ends in one
method of one part, so the three ways of asking behave the same:

- ``accounts``: guests, registration, signing in and out, tokens (``accounts``), with
  ``account_life``: deleting an account, downloading one's data, links that set a new
  password (``account_life``);
- ``presence``: who is connected, here and on other nodes, and in which room (``presence``);
- ``connections``: each person's connections and the tables they follow (``connections``);
- ``cluster``: leases, fencing, taking over tables, calls to other nodes (``cluster``);
- ``rooms``: rooms' listings and chat (``rooms``);
- ``tables``: opening tables, seating, play (``table_service``), with ``life``, the host of
  the tables served here (``table_life``), and ``registry``, those tables by id (``registry``);
- ``records``: finished games' records and tables' descriptions (``records``), with
  ``reviews`` and ``replays``;
- ``moderation``: roles, mutes, removals from tables, bans, removed chat lines, with
  ``sanctions``, the mutes and bans in force (``moderation``, ``sanctions``), and
  ``reports`` (``reports``);
- ``social``: ignores and friends (``social``), with ``messages``, private messages and
  invitations (``messages``).
"""

from __future__ import annotations

import asyncio
import contextlib

from tapisvert.bots.base import LEVELS
from tapisvert.server.account_life import AccountLife
from tapisvert.server.accounts import Accounts
from tapisvert.server.addresses import Addresses
from tapisvert.server.auth import Passwords
from tapisvert.server.background import Background
from tapisvert.server.cluster import Cluster, node_name
from tapisvert.server.connection import Connection
from tapisvert.server.connections import Connections
from tapisvert.server.messages import Messages
from tapisvert.server.metrics import Metrics
from tapisvert.server.moderation import Moderation
from tapisvert.server.own_bots import BotSeats, OwnBots
from tapisvert.server.presence import Presence
from tapisvert.server.pubsub import PRESENCE_CHANNEL, LocalPubSub, PubSub
from tapisvert.server.quotas import Quotas
from tapisvert.server.records import Records
from tapisvert.server.registry import TableRegistry
from tapisvert.server.replays import Replays
from tapisvert.server.reports import Reports
from tapisvert.server.reviews import Reviews
from tapisvert.server.rooms import Rooms, rooms
from tapisvert.server.sanctions import Sanctions
from tapisvert.server.settings import DEFAULT_RATE, Settings
from tapisvert.server.social import Social
from tapisvert.server.storage import Storage
from tapisvert.server.table_life import TableLife
from tapisvert.server.table_service import TableService
from tapisvert.server.thinking import BotWorkers, Thinking
from tapisvert.server.tournaments.service import TournamentRunner, Tournaments
from tapisvert.server.users import ANYONE, User

__all__ = ["ANYONE", "Connection", "Lobby", "Settings", "User"]

GONE_POLL_SECONDS = 0.05
"""How often a stopping node looks whether its clients are gone."""
RESTORED_FINISHED = 100
"""The latest finished tables brought back at start, for whoever did not see the end."""


class Lobby:
    """The parts of one node, made and wired together; ``sole``: no other node can reach
    its clients (see ``cluster``). ``thinking``: where the bots decide (by default, a pool
    of this machine's processes). ``metrics``: keep the node's metrics (see ``metrics``)."""

    def __init__(
        self,
        storage: Storage,
        pubsub: PubSub | None = None,
        settings: Settings | None = None,
        sole: bool = True,
        thinking: Thinking | None = None,
        metrics: bool = False,
    ) -> None:
        self.storage = storage
        self.pubsub: PubSub = pubsub or LocalPubSub()
        self.settings = settings = settings or Settings()
        self.thinking: Thinking = thinking or BotWorkers(settings.bot_workers)
        self.quotas = Quotas(settings.quotas, settings.rate / DEFAULT_RATE)
        self.addresses = Addresses(self.quotas, settings.rate)
        self.background = Background()
        self.bot_accounts: dict[str, int] = {}
        """The rated account of each bot level."""
        self.presence = Presence(node_name(), self.pubsub, rooms())
        self.registry = TableRegistry()
        self.metrics = Metrics(self.presence.node, kept=metrics)
        self.metrics.watch(self.registry, self.presence)
        self.cluster = Cluster(
            storage, self.pubsub, settings, self.registry, self.presence, sole, self.metrics
        )
        self.life = TableLife(
            self.cluster, self.presence, settings, self.thinking, self.background, self.bot_accounts
        )
        self.connections = Connections(
            self.presence,
            self.cluster,
            self.registry,
            settings,
            self.quotas,
            self.addresses,
            self.background,
            self.life,
        )
        self.life.followers = self.connections
        self.presence.arrived = self.life.arrived
        self.presence.departed = self.life.went_offline
        bot_seats = BotSeats(storage, settings)
        self.tables = TableService(self.life, self.connections, self.quotas, bot_seats)
        self.cluster.operator = self.tables
        self.sanctions = Sanctions(storage)
        self.accounts = Accounts(
            storage,
            self.quotas,
            self.presence,
            self.connections,
            self.sanctions,
            Passwords(settings.password_memory),
            settings.secret_key,
        )
        self.rooms = Rooms(self.presence, self.cluster)
        self.moderation = Moderation(
            storage,
            self.sanctions,
            self.presence,
            self.cluster,
            self.rooms,
            self.tables,
            self.background,
        )
        self.reports = Reports(storage, self.quotas, self.rooms, self.cluster, self.moderation)
        self.records = Records(self.cluster, self.presence)
        self.reviews = Reviews(
            storage.reviews, self.records.record, self.records.players_of, self.quotas
        )
        self.replays = Replays(self.records.record)
        self.account_life = AccountLife(
            storage,
            self.accounts,
            self.presence,
            self.registry,
            self.pubsub,
            self.quotas,
            self.moderation,
        )
        self.own_bots = OwnBots(
            storage,
            settings,
            self.accounts,
            self.presence,
            self.cluster,
            self.connections,
            bot_seats,
        )
        self.tournaments = Tournaments(storage, self.tables, self.presence, settings)
        self.tournament_runner = TournamentRunner(self.tournaments, self.cluster.node, settings)
        self.social = Social(storage, self.presence, self.pubsub, self.quotas)
        self.messages = Messages(self.social)

    async def start(self) -> None:
        """Open the database and bring back the tables that were open or playing.

        The latest finished tables come back too, for a while: whoever was there when the
        server stopped may not have seen the end.
        """
        if self.metrics.kept:
            self.storage.observe_commits(self.metrics.committed)
            self.background.spawn(self.metrics.measure_lag())
        await self.storage.start()
        await self.accounts.start()
        await self.sanctions.load()
        self.bot_accounts.update(await self.storage.accounts.bots(LEVELS))
        leases = await self.cluster.claim()  # none of the tables asleep (see table_life)
        rows = await self.storage.tables.loaded(list(leases))
        rows += await self.storage.tables.listed(["finished"], latest=RESTORED_FINISHED)
        for row in rows:
            await self.life.bring_back(row, leases.get(row.id))
        if not self.cluster.sole:
            self.pubsub.subscribe(PRESENCE_CHANNEL, self.presence.heard)
            self.rooms.listen()
            self.account_life.listen()
            self.moderation.listen()
        self.cluster.start()
        self.tournament_runner.start()

    async def drain(self, clients_seconds: float) -> None:
        """Stop gently (SIGTERM): take no new table or connection, tell every client to
        reconnect and wait for them to go (``clients_seconds`` at most), then hand the
        tables over to the other nodes (see ``Cluster.hand_over``). Clients go first, so
        that a move they sent is answered here; the tables go next, once nothing more
        comes. The caller bounds the whole (``Settings.drain_seconds``) and stops the node."""
        self.cluster.draining = True
        await self.tournament_runner.stop(let_go=True)
        self.connections.reconnect_all()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._clients_gone(), clients_seconds)
        await self.cluster.hand_over()

    async def _clients_gone(self) -> None:
        while self.presence.connections:
            await asyncio.sleep(GONE_POLL_SECONDS)

    async def stop(self) -> None:
        await self.tournament_runner.stop()
        self.cluster.stop()
        self.background.cancel()
        await self.thinking.close()
        await self.reviews.close()
        await self.replays.close()
        await self.storage.close()
