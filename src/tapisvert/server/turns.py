"""Whose turn it is at a table: the clock of a person to act, or a bot's move (for a bot's
seat, or for an absent person's), played after a short delay so that people can follow."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any, Protocol

from tapisvert.core.game import Action, Game, State
from tapisvert.server.errors import ServerError, StorageError
from tapisvert.server.logs import the_tables_own
from tapisvert.server.metrics import Metrics
from tapisvert.server.retrying import retrying_async
from tapisvert.server.seats import Seat
from tapisvert.server.settings import Settings
from tapisvert.server.thinking import BotJob, Thinking

RETRY_FIRST = 0.25
RETRY_LONGEST = 10.0
"""Seconds before a bot's move or a seat's change the database did not take is stored
again, doubling each time up to the longest."""


class TurnHost(Protocol):
    """What the turns need of the node: its settings, where bots think, and tasks."""

    @property
    def settings(self) -> Settings: ...

    @property
    def thinking(self) -> Thinking: ...

    @property
    def metrics(self) -> Metrics: ...

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None: ...


class Turned(Protocol):
    """What the turns need of their table (a ``GameTable``)."""

    @property
    def id(self) -> int: ...

    @property
    def state(self) -> State | None: ...

    @property
    def status(self) -> str: ...

    @property
    def seq(self) -> int: ...

    deadline: float | None
    to_act: int | None
    """When the clock of the person to act runs out, and who that is (as stored)."""

    @property
    def clock(self) -> float | None: ...

    @property
    def moved(self) -> bool: ...

    @property
    def seats(self) -> list[Seat]: ...

    @property
    def game(self) -> Game[Any]: ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def seed(self) -> int: ...

    @property
    def over_days(self) -> bool: ...

    def timed_out(self, seat: int) -> None: ...

    async def save_until_stored(self) -> None: ...

    async def play(
        self,
        seat: int,
        text: str | int,
        seq: int,
        request: str | None = None,
        stand_in: bool = False,
        position: State | None = None,
    ) -> int: ...


class Turns:
    """The clock or the bot of the seat to act at one table."""

    def __init__(self, table: Turned, host: TurnHost) -> None:
        self.table = table
        self.host = host
        self._timer: asyncio.TimerHandle | None = None

    def clock_for(self, state: State) -> tuple[float | None, int | None]:
        """When the clock of the person to act at ``state`` runs out if it starts now, and
        who that is; ``(None, None)`` where no clock runs (a bot plays, or there is none).
        A bot account has ``bot_account_clock`` where the table has no clock."""
        if state.is_terminal():
            return None, None
        seat = self.table.seats[state.current_player()]
        if seat.kind != "human" or seat.replaced:
            return None, None
        clock = self.table.clock
        if clock is None and seat.owner is not None:
            clock = self.host.settings.bot_account_clock
        return (None, None) if clock is None else (time.time() + clock, seat.user_id)

    def restart_clock(self, state: State) -> None:
        """The clock of the seat to act starts now, or stops where a bot plays it: who plays
        the seat changed (a person took it back, or left it to a bot), or a move was taken
        back. Over days, it is stored with the table (and its "Your turn" lists)."""
        table = self.table
        before = (table.deadline, table.to_act)
        table.deadline, table.to_act = self.clock_for(state)
        if table.over_days and (table.deadline, table.to_act) != before:
            self.host.spawn(table.save_until_stored())

    def stop(self) -> None:
        """No clock runs out."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def next(self) -> None:
        """Start the clock of the seat to act, or let a bot play for it."""
        self.stop()
        table = self.table
        state = table.state
        if state is None or table.status != "playing":
            return
        to_act = state.current_player()
        seat = table.seats[to_act]
        if seat.kind == "bot" or seat.replaced:
            if table.deadline is not None:  # no clock runs for a bot
                self.restart_clock(state)
            asyncio.get_running_loop().call_later(
                self.host.settings.bot_delay, self._start_bot_turn, to_act, table.seq
            )
        else:
            if table.deadline is None or table.to_act != seat.user_id:
                self.restart_clock(state)
            if table.deadline is not None:
                self._timer = asyncio.get_running_loop().call_later(
                    max(0.0, table.deadline - time.time()), self._time_out, to_act, table.seq
                )

    def _time_out(self, seat: int, seq: int) -> None:
        table = self.table
        if table.seq != seq or table.status != "playing":
            return
        table.timed_out(seat)
        if table.seats[seat].replaced:
            self.next()  # a bot plays for them from now on
        else:
            self._start_bot_turn(seat, seq, once=True)

    def _start_bot_turn(self, seat: int, seq: int, once: bool = False) -> None:
        """The bot's turn is made when it starts, not when it is scheduled: a loop that
        closes meanwhile leaves no coroutine unawaited behind. ``once``: a bot plays this
        move only, for a person whose clock ran out at a table over days."""
        self.host.spawn(self._bot_turn(seat, seq, once))

    async def _bot_turn(self, seat: int, seq: int, once: bool = False) -> None:
        """Choose and play the bot's move; if the database does not take it, choose and
        play again, ``RETRY_FIRST`` seconds later, then twice as long each time."""
        the_tables_own(self.table.id)
        attempts = retrying_async(StorageError, RETRY_FIRST, RETRY_LONGEST)
        await attempts(self._bot_move, seat, seq, once)

    async def _bot_move(self, seat: int, seq: int, once: bool = False) -> None:
        table = self.table
        state = table.state
        if state is None or table.moved or table.seq != seq or state.current_player() != seat:
            return
        level = table.seats[seat].level or self.host.settings.replacement_level
        job = BotJob(
            table.game.name,
            table.game.players,
            dict(table.options),
            level,
            state.observation(seat),
            list(state.legal_actions()),
            f"{table.seed}:bot:{seq}",
        )
        action = await self._decision(job)
        seat_info = table.seats[seat]
        if seat_info.kind == "bot" or seat_info.replaced or once:
            try:
                stand_in = seat_info.kind == "human"
                await table.play(seat, action, seq, stand_in=stand_in, position=state)
            except StorageError:
                raise  # tried again
            except ServerError:  # the person came back and played first, or took a move back
                return

    async def _decision(self, job: BotJob) -> Action:
        """The bot's action, timed and counted while it is awaited (see ``metrics``)."""
        metrics = self.host.metrics
        metrics.bots_waiting += 1
        asked = time.perf_counter()
        try:
            action = await self.host.thinking.choose(job)
        finally:
            metrics.bots_waiting -= 1
        metrics.decided(job.level, time.perf_counter() - asked)
        return action
