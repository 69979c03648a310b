"""The web client: its pages and files, or a placeholder when it is not installed."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from spades.config import Settings

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
    repo = Path(__file__).resolve().parents[4] / "client"
    return repo if repo.is_dir() else Path.cwd() / "client"


def add_pages(app: FastAPI, settings: Settings) -> None:
    """The client's routes, then its files at `/` (last: every other route goes first)."""
    client = client_directory(settings)
    router = APIRouter()

    def index() -> FileResponse | HTMLResponse:
        page = client / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(PLACEHOLDER)

    @router.get("/", include_in_schema=False, response_model=None)
    async def home() -> FileResponse | HTMLResponse:
        return index()

    # `path`: a room address with anything after the code (a pasted link inside the
    # code, say) still gets the page, which explains that no such room exists.
    @router.get("/r/{code:path}", include_in_schema=False, response_model=None)
    async def room_page(code: str) -> FileResponse | HTMLResponse:
        return index()

    app.include_router(router)
    if client.is_dir():
        app.mount("/", StaticFiles(directory=client, html=True), name="client")
