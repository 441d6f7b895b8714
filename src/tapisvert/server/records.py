"""What stays of a game: a table's public description, a finished game's record and
players, and the list of games a table may be opened for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tapisvert.bots.base import LEVELS
from tapisvert.core.records import Record, record_of_actions
from tapisvert.core.registry import fewest_players, game_class, game_names, load_game
from tapisvert.server.cluster import Cluster
from tapisvert.server.errors import ServerError
from tapisvert.server.presence import Presence
from tapisvert.server.protocol import TableInfo
from tapisvert.server.results import seat_ratings
from tapisvert.server.rooms import described
from tapisvert.server.storage import LoggedAction, TableRow
from tapisvert.server.users import ANYONE

MAX_TABLE_ID = 2**31 - 1


class Records:
    """Tables and games as anybody may know them: a finished game's deal and moves, never
    a running one's (its deal is secret)."""

    def __init__(self, cluster: Cluster, presence: Presence) -> None:
        self.cluster = cluster
        self.storage = cluster.storage
        self.presence = presence

    async def table_info(self, table_id: int) -> TableInfo:
        """What anybody may know of a table: one in play, one over days asleep (as its row
        says: it is not woken for this), or a finished one from the database (for its
        replay, from a player's history)."""
        table = self.cluster.registry.tables.get(table_id)
        if table is not None:
            return table.info()
        cluster = self.cluster
        if cluster.peers is not None and await cluster.node_of(table_id, fresh=True) is not None:
            return TableInfo.model_validate(await cluster.on_table(table_id, "info", ANYONE))
        row = await self._stored_row(table_id)
        if row.asleep and row.status == "playing":
            return described(row, self.presence.is_online)
        row = _finished(row)
        results = await self.storage.ratings.results(table_id)
        info = described(row, self.presence.is_online, present=False)
        return info.model_copy(update={"ratings": seat_ratings(results) if results else None})

    async def _stored_row(self, table_id: int) -> TableRow:
        """A table's row, if it exists and was not closed."""
        if not 1 <= table_id <= MAX_TABLE_ID:  # the database's integers stop there
            raise ServerError("no_such_table", status=404, table=table_id)
        row = await self.storage.tables.load(table_id)
        if row is None or row.status == "closed":
            raise ServerError("no_such_table", status=404, table=table_id)
        return row

    async def _finished_row(self, table_id: int) -> TableRow:
        """A finished game's row; nothing of a running one (its deal is secret)."""
        return _finished(await self._stored_row(table_id))

    async def players_of(self, table_id: int) -> set[int]:
        """The people who sat at a finished table (a seat a bot took over included)."""
        row = await self._finished_row(table_id)
        return {seat["user_id"] for seat in row.seats if seat.get("user_id") is not None}

    async def record(self, table_id: int) -> Record:
        """The record of a finished game; nothing of a running one (its deal is secret)."""
        row = await self._finished_row(table_id)
        log = await self.storage.tables.actions(table_id)
        return table_record(row, log, [seat.get("name") or "?" for seat in row.seats])


def _finished(row: TableRow) -> TableRow:
    """``row``, if its game is over (nothing of a running one: its deal is secret)."""
    if row.status != "finished":
        raise ServerError("not_finished", status=409)
    return row


def table_record(
    row: TableRow, log: Sequence[LoggedAction], seats: list[str], date: str | None = None
) -> Record:
    """The record of a table's game from its log (its players named ``seats``)."""
    game = load_game(row.game, row.players, **row.options)
    return record_of_actions(game, [entry.action for entry in log], seats, date)


def known_game(game: str) -> str:
    """``game`` if the server has it; otherwise refused (404), naming those it has."""
    if game not in game_names():
        raise ServerError("no_such_game", status=404, game=game, games=", ".join(game_names()))
    return game


def games() -> list[dict[str, Any]]:
    """Each game with what a form needs: player counts, option controls, card faces."""
    described_games = []
    for name in game_names():
        cls = game_class(name)
        described_games.append(
            {
                "name": name,
                "min_players": fewest_players(name),
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
                        "shrinks": spec.shrinks,
                    }
                    for spec in cls.option_specs
                ],
                "bots": list(LEVELS),
                "card_faces": cls.card_faces(),
                "scoring": cls.scoring(),
            }
        )
    return described_games
