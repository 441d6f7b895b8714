"""Tournaments on the platform: made, joined and left by people; run round after round by
one node at a time (``TournamentRunner``), whichever is alive.

Everything lives in the database — settings, registrations, each round's tables — so that
a restart, or another node taking the lease over, carries on where the schedule stood. A
round's tables are ordinary rated tables, started at once; a player who is not connected
when a round begins is played by a bot for that game and counts as last there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import unicodedata
from dataclasses import dataclass, replace
from typing import Any, Literal

from tapisvert.bots import make_bot
from tapisvert.core.errors import OptionError
from tapisvert.core.registry import fewest_players, game_names, load_game
from tapisvert.server.errors import ServerError
from tapisvert.server.presence import Presence
from tapisvert.server.records import MAX_TABLE_ID
from tapisvert.server.rooms import no_such_room
from tapisvert.server.seats import Seat, bot_name
from tapisvert.server.settings import Settings
from tapisvert.server.storage import Storage
from tapisvert.server.storage.tournaments import Entrant, RoundTable, TournamentRow
from tapisvert.server.table_service import TableService
from tapisvert.server.tournaments.formats import (
    FieldError,
    Fill,
    Round,
    knockout_round,
    meetings,
    round_robin,
    swiss_round,
    table_plan,
)
from tapisvert.server.tournaments.standings import Finished, Standing, standings
from tapisvert.server.users import User

Format = Literal["swiss", "knockout", "round_robin"]
FORMATS: tuple[Format, ...] = ("swiss", "knockout", "round_robin")
MAX_ROUNDS = 20
AHEAD_DAYS = 90
"""How far ahead a tournament may start."""
TOURNAMENT_CLOCK = 60.0
"""Seconds a move, at a tournament's tables when its creator gives no clock: nobody holds a
round up for ever."""
LIVE_PER_CREATOR = 3
"""Tournaments to come or under way that one account may have made."""
ROUND_ROBIN_FIELD = 12
"""The largest field a round robin takes: every pair meets, so rounds grow with the field."""
OVER = ("finished", "closed")

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NewTournament:
    name: str
    game: str
    table_size: int
    format: Format
    rounds: int
    starts_at: float
    registration_ends: float
    options: dict[str, Any]
    clock: float | None = None
    advance: int = 1
    """Knock-out: how many of each table go on to the next round."""
    fill: Fill = "bots"
    bot_level: str = "easy"
    room: str = "main"


@dataclass(frozen=True)
class Progress:
    """Where a tournament stands: its rounds' tables, and the standings after them."""

    tournament: TournamentRow
    entrants: list[Entrant]
    tables: list[RoundTable]
    standings: list[Standing]
    eliminated: set[int]
    closed: set[int]
    """The tables a moderator closed: their game decided nothing, and counts for nobody."""


class Tournaments:
    """The requests about tournaments, and what their runner asks."""

    def __init__(
        self, storage: Storage, tables: TableService, presence: Presence, settings: Settings
    ) -> None:
        self.storage = storage
        self.tables = tables
        self.presence = presence
        self.settings = settings

    async def create(self, user: User, spec: NewTournament, moderator: bool) -> TournamentRow:
        if user.guest or user.owner_id is not None:
            raise ServerError("tournament_accounts", status=403)
        if self.settings.tournaments_by_moderators and not moderator:
            raise ServerError("tournament_moderators", status=403)
        _check(spec, self.presence)
        if await self.storage.tournaments.live_by(user.id) >= LIVE_PER_CREATOR and not moderator:
            raise ServerError("too_many_tournaments", status=429, most=LIVE_PER_CREATOR)
        row = TournamentRow(
            name=spec.name.strip(),
            room=spec.room,
            game=spec.game,
            options=spec.options,
            clock=TOURNAMENT_CLOCK if spec.clock is None else spec.clock,
            format=spec.format,
            table_size=spec.table_size,
            rounds=spec.rounds,
            advance=spec.advance,
            fill=spec.fill,
            bot_level=spec.bot_level.lower(),
            creator_id=user.id,
            starts_at=spec.starts_at,
            registration_ends=spec.registration_ends,
        )
        row.id = await self.storage.tournaments.create(row)
        return row

    async def register(self, user: User, tournament_id: int) -> None:
        row = await self._row(tournament_id)
        if user.guest or user.owner_id is not None:
            raise ServerError("tournament_accounts", status=403)
        if row.status != "registering" or time.time() > row.registration_ends:
            raise ServerError("registration_closed", status=409, tournament=row.id)
        if row.format == "round_robin":
            entrants = await self.storage.tournaments.entrants(row.id)
            if sum(entrant.withdrawn_at is None for entrant in entrants) >= ROUND_ROBIN_FIELD:
                raise ServerError("tournament_full", status=409, most=ROUND_ROBIN_FIELD)
        await self.storage.tournaments.register(row.id, user.id)

    async def withdraw(self, user: User, tournament_id: int) -> None:
        """Leave a tournament: before it starts, as if never registered; once it runs, the
        player is left out of the rounds to come (their game under way goes on)."""
        row = await self._row(tournament_id)
        if row.status not in ("registering", "running"):
            raise ServerError("tournament_over", status=409, tournament=row.id)
        if not await self.storage.tournaments.withdraw(row.id, user.id):
            raise ServerError("not_registered", status=409, tournament=row.id)

    async def listed(self) -> list[TournamentRow]:
        live = await self.storage.tournaments.listed(("registering", "running"), 100)
        done = await self.storage.tournaments.listed(("finished", "cancelled"), 20)
        return live + done

    async def progress(self, tournament_id: int) -> Progress:
        row = await self._row(tournament_id)
        entrants = await self.storage.tournaments.entrants(row.id)
        tables = await self.storage.tournaments.tables(row.id)
        games, closed = await self._games(tables)
        ranked = standings([entrant.user_id for entrant in entrants], games, row.table_size)
        if row.format == "knockout":  # who went further first: the final's winner heads it
            final = _final_order(games[-1]) if games and len(tables) > 0 else []
            ranked = sorted(
                ranked,
                key=lambda standing: (
                    -standing.games,
                    final.index(standing.player) if standing.player in final else len(final),
                ),
            )
            ranked = [replace(standing, rank=index + 1) for index, standing in enumerate(ranked)]
        return Progress(row, entrants, tables, ranked, _eliminated(row, games), closed)

    async def _row(self, tournament_id: int) -> TournamentRow:
        if not 1 <= tournament_id <= MAX_TABLE_ID:  # beyond the database's integers: none
            raise ServerError("no_such_tournament", status=404, tournament=tournament_id)
        row = await self.storage.tournaments.load(tournament_id)
        if row is None:
            raise ServerError("no_such_tournament", status=404, tournament=tournament_id)
        return row

    async def _games(self, tables: list[RoundTable]) -> tuple[list[Finished], set[int]]:
        """The games of the tournament that are over, and the tables a moderator closed."""
        games = []
        closed = set()
        for table in tables:
            stored = await self.storage.tables.load(table.table_id) if table.opened else None
            if stored is not None and stored.status == "closed":
                closed.add(table.table_id)
            if stored is None or stored.status != "finished":
                continue
            results = await self.storage.ratings.results(table.table_id)
            players = tuple(  # a bot's seat is a player of its own, whom nobody else meets
                player or -(table.table_id * 100 + index + 1)
                for index, player in enumerate(table.seating)
            )
            games.append(
                Finished(
                    players=players,
                    places=tuple(result.place for result in results),
                    scores=tuple(result.score for result in results),
                    absent=table.absent,
                )
            )
        return games, closed

    # -- the runner's -----------------------------------------------------------------

    async def step(self, row: TournamentRow, node: str) -> None:
        """Do what is due: start the first round once it is time; open the tables of the
        round still to open; start the next round once every table of the last is over, or
        end the tournament."""
        if row.status == "registering":
            if time.time() >= row.starts_at:
                await self._next_round(row, node)
            return
        current = [
            table
            for table in await self.storage.tournaments.tables(row.id)
            if table.round == row.round
        ]
        planned = [table for table in current if not table.opened]
        if planned:  # a round stored and not opened whole: its node stopped half-way
            await self._open_tables(row, planned)
            return
        for table in current:  # the current round's tables alone: a cheap look, each second
            stored = await self.storage.tables.load(table.table_id)
            if stored is None or stored.status not in OVER:
                return
        progress = await self.progress(row.id)
        if _last_round(row, progress, current) or len(_still_in(progress)) < 2:
            in_it = set(_still_in(progress))
            winner = next(
                (standing.player for standing in progress.standings if standing.player in in_it),
                None,
            )
            row.status, row.winner_id = "finished", winner
            if await self.storage.tournaments.advance(row, node):
                _log.info("tournament %d is over", row.id)
            return
        await self._next_round(row, node)

    async def _next_round(self, row: TournamentRow, node: str) -> None:
        progress = await self.progress(row.id)
        playing = _still_in(progress)
        try:
            tables = _seating(row, progress, playing)
        except FieldError:
            row.status = "cancelled"
            await self.storage.tournaments.advance(row, node)
            _log.info("tournament %d is cancelled: too few players", row.id)
            return
        if row.format == "round_robin" and row.round == 0:  # its rounds: as its field needs
            row.rounds = len(_schedule(row, progress, playing))
        row.status, row.round = "running", row.round + 1
        if not await self.storage.tournaments.plan_round(row, node, tables):
            return  # another node runs it now
        planned = [
            table
            for table in await self.storage.tournaments.tables(row.id)
            if table.round == row.round
        ]
        await self._open_tables(row, planned)
        _log.info("tournament %d: round %d begins at %d tables", row.id, row.round, len(tables))

    async def _open_tables(self, row: TournamentRow, planned: list[RoundTable]) -> None:
        """Open the planned tables of a round, each marked open as soon as it is (a node
        that stops half-way leaves the rest to whichever node runs the tournament next)."""
        entrants = await self.storage.tournaments.entrants(row.id)
        names = {entrant.user_id: entrant.name for entrant in entrants}
        for table in planned:
            if not await self.storage.tournaments.live(row.id):
                return  # a moderator cancelled it meanwhile: no more of its tables open
            seats: list[Seat] = []
            absent = set()
            for player in table.seating:
                if player is None:
                    name = bot_name(seats, row.bot_level)
                    seats.append(Seat("bot", name=name, level=row.bot_level))
                    continue
                away = not self.presence.is_online(player)
                if away:
                    absent.add(player)
                seats.append(Seat("human", player, names.get(player, "?"), replaced=away))
            opened = await self.tables.open_started(
                row.room, row.game, row.options, row.clock, seats
            )
            await self.storage.tournaments.opened(table, opened.id, frozenset(absent))


def _still_in(progress: Progress) -> list[int]:
    """The players who go on: not gone, not knocked out."""
    return [
        entrant.user_id
        for entrant in progress.entrants
        if entrant.withdrawn_at is None and entrant.user_id not in progress.eliminated
    ]


def _check(spec: NewTournament, presence: Presence) -> None:
    """Refuse a tournament that could not be played as asked."""
    if spec.room not in presence.in_rooms:
        raise no_such_room(spec.room)
    if spec.game not in game_names():
        raise ServerError("no_such_game", game=spec.game, games=", ".join(game_names()))
    if spec.format not in FORMATS:
        raise ServerError("bad_tournament", reason=spec.format)
    try:
        game = load_game(spec.game, spec.table_size, **spec.options)
        make_bot(spec.bot_level, game)
    except OptionError as error:
        raise ServerError.wrapping("bad_option", error) from None
    if not 1 <= spec.rounds <= MAX_ROUNDS:
        raise ServerError("bad_tournament_rounds", most=MAX_ROUNDS)
    if spec.format == "knockout" and not 1 <= spec.advance < spec.table_size:
        raise ServerError("bad_tournament_advance", size=spec.table_size)
    name = spec.name.strip()
    if not name or any(unicodedata.category(character)[0] == "C" for character in name):
        raise ServerError("bad_tournament_name")
    now = time.time()
    latest = now + AHEAD_DAYS * 24 * 3600
    if not now <= spec.registration_ends <= spec.starts_at <= latest:
        raise ServerError("bad_tournament_times", days=AHEAD_DAYS)
    if spec.fill == "smaller" and spec.table_size - 1 < fewest_players(spec.game, spec.options):
        raise ServerError("bad_tournament_fill", game=spec.game)


def _seating(row: TournamentRow, progress: Progress, players: list[int]) -> Round:
    """The tables of the next round (``FieldError`` when the players cannot fill one)."""
    smallest = fewest_players(row.game, row.options)
    fill: Fill = "bots" if row.fill == "bots" else "smaller"
    if fill == "bots" and len(players) < 2:
        raise FieldError("a tournament needs two players")
    rank = {standing.player: index for index, standing in enumerate(progress.standings)}
    if row.round == 0 and row.format == "swiss":
        players = sorted(players)
        random.Random(f"tournament:{row.id}").shuffle(players)  # nobody has a standing yet
    else:
        players = sorted(players, key=lambda player: rank.get(player, len(rank)))
    plan = table_plan(len(players), row.table_size, fill, smallest)
    if row.format == "swiss":
        rounds = [[table.seating for table in tables] for tables in _by_round(progress.tables)]
        return swiss_round(players, plan, row.table_size, fill, meetings(rounds))
    if row.format == "knockout":
        return knockout_round(players, plan, row.table_size, fill)
    schedule = _schedule(row, progress, players)
    if row.round >= len(schedule):
        raise FieldError("the round robin is complete")
    playing = set(players)  # who left plays no more: a bot takes their seat
    return [
        tuple(player if player in playing else None for player in table)
        for table in schedule[row.round]
    ]


def _schedule(row: TournamentRow, progress: Progress, players: list[int]) -> list[Round]:
    """A round robin's rounds, fixed by who sat down in its first round."""
    first = [table for table in progress.tables if table.round == 1]
    seated = [player for table in first for player in table.seating if player is not None]
    field = sorted(seated if first else players)
    return round_robin(field, row.table_size, fewest_players(row.game, row.options))


def _by_round(tables: list[RoundTable]) -> list[list[RoundTable]]:
    rounds: dict[int, list[RoundTable]] = {}
    for table in tables:
        rounds.setdefault(table.round, []).append(table)
    return [rounds[number] for number in sorted(rounds)]


def _eliminated(row: TournamentRow, games: list[Finished]) -> set[int]:
    """Knock-out: who did not go on from a round's table. The best ``advance`` players of
    each table go on (bots do not count: they take no place that goes on), and at least one
    player of a table of two or more goes out, so that every round brings the final nearer.
    A table a moderator closed has no result, and knocks nobody out."""
    out: set[int] = set()
    if row.format != "knockout":
        return out
    for game in games:
        people = [player for player in _final_order(game) if player > 0]
        keep = max(1, min(row.advance, len(people) - 1))
        out.update(people[keep:])
    return out


def _final_order(game: Finished) -> list[int]:
    """The players of one game from first to last: the absent last, then by place, then by
    score."""
    order = sorted(
        range(len(game.players)),
        key=lambda seat: (game.players[seat] in game.absent, game.places[seat], -game.scores[seat]),
    )
    return [game.players[seat] for seat in order]


def _last_round(row: TournamentRow, progress: Progress, current: list[RoundTable]) -> bool:
    if row.round >= MAX_ROUNDS:
        return True
    if row.format == "knockout":  # a final a moderator closed is played again
        return len(current) <= 1 and not any(table.table_id in progress.closed for table in current)
    if row.format == "round_robin":
        return row.round >= len(_schedule(row, progress, []))
    return row.round >= row.rounds


class TournamentRunner:
    """Runs, on this node, the schedule of the tournaments whose lease it holds: one node at
    a time for each, the next one once its lease lapses (see ``TournamentStore.claim``)."""

    def __init__(self, tournaments: Tournaments, node: str, settings: Settings) -> None:
        self.tournaments = tournaments
        self.node = node
        self.settings = settings
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self, let_go: bool = False) -> None:
        """Run no more steps; with ``let_go`` (a node stopping gently), leave the tournaments
        to the other nodes at once rather than when the leases lapse."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if let_go:
            await self.tournaments.storage.tournaments.let_go(self.node)

    async def _run(self) -> None:
        store = self.tournaments.storage.tournaments
        while True:
            try:
                for row in await store.claim(self.node, self.settings.lease_seconds):
                    await self.tournaments.step(row, self.node)
            except ServerError as error:  # the database is away, say: next time
                _log.warning("the tournaments wait: %s", error.code)
            except Exception:
                _log.exception("a tournament's step failed; it is tried again")
            await asyncio.sleep(self.settings.tournament_poll)
