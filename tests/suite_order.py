"""A pytest plugin (loaded by `-p suite_order` in pyproject.toml) that orders the suite.

Not a conftest.py: test folders import helpers from their own conftest modules by name.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Browser tests last: Playwright's sync API keeps an event loop running in the main
    # thread for the whole session, and asyncio tests cannot start their own loop after it.
    items.sort(
        key=lambda item: (
            item.get_closest_marker("e2e") is not None or item.nodeid.startswith("tests/e2e/")
        )
    )
