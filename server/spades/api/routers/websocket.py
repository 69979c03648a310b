"""The game's WebSocket: the route only finds the services; ws.py does the rest."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from spades.rooms.players import SESSION_PREFIX

from ..services import services_of
from ..sessions import COOKIE, same_site
from ..ws import websocket_endpoint

router = APIRouter()


@router.websocket("/ws/{code}")
async def ws(websocket: WebSocket, code: str) -> None:
    services = services_of(websocket)
    cluster = services.cluster
    # A signed-in browser's session cookie comes with the handshake (scripts cannot read
    # it). It is used only when the page that opened the socket is this site's own: a
    # socket opened from another site (its Origin another host) gets no session.
    value = websocket.cookies.get(COOKIE)
    session = f"{SESSION_PREFIX}{value}" if value and same_site(websocket.headers) else None
    await websocket_endpoint(
        websocket,
        code,
        services.manager,
        services.settings,
        services.metrics,
        find=cluster.find_for_socket if cluster is not None else None,
        session=session,
    )
