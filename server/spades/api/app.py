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
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Request, WebSocket
from fastapi import Path as PathParam
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

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
    RoomMoved,
    RoomNotFound,
    ServerFull,
    settings_schema,
)
from spades.rooms.lobby import game_players
from spades.rooms.manager import normalize_code, plausible_code
from spades.rooms.ownership import OwnedElsewhere
from spades.store.protocol import GameInProgress, NotFound, StorageUnavailable, Store

from .gc_policy import GcPolicy
from .guard import Guard, refusals, safe_validation_errors
from .limits import Limiter, LocalLimiter
from .metrics import CONTENT_TYPE_LATEST, Metrics
from .models import (
    MAX_ID,
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

# What a browser gets for an address that is nothing here (a mistyped link): a page in
# words with the way home, not the API's JSON.
NOT_FOUND_PAGE = (
    '<!doctype html><html lang="en"><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    '<title>Page not found · Spades</title><link rel="stylesheet" href="/css/app.css">'
    '<main id="main"><section class="card-panel center-box"><h1>Page not found</h1>'
    "<p>There is nothing at this address. A room's link looks like /r/ABC234.</p>"
    '<a class="btn primary" href="/">Back to home</a></section></main></html>'
)


def wants_page(request: Request) -> bool:
    """A browser asking for a page (not the API, not a file the page loads)."""
    path = request.url.path
    return (
        request.method in ("GET", "HEAD")
        and not path.startswith(("/api/", "/ws/", "/metrics", "/healthz", "/readyz", "/docs"))
        and "text/html" in request.headers.get("accept", "")
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


def _invalid(message: str, *field: str) -> HTTPException:
    # The shape of every 422 (FastAPI's validation errors): a list naming the field.
    return HTTPException(422, [{"type": "value_error", "loc": ["body", *field], "msg": message}])


def _http_error(exc: RoomError) -> HTTPException:
    if isinstance(exc, RoomNotFound):
        return HTTPException(404, exc.message)
    if isinstance(exc, RoomFull):
        return HTTPException(409, exc.message)
    if isinstance(exc, ServerFull):
        return HTTPException(503, exc.message, headers={"Retry-After": "60"})
    if isinstance(exc, BadRequest):
        # The only free text of a REST body is the display name.
        return _invalid(exc.message, *(("name",) if exc.code in ("too_long", "empty_text") else ()))
    if exc.code == "storage_error" or isinstance(exc, RoomMoved):
        # Nothing changed; the database may be back soon, or the room is at another process
        # now (the next request reaches it there): try again.
        return HTTPException(503, exc.message)
    return HTTPException(409, exc.message)


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
                writer_process=(
                    settings.pg_writer == "process"
                    if settings.database_url.startswith("postgresql")
                    else settings.sqlite_writer == "process"
                ),
                commit_interval=settings.commit_interval,
                hide_parameters=True,
            )
        else:
            assert store is not None
            the_store = store
        cluster = None
        if settings.redis_url:
            from spades.cluster.node import ClusterNode

            cluster = ClusterNode.from_settings(settings)
        manager = RoomManager(
            the_store,
            RoomConfig.pick(settings),
            clock=clock,
            bots=bots,
            observer=metrics,
            ownership=cluster.ownership if cluster is not None else None,
            shared_lobby=cluster is not None,
        )
        metrics.watch(manager)
        reloaded = await manager.start()
        log.info("%d unfinished room(s) reloaded", reloaded)
        if cluster is not None:
            await cluster.start(manager)
            metrics.watch_cluster(cluster)
        if cluster_limiter is not None:
            cluster_limiter.start()
        app.state.cluster = cluster
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
            metrics.watch_cluster(None)
            if cluster is not None:
                await cluster.drain()
            await manager.stop()
            if cluster is not None:
                await cluster.stop()
            if cluster_limiter is not None:
                await cluster_limiter.stop()
            if own_store:
                await the_store.close()

    app = FastAPI(
        title="Spades room server",
        version="0.1.0",
        description="REST API of the Spades rooms; the game itself runs over /ws/{code} "
        "(see docs/protocol.md).",
        lifespan=lifespan,
        responses=refusals(400, 413),  # any body: unreadable, or too large (the Guard)
    )
    app.state.metrics = metrics

    # REST refusals are counted by status, then answered exactly as FastAPI would.
    @app.exception_handler(StarletteHTTPException)
    async def count_http_error(request: Request, exc: StarletteHTTPException) -> Response:
        metrics.http_refused(exc.status_code)
        if exc.status_code == 404 and wants_page(request):
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        return await http_exception_handler(request, exc)

    # The database is away (docs/operations.md): any REST call that needed it is refused
    # with 503, "try again", rather than a bare 500; nothing was changed.
    @app.exception_handler(StorageUnavailable)
    async def storage_unavailable(request: Request, exc: StorageUnavailable) -> Response:
        metrics.http_refused(503)
        return JSONResponse({"detail": "the database is unavailable; try again"}, status_code=503)

    @app.exception_handler(RequestValidationError)
    async def count_invalid_request(request: Request, exc: RequestValidationError) -> Response:
        metrics.http_refused(422)
        # Not FastAPI's own answer: it quotes the input, which may not even be writable.
        return JSONResponse({"detail": safe_validation_errors(exc.errors())}, status_code=422)

    # A cluster counts the per-address limits in Redis, one count for all its processes.
    cluster_limiter = None
    if limiter is None and settings.redis_url:
        from spades.cluster.node import redis_limiter

        cluster_limiter = redis_limiter(settings)
    # Per-address limits and the body size limit run before any route parses anything;
    # forwarded headers are believed only from the proxies the settings name.
    app.add_middleware(
        Guard,
        limiter=limiter or cluster_limiter or LocalLimiter(settings),
        max_body_bytes=settings.max_body_bytes,
        metrics_allow=settings.metrics_allow,
        forwarded_trusted=bool(settings.forwarded_allow_ips.strip()),
        metrics=metrics,
    )
    if settings.forwarded_allow_ips.strip():
        trusted = [p.strip() for p in settings.forwarded_allow_ips.split(",") if p.strip()]
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=trusted)

    def manager_of(request: Request) -> RoomManager:
        manager: RoomManager = request.app.state.manager
        return manager

    async def get_room(request: Request, code: str) -> Any:
        """The room, or in a cluster a link to the process that owns it (RelayedRoom)."""
        cluster = request.app.state.cluster
        try:
            if cluster is not None:
                room = await cluster.find(code)
            else:
                room = await manager_of(request).get(code)
        except RoomNotFound as exc:
            raise HTTPException(404, exc.message) from exc
        except OwnedElsewhere as exc:
            raise HTTPException(503, "the room is moving to another server; retry") from exc
        return room

    async def ask_owner(request: Request, room: Any, op: str, *args: Any) -> Any:
        """Run `op` on a room owned here, or on its owner's actor through the relay."""
        if isinstance(room, Room):
            if op == "room":
                return room.room_dict(None)
            return await room.call(room.join, *args)
        try:
            return await request.app.state.cluster.relay.call(room.owner, room.code, op, *args)
        except OwnedElsewhere as exc:
            raise HTTPException(503, "the room is moving to another server; retry") from exc

    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"], responses=refusals(503))
    async def readyz(request: Request) -> JSONResponse:
        # In a cluster the database is not asked: every process shares it, so its outage
        # would take every process out of HAProxy at once, which cuts every socket (its
        # `on-marked-down shutdown-sessions`) and refuses new ones: players would see their
        # tables drop, instead of `storage_error` on a move, and all reconnect at once when
        # it is back. Steering players elsewhere helps nothing there: a room is served by
        # its lease's holder wherever its sockets land. Ready = up and not draining.
        clustered = getattr(request.app.state, "cluster", None) is not None
        try:
            ok = not manager_of(request).draining and (
                clustered or await request.app.state.store.ping()
            )
        except Exception:
            ok = False
        return JSONResponse({"ready": ok}, status_code=200 if ok else 503)

    @app.get("/metrics", tags=["ops"], response_class=Response, responses=refusals(403))
    async def prometheus_metrics() -> Response:
        """Prometheus text format: rooms, connections, actions, latencies, errors."""
        return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/api/settings", tags=["rooms"])
    async def room_settings_schema() -> dict[str, Any]:
        """The JSON Schema of a room's settings: per field its default, limits, choices,
        title and description (the web client builds its settings form from it)."""
        return settings_schema()

    @app.post(
        "/api/rooms", response_model=RoomCreated, tags=["rooms"], responses=refusals(409, 429, 503)
    )
    async def create_room(body: CreateRoom, request: Request) -> RoomCreated:
        return await _create(body, request, solo=False)

    @app.post(
        "/api/solo", response_model=RoomCreated, tags=["rooms"], responses=refusals(409, 429, 503)
    )
    async def create_solo(body: CreateSolo, request: Request) -> RoomCreated:
        return await _create(body, request, solo=True)

    async def _create(body: CreateRoom, request: Request, *, solo: bool) -> RoomCreated:
        manager = manager_of(request)
        options = settings_dict(body)
        try:
            if solo:
                room, seat, token = await manager.create_solo(body.name, options)
            else:
                room, seat, token = await manager.create(body.name, options)
        except RoomError as exc:
            raise _http_error(exc) from exc
        return RoomCreated(
            room_id=room.room_id,
            code=room.code,
            invite_url=room.invite_url,
            seat=seat,
            token=token,
        )

    @app.get("/api/rooms", response_model=RoomList, tags=["rooms"])
    async def list_rooms(request: Request) -> dict[str, Any]:
        return {"rooms": await manager_of(request).lobby()}

    @app.get("/api/rooms/{code}", response_model=RoomOut, tags=["rooms"], responses=refusals(404))
    async def room_state(code: str, request: Request) -> dict[str, Any]:
        room = await get_room(request, code)
        result: dict[str, Any] = await ask_owner(request, room, "room")
        return result

    @app.post(
        "/api/rooms/{code}/join",
        response_model=Joined,
        tags=["rooms"],
        responses=refusals(404, 409, 429, 503),
    )
    async def join_room(code: str, body: JoinRoom, request: Request) -> Joined:
        room = await get_room(request, code)
        if not body.spectator and not body.name.strip():
            raise _invalid("a player needs a name", "name")
        try:
            seat, token = await ask_owner(
                request, room, "join", body.name, body.seat, body.spectator
            )
        except RoomError as exc:
            raise _http_error(exc) from exc
        return Joined(seat=seat, token=token)

    @app.get(
        "/api/rooms/{code}/history",
        response_model=RoomHistory,
        tags=["games"],
        responses=refusals(404),
    )
    async def room_history(code: str, request: Request) -> RoomHistory:
        # Straight from the database: finished games need no live room, so no owner (in a
        # cluster, no lease and no Redis) and nothing loaded into memory.
        key = normalize_code(code)
        if not plausible_code(key):
            raise HTTPException(404, "no room with that code")
        store = request.app.state.store
        try:
            room_id = await store.room_id_for_code(key)
        except NotFound as exc:
            raise HTTPException(404, "no room with that code") from exc
        finished = await store.finished_games(room_id)
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

    @app.get("/api/games/{game_id}/record", tags=["games"], responses=refusals(404, 409))
    async def game_record(
        game_id: Annotated[int, PathParam(ge=0, le=MAX_ID)], request: Request
    ) -> dict[str, Any]:
        try:
            record: dict[str, Any] = await request.app.state.store.export_game(game_id)
        except GameInProgress as exc:
            # The record holds the master seed, which would reveal every later deal; the
            # store decides, so every process of a cluster refuses it alike.
            raise HTTPException(409, "the game is still being played") from exc
        except NotFound as exc:
            raise HTTPException(404, f"no game {game_id}") from exc
        record = with_deals(record)
        try:
            # Not part of the engine's record: who sits in the game's room today, for the
            # review page's names (a seat may have changed hands since the game).
            record.update(game_players(await request.app.state.store.game_room(game_id)))
        except Exception:
            log.warning("game %s: its room's seats could not be read", game_id, exc_info=True)
        return record

    @app.websocket("/ws/{code}")
    async def ws(websocket: WebSocket, code: str) -> None:
        manager: RoomManager = websocket.app.state.manager
        cluster = websocket.app.state.cluster
        await websocket_endpoint(
            websocket,
            code,
            manager,
            settings,
            metrics,
            find=cluster.find_for_socket if cluster is not None else None,
        )

    client = client_directory(settings)

    def index() -> FileResponse | HTMLResponse:
        page = client / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(PLACEHOLDER)

    @app.get("/", include_in_schema=False, response_model=None)
    async def home() -> FileResponse | HTMLResponse:
        return index()

    # `path`: a room address with anything after the code (a pasted link inside the
    # code, say) still gets the page, which explains that no such room exists.
    @app.get("/r/{code:path}", include_in_schema=False, response_model=None)
    async def room_page(code: str) -> FileResponse | HTMLResponse:
        return index()

    if client.is_dir():
        app.mount("/", StaticFiles(directory=client, html=True), name="client")
    return app
