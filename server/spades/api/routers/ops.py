"""What operators and load balancers ask: alive, ready, and the Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..guard import refusals
from ..metrics import CONTENT_TYPE_LATEST, Metrics
from ..services import is_ready, services_of

router = APIRouter()


@router.get("/healthz", tags=["ops"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", tags=["ops"], responses=refusals(503))
async def readyz(request: Request) -> JSONResponse:
    # What the health port's thread answers too (readiness.py), worked out here on the loop.
    try:
        ok = await is_ready(services_of(request))  # no services until the app has started
    except Exception:
        ok = False
    return JSONResponse({"ready": ok}, status_code=200 if ok else 503)


@router.get("/metrics", tags=["ops"], response_class=Response, responses=refusals(403))
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus text format: rooms, connections, actions, latencies, errors."""
    # The app's own, not the services': it counts from before the app starts.
    metrics: Metrics = request.app.state.metrics
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
