"""Logging set-up: plain text by default, one JSON object per line with SPADES_LOG_FORMAT=json.

Log records carry context as `extra={"room": code, "seat": n}`; those two keys (and
`event`) become fields of the JSON object. Tokens and unplayed cards are never logged:
callers pass room codes and seat numbers, nothing else about a seat.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

CONTEXT_KEYS = ("room", "seat", "event", "code", "game_id")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key in CONTEXT_KEYS:
            value = record.__dict__.get(key)
            if value is not None:
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


# What uvicorn says at WARNING about a client's malformed request: the server is fine and
# answered 400, so it is no operator's concern (scanners and broken clients would fill the
# log with warnings). Such lines go out at INFO instead, and only when INFO is on.
CLIENT_FAULTS = frozenset({"Invalid HTTP request received.", "Unsupported upgrade request."})


class ClientFaultsAtInfo(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.WARNING and record.msg in CLIENT_FAULTS:
            record.levelno, record.levelname = logging.INFO, "INFO"
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)
        return True


def client_faults_at_info(logger_name: str = "uvicorn.error") -> None:
    """Install the filter once on uvicorn's logger (after uvicorn configured its logging)."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, ClientFaultsAtInfo) for f in logger.filters):
        logger.addFilter(ClientFaultsAtInfo())


def setup_logging(level: str = "info", fmt: str = "text") -> None:
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
