"""What operators and load balancers ask: alive, ready, and the Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..guard import refusals
from ..metrics import CONTENT_TYPE_LATEST, Metrics
from ..services import services_of

router = APIRouter()


@router.get("/healthz", tags=["ops"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", tags=["ops"], responses=refusals(503))
async def readyz(request: Request) -> JSONResponse:
    # In a cluster the database is not asked: every process shares it, so its outage
    # would take every process out of HAProxy at once, which cuts every socket (its
    # `on-marked-down shutdown-sessions`) and refuses new ones: players would see their
    # tables drop, instead of `ErrorCode.STORAGE_ERROR` on a move, and all reconnect at once when
    # it is back. Steering players elsewhere helps nothing there: a room is served by
    # its lease's holder wherever its sockets land. Ready = up and not draining.
    try:
        services = services_of(request)  # absent until the app has started
        ok = not services.manager.draining and (
            services.cluster is not None or await services.store.ping()
        )
    except Exception:
        ok = False
    return JSONResponse({"ready": ok}, status_code=200 if ok else 503)


@router.get("/metrics", tags=["ops"], response_class=Response, responses=refusals(403))
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus text format: rooms, connections, actions, latencies, errors."""
    # The app's own, not the services': it counts from before the app starts.
    metrics: Metrics = request.app.state.metrics
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
