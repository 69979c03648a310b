"""How REST refusals are answered: a room's error as an HTTP status, and the app's
exception handlers (each refusal is counted by status)."""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from spades.codes import ErrorCode
from spades.rooms import BadRequest, RoomError, RoomFull, RoomMoved, RoomNotFound, ServerFull
from spades.store.protocol import StorageUnavailable

from .guard import safe_validation_errors
from .metrics import Metrics
from .routers.pages import NOT_FOUND_PAGE, wants_page


def invalid(message: str, *field: str) -> HTTPException:
    # The shape of every 422 (FastAPI's validation errors): a list naming the field.
    return HTTPException(422, [{"type": "value_error", "loc": ["body", *field], "msg": message}])


def http_error(exc: RoomError) -> HTTPException:
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
