"""Helpers shared by the store tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FakeClock:
    """An injected clock: tests move time by hand instead of sleeping."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta
