"""The tables this node serves, and who sits at which of them."""

from __future__ import annotations

from tapisvert.server.tables import GameTable


class TableRegistry:
    """The tables in memory here, by id, with an index of the people seated at them."""

    def __init__(self) -> None:
        self.tables: dict[int, GameTable] = {}
        self._seated: dict[int, set[int]] = {}
        """Each person's tables here (by id) where they sit, so that their coming and going
        looks at those tables only, not at every table in memory (finished ones stay for
        minutes: thousands on a busy node)."""
        self._seated_at: dict[int, frozenset[int]] = {}
        """The people each table here is indexed under in ``_seated``."""
        self._open: dict[int, GameTable] = {}
        """The tables here that were open (waiting for players) when held: opening a table
        counts those of its room and address among these, not among every table in memory.
        A table is open from its making only; one that has started or closed since is
        dropped as it is found (see ``open_tables``)."""
        self._in_room: dict[str, dict[int, GameTable]] = {}
        """The tables here by room: a room's listing, made at every entrance, looks at the
        room's own tables, not at every table in memory."""

    def hold(self, table: GameTable) -> None:
        """``table`` is served here now."""
        self.tables[table.id] = table
        self._in_room.setdefault(table.room, {})[table.id] = table
        if table.status == "open":
            self._open[table.id] = table
        self.index_seats(table)

    def let_go(self, table: GameTable) -> bool:
        """``table`` is no longer in memory here; false if it was not."""
        if self.tables.get(table.id) is not table:
            return False
        del self.tables[table.id]
        in_room = self._in_room[table.room]
        del in_room[table.id]
        if not in_room:
            del self._in_room[table.room]
        self._open.pop(table.id, None)
        for user_id in self._seated_at.pop(table.id, frozenset()):
            self._unseat(user_id, table.id)
        return True

    def index_seats(self, table: GameTable) -> None:
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

    def room_tables(self, room: str) -> list[GameTable]:
        """The tables of ``room`` here, whatever their state."""
        return list(self._in_room.get(room, {}).values())

    def open_tables(self) -> list[GameTable]:
        """The tables here waiting for players."""
        gone = [table_id for table_id, table in self._open.items() if table.status != "open"]
        for table_id in gone:
            del self._open[table_id]
        return list(self._open.values())
