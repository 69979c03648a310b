# The image is the wheel and nothing else: stage one builds it (and the wheels of its
# dependencies), stage two installs them into a slim Python and runs as a plain user.
# Every setting comes from SPADES_* environment variables (server/spades/config.py).
#   docker build -t spades-server .
#   docker run -p 8000:8000 -v spades-data:/data spades-server

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md LICENSE ./
COPY server ./server
COPY migrations ./migrations
COPY client ./client
RUN pip wheel --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    SPADES_DATABASE_URL=sqlite+aiosqlite:////data/spades.db
RUN useradd --system --uid 10001 --user-group --home-dir /data --create-home spades
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-index --find-links /wheels spades-server
USER spades
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"]
ENTRYPOINT ["spades"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8000"]
