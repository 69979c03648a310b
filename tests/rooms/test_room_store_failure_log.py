"""Store failures are logged without flooding the log: while the database is away every
room fails and retries once a second, and each failure used to log a whole traceback."""

from __future__ import annotations

import logging
import time

import pytest

from spades.rooms.writes import StoreFailures

log = logging.getLogger("spades.test.store_failures")


def fail(failures: StoreFailures, code: str, n: int) -> None:
    try:
        raise ConnectionRefusedError("the database is away")
    except ConnectionRefusedError:
        failures.log(log, code, "room %s: storing action %s failed", code, n)


def test_one_failure_in_full_then_a_count(caplog: pytest.LogCaptureFixture) -> None:
    failures = StoreFailures(every=0.2)
    with caplog.at_level(logging.ERROR, logger=log.name):
        for n in range(500):  # an outage's first second at 500 rooms
            fail(failures, f"R{n % 250}", n)
        assert len(caplog.records) == 1
        first = caplog.records[0]
        assert first.exc_info is not None and first.getMessage().endswith("action 0 failed")
        time.sleep(0.25)
        fail(failures, "R7", 500)
    summary, full = caplog.records[1:]
    assert summary.exc_info is None
    text = summary.getMessage()
    assert text.startswith("499 more store failure(s) in 250 room(s)")
    assert "action 499 failed (ConnectionRefusedError('the database is away'))" in text
    assert full.exc_info is not None and full.getMessage().endswith("action 500 failed")
