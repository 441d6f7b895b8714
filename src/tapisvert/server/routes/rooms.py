"""Rooms over HTTP: the listing of each, with a quota per address."""

from __future__ import annotations

from fastapi import APIRouter, Request

from tapisvert.server import protocol
from tapisvert.server.rooms import rooms
from tapisvert.server.routes.dependencies import TheLobby, peer

router = APIRouter()


@router.get("/api/rooms")
async def list_rooms(request: Request, lobby: TheLobby) -> list[protocol.RoomInfo]:
    lobby.quotas.take("listings", peer(request))
    return [await lobby.rooms.room_info(room) for room in rooms()]


@router.get("/api/rooms/{room}")
async def room(room: str, request: Request, lobby: TheLobby) -> protocol.RoomInfo:
    lobby.quotas.take("listings", peer(request))
    return await lobby.rooms.room_info(room)
