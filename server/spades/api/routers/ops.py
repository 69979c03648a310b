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
    # One process: up, not draining, and its database answers. A cluster: up, not
    # draining, and Redis (and the database, when a peer reaches it) within this
    # process's reach, as the node's health checks last found (cluster/health.py says
    # why the database counts only when a peer reaches it: a shared outage must not take
    # every process out of HAProxy and cut every socket).
    try:
        services = services_of(request)  # absent until the app has started
        cluster = services.cluster
        if services.manager.draining:
            ok = False
        elif cluster is not None:
            ok = cluster.not_ready() is None
        else:
            ok = await services.store.ping()
    except Exception:
        ok = False
    return JSONResponse({"ready": ok}, status_code=200 if ok else 503)


@router.get("/metrics", tags=["ops"], response_class=Response, responses=refusals(403))
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus text format: rooms, connections, actions, latencies, errors."""
    # The app's own, not the services': it counts from before the app starts.
    metrics: Metrics = request.app.state.metrics
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
