"""Moderation over REST: any player reports a player or a chat message and keeps their own
list of muted players; administrators (`spades admin grant USERNAME`) read the reports,
mute or ban a player or an address range for a time, close a room and read the audit log.

Everyone but an administrator is refused the `/api/admin/...` routes (403, `admin_only`).
Every administrator's change is written to the audit log with the change itself.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response

from spades.codes import ErrorCode
from spades.rooms import RoomError
from spades.rooms.manager import normalize_code, plausible_code
from spades.rooms.moderation import valid_network
from spades.rooms.players import plausible_id
from spades.store.protocol import NotFound, PlayerRow, ReportRow, SanctionRow, Store

from ..guard import refusals
from ..http_errors import http_error, invalid
from ..moderation_models import (
    AuditLog,
    AuditOut,
    CloseRoomIn,
    Mutes,
    ReportCreated,
    ReportIn,
    ReportList,
    ReportOut,
    SanctionIn,
    SanctionList,
    SanctionOut,
)
from ..players import Player
from ..services import services_of
from ..sessions import Refused
from .rooms import ask_owner, get_room

router = APIRouter(tags=["moderation"])

CONTEXT = 20  # chat messages of the room shown with a report


def store_of(request: Request) -> Store:
    return services_of(request).store


async def admin_player(request: Request, player: Player) -> PlayerRow:
    if not await store_of(request).is_admin(player.id):
        raise Refused(403, ErrorCode.ADMIN_ONLY, "only an administrator may do that")
    return player


Admin = Annotated[PlayerRow, Depends(admin_player)]


async def _room_id(store: Store, code: str) -> str:
    key = normalize_code(code)
    if not plausible_code(key):
        raise HTTPException(404, "no such room")
    try:
        return await store.room_id_for_code(key)
    except NotFound as exc:
        raise HTTPException(404, "no such room") from exc


# --- every player -----------------------------------------------------------------------


@router.post("/api/reports", response_model=ReportCreated, responses=refusals(401, 403, 404))
async def report(body: ReportIn, request: Request, player: Player) -> ReportCreated:
    """Report the player in `seat` of a room (or, with `message_at`, one of their chat
    messages, which is stored with the report): administrators see it with the room, the
    game and its seq, and who reported."""
    store = store_of(request)
    room_id = await _room_id(store, body.room)
    reported = ReportRow(
        reporter_id=player.id,
        reason=body.reason,
        room_code=normalize_code(body.room),
        game_id=body.game_id,
        seq=body.seq,
        seat=body.seat,
    )
    if body.seat is not None:
        try:
            seats = (await store.get_room(room_id)).seats
        except NotFound as exc:
            raise HTTPException(404, "no such room") from exc
        for seat in seats:
            if seat.seat == body.seat:
                reported.player_id, reported.name = seat.player_id, seat.name
    if body.message_at is not None:
        at = datetime.fromtimestamp(body.message_at / 1000, UTC)
        try:
            said = await store.chat_message(room_id, at, body.seat)
        except NotFound as exc:
            raise invalid("no such chat message in the room", "message_at") from exc
        reported.name, reported.message, reported.message_at = said.name, said.text, said.at
        if said.player_id is not None:  # who said it (the seat may have changed hands since)
            reported.player_id = said.player_id
    elif body.seat is None:
        raise invalid("report a seat's player, or a chat message (message_at)", "seat")
    if reported.player_id == player.id:
        raise invalid("you cannot report yourself", "seat")
    return ReportCreated(id=await store.add_report(reported))


@router.get("/api/me/mutes", response_model=Mutes, responses=refusals(401))
async def my_mutes(request: Request, player: Player) -> Mutes:
    """The players whose chat you hide (kept for your player, on every device)."""
    return Mutes(muted=await store_of(request).player_mutes(player.id))


@router.put("/api/me/mutes/{player_id}", status_code=204, responses=refusals(401, 403, 404))
async def mute_player(player_id: str, request: Request, player: Player) -> Response:
    """Hide this player's chat from you (the client hides what a muted seat says)."""
    if player_id == player.id:
        raise invalid("you cannot mute yourself", "player_id")
    try:
        await store_of(request).set_player_mute(player.id, player_id, True)
    except NotFound as exc:
        raise HTTPException(404, "no such player") from exc
    return Response(status_code=204)


@router.delete("/api/me/mutes/{player_id}", status_code=204, responses=refusals(401, 403))
async def unmute_player(player_id: str, request: Request, player: Player) -> Response:
    await store_of(request).set_player_mute(player.id, player_id, False)
    return Response(status_code=204)


# --- administrators ---------------------------------------------------------------------


@router.get("/api/admin/reports", response_model=ReportList, responses=refusals(401, 403))
async def list_reports(
    request: Request, admin: Admin, closed: bool = False, limit: int = Query(100, ge=1, le=500)
) -> ReportList:
    """The newest reports first (`closed=true`: the dealt-with ones too), each with the
    room's last chat messages as context while the room's chat is kept."""
    store = store_of(request)
    rows = await store.reports(include_closed=closed, limit=limit)
    names = await store.player_names(
        [p for r in rows for p in (r.reporter_id, r.player_id) if p is not None]
    )
    chats: dict[str, list[dict[str, Any]]] = {}  # by room: reports of one room share it
    out = []
    for row in rows:
        code = row.room_code
        if code is not None and code not in chats:
            try:
                chats[code] = await store.recent_chat(await store.room_id_for_code(code), CONTEXT)
            except NotFound:
                chats[code] = []
        fields = asdict(row)
        fields["room"] = fields.pop("room_code")
        out.append(
            ReportOut(
                **fields,
                context=chats.get(code or "", []),
                reporter_name=names.get(row.reporter_id or ""),
                player_name=names.get(row.player_id or ""),
            )
        )
    return ReportList(reports=out)


@router.post(
    "/api/admin/reports/{report_id}/close", status_code=204, responses=refusals(401, 403, 404)
)
async def close_report(report_id: int, request: Request, admin: Admin) -> Response:
    try:
        await store_of(request).close_report(report_id, admin.id)
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    return Response(status_code=204)


@router.post("/api/admin/sanctions", response_model=SanctionOut, responses=refusals(401, 403, 404))
async def add_sanction(body: SanctionIn, request: Request, admin: Admin) -> SanctionOut:
    """Mute (no chat) or ban (no seat, no chat, no room to create or join) a player or an
    address range for `minutes`, with a reason the player is shown, with the end time."""
    if (body.player_id is None) == (body.network is None):
        raise invalid("name exactly one of player_id and network", "player_id")
    network = None
    if body.network is not None:
        try:
            network = valid_network(body.network)
        except ValueError as exc:
            raise invalid("not an address range (CIDR)", "network") from exc
    now = datetime.now(UTC)
    row = SanctionRow(
        kind=body.kind,
        reason=body.reason,
        ends_at=now + timedelta(minutes=body.minutes),
        player_id=body.player_id,
        network=network,
        created_at=now,
        created_by=admin.id,
    )
    try:
        row.id = await store_of(request).add_sanction(row)
    except NotFound as exc:
        raise HTTPException(404, "no such player") from exc
    return SanctionOut(**asdict(row))


@router.get("/api/admin/sanctions", response_model=SanctionList, responses=refusals(401, 403))
async def list_sanctions(request: Request, admin: Admin, ended: bool = False) -> SanctionList:
    """The sanctions in force (`ended=true`: also the ended and lifted ones), newest first."""
    store = store_of(request)
    rows = await store.sanctions(in_force_at=None if ended else datetime.now(UTC))
    names = await store.player_names(
        [p for r in rows for p in (r.player_id, r.created_by) if p is not None]
    )
    return SanctionList(
        sanctions=[
            SanctionOut(
                **asdict(r),
                player_name=names.get(r.player_id or ""),
                created_by_name=names.get(r.created_by or ""),
            )
            for r in rows
        ]
    )


@router.delete(
    "/api/admin/sanctions/{sanction_id}", status_code=204, responses=refusals(401, 403, 404)
)
async def lift_sanction(sanction_id: int, request: Request, admin: Admin) -> Response:
    """End a sanction now (it stays in the list, lifted)."""
    try:
        await store_of(request).lift_sanction(sanction_id, admin.id)
    except NotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    return Response(status_code=204)


@router.post(
    "/api/admin/rooms/{code}/close", status_code=204, responses=refusals(401, 403, 404, 503)
)
async def close_room(code: str, body: CloseRoomIn, request: Request, admin: Admin) -> Response:
    """Close a live room at once (on whichever process holds it): its connections get an
    `error` `abandoned` with the reason, then the socket closes."""
    room = await get_room(request, code)
    why = f"an administrator closed this room: {body.reason}"
    try:
        await ask_owner(request, room, "close", why)
    except RoomError as exc:
        raise http_error(exc) from exc
    await store_of(request).audit(admin.id, "close_room", room.code, {"reason": body.reason})
    return Response(status_code=204)


@router.get("/api/admin/audit", response_model=AuditLog, responses=refusals(401, 403))
async def audit_log(
    request: Request,
    admin: Admin,
    limit: int = Query(100, ge=1, le=500),
    before: int | None = Query(None, ge=1, description="entries older than this id"),
) -> AuditLog:
    """Who did what: grants and revokes (by the command line), sanctions and their lifting,
    reports closed, rooms closed; newest first."""
    store = store_of(request)
    rows = await store.audit_log(limit=limit, before=before)
    # A target is a player's id, a room's code, a report's number or an address range:
    # only a player's has a name.
    names = await store.player_names(
        [p for r in rows for p in (r.actor_id, r.target) if p is not None and plausible_id(p)]
    )
    return AuditLog(
        entries=[
            AuditOut(
                **asdict(r),
                actor_name=names.get(r.actor_id or ""),
                target_name=names.get(r.target or ""),
            )
            for r in rows
        ]
    )
