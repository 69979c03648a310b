from __future__ import annotations

from room_helpers import clock, db_url, store

__all__ = ["clock", "db_url", "store"]
