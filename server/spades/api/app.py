"""The FastAPI application: REST routes, the WebSocket endpoint, the static client.

Thin: parse, authenticate, hand to a room, return what the room answers.
"""

from __future__ import annotations

import asyncio
import importlib.resources
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from spades.config import Settings, get_settings
from spades.rooms import (
    BadRequest,
    BotRunner,
    Clock,
    Room,
    RoomConfig,
    RoomError,
    RoomFull,
    RoomManager,
    RoomNotFound,
    settings_schema,
)
from spades.store.protocol import NotFound, Store

from .gc_policy import GcPolicy
from .limits import AddressLimiter
from .metrics import CONTENT_TYPE_LATEST, Metrics
from .models import (
    CreateRoom,
    CreateSolo,
    GameSummary,
    Joined,
    JoinRoom,
    RoomCreated,
    RoomHistory,
    RoomList,
    RoomOut,
    settings_dict,
)
from .review import with_deals
from .ws import websocket_endpoint

log = logging.getLogger(__name__)

PLACEHOLDER = (
    "<!doctype html><meta charset=utf-8><title>Spades</title>"
    "<p>The Spades server is running. The web client is not installed; "
    "see <a href=/docs>/docs</a> for the API.</p>"
)


def client_directory(settings: Settings) -> Path:
    if settings.client_dir:
        return Path(settings.client_dir)
    # The wheel ships the client as `spades/client` (setup.py); a checkout has it at the top.
    packaged = importlib.resources.files("spades") / "client"
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    repo = Path(__file__).resolve().parents[3] / "client"
    return repo if repo.is_dir() else Path.cwd() / "client"


def _datetime_clock(clock: Clock) -> Callable[[], datetime]:
    return lambda: datetime.fromtimestamp(clock.now(), UTC)


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


def _http_error(exc: RoomError) -> HTTPException:
    if isinstance(exc, RoomNotFound):
        return HTTPException(404, exc.message)
    if isinstance(exc, RoomFull):
        return HTTPException(409, exc.message)
    if isinstance(exc, BadRequest):
        return HTTPException(422, exc.message)
    if exc.code == "storage_error":  # nothing changed; the database may be back soon
        return HTTPException(503, exc.message)
    return HTTPException(409, exc.message)


def create_app(
    settings: Settings | None = None,
    *,
    store: Store | None = None,
    clock: Clock | None = None,
    bots: BotRunner | None = None,
) -> FastAPI:
    """The app. Tests inject a clock (and may inject a store); the rest comes from settings."""
    settings = settings or get_settings()
    metrics = Metrics()  # per app: tests build several apps in one process

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_store = store is None
        if own_store:
            from spades.store import open_store, upgrade

            if settings.auto_upgrade:
                await asyncio.to_thread(upgrade, settings.database_url)
            store_clock = None
            if clock is not None:
                store_clock = _datetime_clock(clock)
            # hide_parameters: a failed write's error (logged) must not show the card it held.
            the_store: Store = await open_store(
                settings.database_url,
                clock=store_clock,
                on_commit=metrics.store_commit,
                hide_parameters=True,
            )
        else:
            assert store is not None
            the_store = store
        manager = RoomManager(
            the_store, RoomConfig.pick(settings), clock=clock, bots=bots, observer=metrics
        )
        metrics.watch(manager)
        reloaded = await manager.start()
        log.info("%d unfinished room(s) reloaded", reloaded)
        # Long-lived objects go to the permanent generation as they age, so no collection
        # walks a busy server's whole heap (gc_policy.py says why and how often).
        gc_task = None
        if settings.gc_freeze_every > 0:
            gc_policy = GcPolicy(
                settings.gc_freeze_every, settings.gc_full_every, settings.gc_full_growth
            )
            gc_policy.start()
            gc_task = asyncio.create_task(gc_policy.run())
        app.state.manager = manager
        app.state.store = the_store
        metrics.watch_gc(True)
        lag_probe = asyncio.create_task(metrics.probe_loop())
        try:
            yield
        finally:
            if gc_task is not None:
                gc_task.cancel()
            lag_probe.cancel()
            metrics.watch_gc(False)
            metrics.watch(None)
            await manager.stop()
            if own_store:
                await the_store.close()

    app = FastAPI(
        title="Spades room server",
        version="0.1.0",
        description="REST API of the Spades rooms; the game itself runs over /ws/{code} "
        "(see docs/protocol.md).",
        lifespan=lifespan,
    )
    app.state.metrics = metrics

    # REST refusals are counted by status, then answered exactly as FastAPI would.
    @app.exception_handler(StarletteHTTPException)
    async def count_http_error(request: Request, exc: StarletteHTTPException) -> Response:
        metrics.http_refused(exc.status_code)
        return await http_exception_handler(request, exc)

    @app.exception_handler(RequestValidationError)
    async def count_invalid_request(request: Request, exc: RequestValidationError) -> Response:
        metrics.http_refused(422)
        return await request_validation_exception_handler(request, exc)

    creations = AddressLimiter(settings.rooms_per_minute)
    joins = AddressLimiter(settings.joins_per_minute)
    connects = AddressLimiter(settings.joins_per_minute)

    def manager_of(request: Request) -> RoomManager:
        manager: RoomManager = request.app.state.manager
        return manager

    def remember_base(room: Room, request: Request) -> None:
        if not settings.public_url:
            room.base_url = str(request.base_url).rstrip("/")

    async def get_room(request: Request, code: str) -> Room:
        try:
            room = await manager_of(request).get(code)
        except RoomNotFound as exc:
            raise HTTPException(404, exc.message) from exc
        remember_base(room, request)
        return room

    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"])
    async def readyz(request: Request) -> JSONResponse:
        try:
            ok = await request.app.state.store.ping()
        except Exception:
            ok = False
        return JSONResponse({"ready": ok}, status_code=200 if ok else 503)

    @app.get("/metrics", tags=["ops"], response_class=Response)
    async def prometheus_metrics() -> Response:
        """Prometheus text format: rooms, connections, actions, latencies, errors."""
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/api/settings", tags=["rooms"])
    async def room_settings_schema() -> dict[str, Any]:
        """The JSON Schema of a room's settings: per field its default, limits, choices,
        title and description (the web client builds its settings form from it)."""
        return settings_schema()

    @app.post("/api/rooms", response_model=RoomCreated, tags=["rooms"])
    async def create_room(body: CreateRoom, request: Request) -> RoomCreated:
        return await _create(body, request, solo=False)

    @app.post("/api/solo", response_model=RoomCreated, tags=["rooms"])
    async def create_solo(body: CreateSolo, request: Request) -> RoomCreated:
        return await _create(body, request, solo=True)

    async def _create(body: CreateRoom, request: Request, *, solo: bool) -> RoomCreated:
        if not creations.allow(_address(request)):
            raise HTTPException(429, "too many rooms created from your address; wait a minute")
        manager = manager_of(request)
        options = settings_dict(body)
        try:
            if solo:
                room, seat, token = await manager.create_solo(body.name, options)
            else:
                room, seat, token = await manager.create(body.name, options)
        except RoomError as exc:
            raise _http_error(exc) from exc
        remember_base(room, request)
        return RoomCreated(
            room_id=room.room_id,
            code=room.code,
            invite_url=room.invite_url,
            seat=seat,
            token=token,
        )

    @app.get("/api/rooms", response_model=RoomList, tags=["rooms"])
    async def list_rooms(request: Request) -> dict[str, Any]:
        return {"rooms": manager_of(request).public_rooms()}

    @app.get("/api/rooms/{code}", response_model=RoomOut, tags=["rooms"])
    async def room_state(code: str, request: Request) -> dict[str, Any]:
        room = await get_room(request, code)
        return room.room_dict(None)

    @app.post("/api/rooms/{code}/join", response_model=Joined, tags=["rooms"])
    async def join_room(code: str, body: JoinRoom, request: Request) -> Joined:
        if not joins.allow(_address(request)):
            raise HTTPException(429, "too many join attempts from your address; wait a minute")
        room = await get_room(request, code)
        if not body.spectator and not body.name.strip():
            raise HTTPException(422, "a player needs a name")
        try:
            seat, token = await room.call(room.join, body.name, body.seat, body.spectator)
        except RoomError as exc:
            raise _http_error(exc) from exc
        return Joined(seat=seat, token=token)

    @app.get("/api/rooms/{code}/history", response_model=RoomHistory, tags=["games"])
    async def room_history(code: str, request: Request) -> RoomHistory:
        room = await get_room(request, code)
        finished = await request.app.state.store.finished_games(room.room_id)
        return RoomHistory(
            games=[
                GameSummary(
                    game_id=f.game.id,
                    winner=f.game.winner,
                    scores=f.game.final_scores,
                    hands=[h.summary for h in f.hands],
                )
                for f in finished
            ]
        )

    @app.get("/api/games/{game_id}/record", tags=["games"])
    async def game_record(game_id: int, request: Request) -> dict[str, Any]:
        live = manager_of(request).find_game(game_id)
        if live is not None and live.game_in_progress():
            # The record holds the master seed, which would reveal every later deal.
            raise HTTPException(409, "the game is still being played")
        try:
            record: dict[str, Any] = await request.app.state.store.export_game(game_id)
        except NotFound as exc:
            raise HTTPException(404, f"no game {game_id}") from exc
        return with_deals(record)

    @app.websocket("/ws/{code}")
    async def ws(websocket: WebSocket, code: str) -> None:
        manager: RoomManager = websocket.app.state.manager
        await websocket_endpoint(websocket, code, manager, settings, connects, metrics)

    client = client_directory(settings)

    def index() -> FileResponse | HTMLResponse:
        page = client / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(PLACEHOLDER)

    @app.get("/", include_in_schema=False, response_model=None)
    async def home() -> FileResponse | HTMLResponse:
        return index()

    @app.get("/r/{code}", include_in_schema=False, response_model=None)
    async def room_page(code: str) -> FileResponse | HTMLResponse:
        return index()

    if client.is_dir():
        app.mount("/", StaticFiles(directory=client, html=True), name="client")
    return app
