"""Who is connected, here and on the other nodes, and which room each person is in.

Each node tells the others who came and went (and, every quarter of a lease, everyone it
holds); a node not heard from for a lease's length is gone, and so are its people.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from tapisvert.server.connection import Connection
from tapisvert.server.pubsub import PRESENCE_CHANNEL, Frame, PubSub


class Presence:
    """The people of this node and of the others, by id, with their names and rooms.

    ``arrived`` is told of a person who came online on another node, ``departed`` of one who
    went offline there; the lobby sets both.
    """

    def __init__(self, node: str, pubsub: PubSub, rooms: Iterable[str]) -> None:
        self.node = node
        self.pubsub = pubsub
        self.names: dict[int, str] = {}
        self.connections: dict[int, set[Connection]] = {}
        self.in_rooms: dict[str, dict[int, int]] = {room: {} for room in rooms}
        """The people here in each room, with their connections in it."""
        self.online_elsewhere: dict[str, tuple[float, dict[int, str]]] = {}
        """Each other node's connected people (id → name), and when it last said so."""
        self.rooms_elsewhere: dict[str, dict[int, str]] = {}
        """The room each person connected to another node is in (id → room), by node."""
        self.arrived: Callable[[int], None] = _unheeded
        self.departed: Callable[[int], None] = _unheeded

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

    # -- rooms ------------------------------------------------------------------------

    def enter(self, user_id: int, room: str) -> None:
        """One more of the person's connections is in ``room``, and none in another."""
        self.leave_rooms(user_id)
        people = self.in_rooms[room]
        people[user_id] = people.get(user_id, 0) + 1

    def leave_rooms(self, user_id: int) -> None:
        """One connection of the person fewer in each room they are in."""
        for people in self.in_rooms.values():
            if user_id in people:
                people[user_id] -= 1
                if people[user_id] <= 0:
                    del people[user_id]

    def room_of(self, user_id: int) -> str | None:
        """The room a person connected here is in, if any."""
        return next((room for room, in_it in self.in_rooms.items() if user_id in in_it), None)

    def people_in(self, room: str) -> set[int]:
        """The people in the room, here and on the other nodes."""
        in_it = set(self.in_rooms[room])
        for in_rooms in self.rooms_elsewhere.values():
            in_it.update(user for user, where in in_rooms.items() if where == room)
        return in_it

    # -- what the nodes tell each other ------------------------------------------------

    def announce(self, user_id: int | None = None, online: bool = True) -> None:
        """Tell the other nodes who is connected here: one person who came or went, or
        (every quarter of a lease) everyone."""
        if user_id is None:
            people = {str(user): self.user_name(user) for user in self.connections}
            rooms_here = {
                str(user): room for room, in_it in self.in_rooms.items() for user in in_it
            }
            said: dict[str, Any] = {"node": self.node, "everyone": people, "rooms": rooms_here}
        else:
            said = {"node": self.node, "user": user_id, "name": self.user_name(user_id)}
            said["online"] = online
            said["room"] = self.room_of(user_id)  # none once their last connection here closed
        self.pubsub.publish(PRESENCE_CHANNEL, orjson.dumps(said).decode())

    def heard(self, frame: Frame) -> None:
        """Another node's word on who is connected there."""
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
        self._changed(before, people)

    def expire(self, seconds: float) -> None:
        """A node not heard from for a lease's length is gone, and so are its people."""
        for node, (heard, people) in list(self.online_elsewhere.items()):
            if time.monotonic() - heard > seconds:
                del self.online_elsewhere[node]
                self.rooms_elsewhere.pop(node, None)
                self._changed(people, {})

    def _changed(self, before: dict[int, str], after: dict[int, str]) -> None:
        for user_id, name in after.items():
            self.names.setdefault(user_id, name)
            if user_id not in before:
                self.arrived(user_id)
        for user_id in before.keys() - after.keys():
            if not self.is_online(user_id):
                self.departed(user_id)


def _unheeded(user_id: int) -> None:
    """Nobody is told yet (see ``Presence``)."""
