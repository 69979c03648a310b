"""The game's WebSocket: the route only finds the services; ws.py does the rest."""

from __future__ import annotations

from fastapi import APIRouter, WebSocket

from ..services import services_of
from ..ws import websocket_endpoint

router = APIRouter()


@router.websocket("/ws/{code}")
async def ws(websocket: WebSocket, code: str) -> None:
    services = services_of(websocket)
    cluster = services.cluster
    await websocket_endpoint(
        websocket,
        code,
        services.manager,
        services.settings,
        services.metrics,
        find=cluster.find_for_socket if cluster is not None else None,
    )
