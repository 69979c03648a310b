"""The FastAPI application: the services it runs on, the Guard in front, and its routes
(routers/: ops, rooms, games, the WebSocket, the client's pages).

Thin: parse, authenticate, hand to a room, return what the room answers.
"""

from __future__ import annotations

from fastapi import FastAPI
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from spades.config import Settings, get_settings
from spades.rooms import BotRunner, Clock
from spades.store.protocol import Store

from .guard import Guard, refusals
from .http_errors import add_exception_handlers
from .limits import Limiter, LocalLimiter
from .metrics import Metrics
from .routers import (
    accounts,
    games,
    moderation,
    ops,
    passkeys,
    players,
    quickplay,
    ratings,
    rooms,
    stats,
    websocket,
)
from .routers.pages import add_pages
from .services import Wiring, lifespan


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    clock: Clock | None = None,
    bots: BotRunner | None = None,
    limiter: Limiter | None = None,
) -> FastAPI:
    """The app. Tests inject a clock (and may inject a store); the rest comes from settings.

    `limiter`: where per-address limits are kept (default: this process's memory).
    """
    settings = settings or get_settings()
    metrics = Metrics()  # per app: tests build several apps in one process
    # A cluster counts the per-address limits in Redis, one count for all its processes.
    cluster_limiter = None
    if limiter is None and settings.redis_url:
        from spades.cluster.node import redis_limiter

        cluster_limiter = redis_limiter(settings)
    app = FastAPI(
        title="Spades room server",
        version="0.1.0",
        description="REST API of the Spades rooms; the game itself runs over /ws/{code} "
        "(see docs/protocol.md).",
        lifespan=lifespan(Wiring(settings, metrics, store, clock, bots, cluster_limiter)),
        responses=refusals(400, 413),  # any body: unreadable, or too large (the Guard)
    )
    app.state.metrics = metrics
    add_exception_handlers(app, metrics)
    # Per-address limits and the body size limit run before any route parses anything;
    # forwarded headers are believed only from the proxies the settings name.
    limiter = limiter or cluster_limiter or LocalLimiter(settings)
    app.state.limiter = limiter  # (failed sign-ins are counted by the accounts routes)
    app.add_middleware(
        Guard,
        limiter=limiter,
        max_body_bytes=settings.max_body_bytes,
        metrics_allow=settings.metrics_allow,
        forwarded_trusted=bool(settings.forwarded_allow_ips.strip()),
        metrics=metrics,
    )
    if settings.forwarded_allow_ips.strip():
        trusted = [p.strip() for p in settings.forwarded_allow_ips.split(",") if p.strip()]
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=trusted)
    routers = (
        ops,
        rooms,
        games,
        players,
        stats,
        accounts,
        passkeys,
        quickplay,
        moderation,
        ratings,
        websocket,
    )
    for router in (r.router for r in routers):
        app.include_router(router)
    add_pages(app, settings)
    return app
