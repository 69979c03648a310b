"""How every test reads the CI environment variable: one rule for all skip decisions.

`CI=true` or `CI=1` (any case; `yes` too) means the run must be complete: a test whose
service (PostgreSQL, Chromium, ...) is missing fails instead of skipping, and the
CI-only tests (the `bench_smoke` mark) run.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def skip_or_fail(reason: str) -> NoReturn:
    """Skip with `reason`; under CI, fail with it (the service must be there)."""
    if in_ci():
        pytest.fail(f"CI is set, so this must run: {reason}", pytrace=False)
    pytest.skip(reason)


# The bench smoke tests (about 50 s) run in CI only.
bench_smoke = [
    pytest.mark.bench_smoke,
    pytest.mark.skipif(not in_ci(), reason="bench smoke test: runs when CI=true or CI=1"),
]
