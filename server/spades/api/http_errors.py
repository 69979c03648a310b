"""How REST refusals are answered: a room's error as an HTTP status, and the app's
exception handlers (each refusal is counted by status)."""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from spades.codes import ErrorCode
from spades.rooms import (
    BadPlayer,
    BadRequest,
    RoomError,
    RoomFull,
    RoomMoved,
    RoomNotFound,
    ServerFull,
)
from spades.rooms.quickplay import QuickPlayRefused
from spades.store.protocol import StorageUnavailable

from .guard import safe_validation_errors
from .metrics import Metrics
from .sessions import Refused

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


def invalid(message: str, *field: str) -> HTTPException:
    # The shape of every 422 (FastAPI's validation errors): a list naming the field.
    return HTTPException(422, [{"type": "value_error", "loc": ["body", *field], "msg": message}])


def http_error(exc: RoomError) -> HTTPException:
    if isinstance(exc, BadPlayer):
        return HTTPException(401, exc.message)
    if isinstance(exc, RoomNotFound):
        return HTTPException(404, exc.message)
    if isinstance(exc, RoomFull):
        return HTTPException(409, exc.message)
    if isinstance(exc, ServerFull):
        return HTTPException(503, exc.message, headers={"Retry-After": "60"})
    if isinstance(exc, BadRequest):
        # The only free text of a REST body is the display name.
        return invalid(
            exc.message,
            *(("name",) if exc.code in (ErrorCode.TOO_LONG, ErrorCode.EMPTY_TEXT) else ()),
        )
    if exc.code == ErrorCode.STORAGE_ERROR or isinstance(exc, RoomMoved):
        # Nothing changed; the database may be back soon, or the room is at another process
        # now (the next request reaches it there): try again.
        return HTTPException(503, exc.message)
    return HTTPException(409, exc.message)


def add_exception_handlers(app: FastAPI, metrics: Metrics) -> None:
    # REST refusals are counted by status, then answered exactly as FastAPI would.
    @app.exception_handler(StarletteHTTPException)
    async def count_http_error(request: Request, exc: StarletteHTTPException) -> Response:
        metrics.http_refused(exc.status_code)
        if exc.status_code == 404 and wants_page(request):
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        return await http_exception_handler(request, exc)

    # A player credential that names nobody, or with a wrong secret: 401 with its code.
    @app.exception_handler(BadPlayer)
    async def bad_player(request: Request, exc: BadPlayer) -> Response:
        metrics.http_refused(401)
        return JSONResponse({"detail": exc.message, "code": exc.code}, status_code=401)

    # Accounts and sessions: a refusal with its code (a CSRF failure, a wrong password...).
    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> Response:
        metrics.http_refused(exc.status)
        return JSONResponse(
            {"detail": exc.message, "code": exc.code}, status_code=exc.status, headers=exc.headers
        )

    # A quick play request refused: its status and code (rooms/quickplay.py).
    @app.exception_handler(QuickPlayRefused)
    async def quickplay_refused(request: Request, exc: QuickPlayRefused) -> Response:
        metrics.http_refused(exc.status)
        headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
        return JSONResponse(
            {"detail": exc.message, "code": exc.code}, status_code=exc.status, headers=headers
        )

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
