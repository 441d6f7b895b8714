"""Taking back a misclick, where the game allows it.

A person may take back their last move as long as nothing came of it that they could not
have known before: no card dealt or drawn since (a table's chance outcomes follow from its
seed and the move number, so the move played again would meet the same cards) and no other
person's move since. At an unrated table the move goes at once, with the bots' moves that
followed it. At a rated table it goes only before the next player acts, and only once every
other player has agreed; a bot cannot agree, so a rated game with bots has no take-back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tapisvert.core.game import CHANCE, State
from tapisvert.server.errors import ServerError
from tapisvert.server.protocol import TakeBackAsked
from tapisvert.server.seats import Seat
from tapisvert.server.storage import LoggedAction


class Taken(Protocol):
    """What the take-backs need of their table (a ``GameTable``)."""

    @property
    def rated(self) -> bool: ...

    @property
    def seats(self) -> list[Seat]: ...

    @property
    def seq(self) -> int: ...

    @property
    def state(self) -> State | None: ...

    @property
    def status(self) -> str: ...

    def seat_of(self, user_id: int) -> int | None: ...

    async def rewind(self, start: int, seq: int) -> None: ...


class Telling(Protocol):
    """Where the table's notices and changes are told (the node that serves it)."""

    def tell(self, table: Any, key: str, rematch: int | None = None, **arguments: Any) -> None: ...

    def table_changed(self, table: Any) -> None: ...


@dataclass
class _Asked:
    """A rated table's request to take back a move, and who agreed so far; any move played
    ends it (``TakeBacks.logged``)."""

    seat: int
    agreed: set[int] = field(default_factory=set)


class TakeBacks:
    """The moves of one table that may still be taken back, and a request pending."""

    def __init__(self, table: Taken, host: Telling) -> None:
        self.table = table
        self.host = host
        self.tail: list[LoggedAction] = []
        """The moves since the last chance outcome: the only ones that may be taken back."""
        self.asked: _Asked | None = None

    async def request(self, user_id: int, seq: int | None, answer: str) -> int:
        """The person asks to take back their last move (``ask``), or answers another's
        request (``yes``, ``no``); the table's position after it."""
        table = self.table
        seat = table.seat_of(user_id)
        if seat is None:
            raise ServerError("not_seated", status=403)
        if table.state is None or table.status != "playing":
            raise ServerError("not_playing", status=409)
        if seq is not None and seq != table.seq:
            raise ServerError("stale", status=409, seq=seq, current=table.seq)
        name = table.seats[seat].name
        if answer == "no":
            asker = table.seats[self.refuse(seat)].name
            self.host.tell(table, "server.notice.take_back_refused", name=name, asker=asker)
            self.host.table_changed(table)
            return table.seq
        if answer == "yes":
            asking, start = self.agree(seat)
            self.host.tell(table, "server.notice.take_back_agreed", name=name)
        else:
            asking, start = seat, self.ask(seat)
            if start is None:
                self.host.tell(table, "server.notice.take_back_asked", name=name)
        if start is None:
            self.host.table_changed(table)
            return table.seq
        await table.rewind(start, table.seq)
        self.host.tell(table, "server.notice.taken_back", name=table.seats[asking].name)
        return table.seq

    def logged(self, entries: Sequence[LoggedAction]) -> None:
        """Moves were stored: a pending request lapses, a chance outcome closes the past."""
        self.asked = None
        for entry in entries:
            if entry.actor == CHANCE:
                self.tail.clear()
            else:
                self.tail.append(entry)

    def taken(self, count: int) -> list[LoggedAction]:
        """The last ``count`` moves were taken back: they are returned, and forgotten here."""
        self.asked = None
        kept = len(self.tail) - count
        removed, self.tail = self.tail[kept:], self.tail[:kept]
        return removed

    def start(self, seat: int) -> int:
        """Where ``seat``'s last move starts in the log, if it may be taken back now."""
        start, refusal = self._last_move(seat)
        if start is None:
            raise ServerError(refusal, status=409)
        return start

    def may_ask(self, seat: int | None) -> bool:
        """Whether ``seat`` is offered to take back its last move (its view says so): read
        for every view sent, so it raises nothing."""
        if seat is None or self.table.seats[seat].replaced:
            return False
        start, _ = self._last_move(seat)
        return start is not None and not (self.table.rated and self._unable_to_agree(seat))

    def _last_move(self, seat: int) -> tuple[int | None, str]:
        """Where ``seat``'s last move starts in the log, or why it may not be taken back."""
        table = self.table
        for entry in reversed(self.tail):
            if entry.actor == seat:
                return (None, "nothing_to_take_back") if entry.stand_in else (entry.seq, "")
            if table.rated:
                return None, "too_late_to_take_back_rated"
            if table.seats[entry.actor].kind != "bot":
                return None, "too_late_to_take_back"
        return None, "nothing_to_take_back"

    def ask(self, seat: int) -> int | None:
        """Where the log goes back to now; ``None``: the others are asked first."""
        start = self.start(seat)
        if not self.table.rated:
            return start
        if self._unable_to_agree(seat):
            raise ServerError("take_back_needs_people", status=409)
        if self.asked is not None and self.asked.seat != seat:
            raise ServerError("take_back_pending", status=409)
        self.asked = _Asked(seat)
        return None

    def agree(self, seat: int) -> tuple[int, int | None]:
        """``seat`` agrees: the seat that asked, and where the log goes back to once everybody
        has agreed (else ``None``)."""
        asked = self._asked_of_another(seat)
        asked.agreed.add(seat)
        if asked.agreed >= set(self._others(asked.seat)):
            return asked.seat, self.start(asked.seat)
        return asked.seat, None

    def refuse(self, seat: int) -> int:
        """``seat`` says no: the request ends; the seat that asked."""
        asked = self._asked_of_another(seat)
        self.asked = None
        return asked.seat

    def shown(self) -> TakeBackAsked | None:
        """The pending request, as the table's information shows it."""
        if self.asked is None:
            return None
        return TakeBackAsked(seat=self.asked.seat, agreed=sorted(self.asked.agreed))

    def _asked_of_another(self, seat: int) -> _Asked:
        asked = self.asked
        if asked is None:
            raise ServerError("no_take_back_asked", status=409)
        if asked.seat == seat:
            raise ServerError("own_take_back", status=409)
        return asked

    def _others(self, seat: int) -> list[int]:
        return [index for index in range(len(self.table.seats)) if index != seat]

    def _unable_to_agree(self, seat: int) -> bool:
        """A seat other than ``seat`` that no person answers for: a bot, or an absent person."""
        seats = self.table.seats
        return any(
            seats[other].kind != "human" or seats[other].replaced for other in self._others(seat)
        )
