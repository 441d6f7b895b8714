"""The views of a table: each seat's and the spectators', as frames that carry what changed
since the one last sent on their channel."""

from __future__ import annotations

from collections.abc import Sized
from typing import Any, Protocol

import orjson

from tapisvert.core.game import Game, State
from tapisvert.server.errors import ServerError
from tapisvert.server.pubsub import PubSub, seat_channel


class TakeBackOffer(Protocol):
    def may_ask(self, seat: int | None) -> bool: ...


class Publishing(Protocol):
    """Where the views are published (the node that serves the table)."""

    @property
    def pubsub(self) -> PubSub: ...


class Viewed(Protocol):
    """What the views need of their table (a ``GameTable``)."""

    @property
    def id(self) -> int: ...

    @property
    def seq(self) -> int: ...

    @property
    def state(self) -> State | None: ...

    @property
    def game(self) -> Game[Any]: ...

    @property
    def result(self) -> list[float] | None: ...

    @property
    def seats(self) -> Sized: ...

    @property
    def deadline(self) -> float | None: ...

    @property
    def take_backs(self) -> TakeBackOffer: ...


View = tuple[dict[str, Any], dict[str, Any]]
"""A seat's view in its two parts (``State.view_parts``): what every seat is shown, and its own."""
Changes = tuple[dict[str, Any], dict[str, Any]]
"""What changed in a part of a view: the fields to replace, and the items added at the end
of a history (see ``Observation.histories``)."""


class Views:
    """The frames of one table's views, and the view last sent on each channel."""

    def __init__(self, table: Viewed, host: Publishing) -> None:
        self.table = table
        self.host = host
        self.sent: dict[int | None, View] = {}
        """The view last sent to each seat's channel: the next frame sends the changes."""
        self._shared_changes: tuple[dict[str, Any], dict[str, Any], Changes] | None = None
        """The part every seat shares, last sent and now, and what changed from one to the
        other: the seats sent the same part before are sent the same changes now."""

    def frame(self, seat: int | None, since: View | None = None, ack: str | None = None) -> str:
        """The view of ``seat`` (``None``: a spectator) as a JSON text.

        With ``since`` (the view last sent on that seat's channel) the frame carries only the
        parts of the view that changed: a finished round is not sent again with every card.
        ``full`` tells which kind a frame is; ``ack`` answers the move that led to it.
        """
        table = self.table
        state = table.state
        if state is None:
            raise ServerError("not_started")
        view = public, own = state.view_parts(seat)
        appended: dict[str, Any]
        if since is None:
            shown, appended = {**public, **own}, {}
        else:
            public_shown, public_appended = self._changes_shared(since[0], public)
            own_shown, own_appended = self._changes(since[1], own)
            shown = {**public_shown, **own_shown}
            appended = {**public_appended, **own_appended}
        self.sent[seat] = view
        to_act = state.current_player()
        acting = to_act >= 0
        legal = state.legal_strings() if acting and to_act == seat else []
        frame = {
            "type": "view",
            "table": table.id,
            "seq": table.seq,
            "seat": seat,
            "ack": ack,
            "to_act": to_act if acting else None,
            "legal": legal,
            "deadline": table.deadline if acting else None,
            "full": since is None,
            "view": shown,
            "result": table.result,
            "winners": None if table.result is None else state.winners(),
            "take_back": acting and table.take_backs.may_ask(seat),
        }
        if appended:
            frame["append"] = appended
        return orjson.dumps(frame).decode()

    def _changes_shared(self, sent: dict[str, Any], now: dict[str, Any]) -> Changes:
        """``_changes`` of the part every seat shares, worked out once for all the seats
        that were sent the same part (after a move, every seat followed)."""
        last = self._shared_changes
        if last is not None and last[0] is sent and last[1] is now:
            return last[2]
        changes = self._changes(sent, now)
        self._shared_changes = (sent, now, changes)
        return changes

    def _changes(self, sent: dict[str, Any], now: dict[str, Any]) -> Changes:
        """The fields of ``now`` that differ from ``sent``; a history that only grew gives
        its new items instead."""
        shown = {
            key: value
            for key, value in now.items()
            if (before := sent.get(key)) is not value and before != value
        }
        appended: dict[str, Any] = {}
        for key in self.table.game.observation_class.histories & shown.keys():
            gained = _gained(shown[key], sent.get(key))
            if gained is not None:
                del shown[key]
                appended[key] = gained
        return shown, appended

    def publish(self, mover: int | None = None, request: str | None = None) -> None:
        """Each followed seat's changes, and the spectators'; a seat nobody follows is skipped.

        The mover's view carries ``request``, the id of the move it answers.
        """
        pubsub = self.host.pubsub
        for seat in [*range(len(self.table.seats)), None]:
            channel = seat_channel(self.table.id, seat)
            if pubsub.has_subscribers(channel):
                ack = request if seat == mover else None
                pubsub.publish(channel, self.frame(seat, self.sent.get(seat), ack))
            else:
                self.sent.pop(seat, None)


def _gained(value: Any, sent: Any) -> list[Any] | None:
    """The items ``value`` added at the end of the sequence ``sent``, if that is all that
    changed (a history starting again is sent whole)."""
    if (
        type(value) is type(sent)
        and isinstance(value, (list, tuple))
        and 0 < len(sent) < len(value)
        and value[: len(sent)] == sent
    ):
        return list(value[len(sent) :])
    return None
