"""The web client: its pages and files, or a placeholder when it is not installed."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from spades.config import Settings

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
