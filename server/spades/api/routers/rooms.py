"""Rooms over REST: the settings schema, create (with others or alone), list, look, join."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from spades.rooms import Room, RoomError, RoomManager, RoomNotFound, settings_schema
from spades.rooms.moderation import Sanctioned
from spades.rooms.moderation import check as check_sanctions
from spades.rooms.ownership import OwnedElsewhere
from spades.store.protocol import PlayerRow

from ..guard import refusals
from ..http_errors import http_error, invalid
from ..models import (
    CreateRoom,
    CreateSolo,
    Joined,
    JoinRoom,
    RoomCreated,
    RoomList,
    RoomOut,
    settings_dict,
)
from ..players import MaybePlayer
from ..services import services_of
from ..sessions import Refused

router = APIRouter()

MOVING = "the room is moving to another server; retry"


def manager_of(request: Request) -> RoomManager:
    return services_of(request).manager


async def get_room(request: Request, code: str) -> Any:
    """The room, or in a cluster a link to the process that owns it (RelayedRoom)."""
    cluster = services_of(request).cluster
    try:
        if cluster is not None:
            room = await cluster.find(code)
        else:
            room = await manager_of(request).get(code)
    except RoomNotFound as exc:
        raise HTTPException(404, exc.message) from exc
    except OwnedElsewhere as exc:
        raise HTTPException(503, MOVING) from exc
    return room


async def ask_owner(request: Request, room: Any, op: str, *args: Any) -> Any:
    """Run `op` on a room owned here, or on its owner's actor through the relay."""
    if isinstance(room, Room):
        if op == "room":
            return room.room_dict(None)
        if op == "close":
            return await manager_of(request).close(room.code, *args)
        return await room.call(room.join, *args)
    cluster = services_of(request).cluster
    # Only a started cluster node hands out links to other processes' rooms.
    assert cluster is not None and cluster.relay is not None
    try:
        return await cluster.relay.call(room.owner, room.code, op, *args)
    except OwnedElsewhere as exc:
        if op != "join" or not isinstance(exc.__cause__, TimeoutError):
            raise HTTPException(503, MOVING) from exc
    # The owner did not answer in time, but may have seated the player all the same (a
    # pause, a slow write): asked again with the same join id, it answers with that seat
    # and token (rooms/joins.py) rather than a second seat.
    try:
        return await cluster.relay.call(room.owner, room.code, op, *args)
    except OwnedElsewhere as exc:
        raise HTTPException(503, MOVING) from exc


async def not_banned(request: Request, player: PlayerRow | None) -> None:
    """Refuse (403, `banned`) a banned player or address a room to create or join."""
    address = request.client.host if request.client else None
    try:
        await check_sanctions(
            services_of(request).store, None if player is None else player.id, address
        )
    except Sanctioned as exc:
        raise Refused(403, exc.code, exc.message) from exc


@router.get("/api/settings", tags=["rooms"])
async def room_settings_schema(request: Request) -> dict[str, Any]:
    """The JSON Schema of a room's settings: per field its default, limits, choices,
    title and description (the web client builds its settings form from it); beside it
    `quickplay`, what Play now offers (`targets`)."""
    schema = settings_schema()
    schema["quickplay"] = {"targets": list(services_of(request).quickplay.config.targets)}
    return schema


@router.post(
    "/api/rooms",
    response_model=RoomCreated,
    tags=["rooms"],
    responses=refusals(401, 403, 409, 429, 503),
)
async def create_room(body: CreateRoom, request: Request, player: MaybePlayer) -> RoomCreated:
    return await _create(body, request, player, solo=False)


@router.post(
    "/api/solo",
    response_model=RoomCreated,
    tags=["rooms"],
    responses=refusals(401, 403, 409, 429, 503),
)
async def create_solo(body: CreateSolo, request: Request, player: MaybePlayer) -> RoomCreated:
    return await _create(body, request, player, solo=True)


async def _create(
    body: CreateRoom, request: Request, player: PlayerRow | None, *, solo: bool
) -> RoomCreated:
    await not_banned(request, player)
    manager = manager_of(request)
    options = settings_dict(body)
    player_id = player.id if player is not None else None
    try:
        room, seat, token = await manager.create(body.name, options, solo=solo, player=player_id)
    except RoomError as exc:
        raise http_error(exc) from exc
    return RoomCreated(
        room_id=room.room_id,
        code=room.code,
        invite_url=room.invite_url,
        seat=seat,
        token=token,
    )


@router.get("/api/rooms", response_model=RoomList, tags=["rooms"])
async def list_rooms(request: Request) -> dict[str, Any]:
    return {"rooms": await manager_of(request).lobby()}


@router.get("/api/rooms/{code}", response_model=RoomOut, tags=["rooms"], responses=refusals(404))
async def room_state(code: str, request: Request) -> dict[str, Any]:
    room = await get_room(request, code)
    result: dict[str, Any] = await ask_owner(request, room, "room")
    return result


@router.post(
    "/api/rooms/{code}/join",
    response_model=Joined,
    tags=["rooms"],
    responses=refusals(401, 403, 404, 409, 429, 503),
)
async def join_room(code: str, body: JoinRoom, request: Request, player: MaybePlayer) -> Joined:
    await not_banned(request, player)
    room = await get_room(request, code)
    if not body.spectator and not body.name.strip():
        raise invalid("a player needs a name", "name")
    # An id for the join (the client's, or one of ours), so that a join asked again after
    # its answer was lost gets the same seat (rooms/joins.py).
    join_id = body.join_id or secrets.token_urlsafe(16)
    try:
        # The player (checked here, by its credential) is recorded on the seat taken.
        player_id = player.id if player is not None else None
        seat, token = await ask_owner(
            request, room, "join", body.name, body.seat, body.spectator, join_id, player_id
        )
    except RoomError as exc:
        raise http_error(exc) from exc
    return Joined(seat=seat, token=token)
