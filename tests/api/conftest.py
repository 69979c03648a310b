from __future__ import annotations

from api_helpers import clock

__all__ = ["clock"]
