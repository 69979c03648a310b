"""A pytest plugin (loaded by `-p suite_order` in pyproject.toml) that orders the suite.

Not a conftest.py: test folders import helpers from their own conftest modules by name.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Browser tests last: Playwright's sync API keeps an event loop running in the main
    # thread for the whole session, and asyncio tests cannot start their own loop after it.
    items.sort(
        key=lambda item: (
            item.get_closest_marker("e2e") is not None or item.nodeid.startswith("tests/e2e/")
        )
    )
    # Under pytest-xdist (`-n N --dist loadgroup`, as tests/run_suite.py runs the suite)
    # a file's tests stay on one worker, so a module's server starts once; the cluster
    # tests all share one worker, so two clusters of server processes and HAProxy never
    # compete for the two cores while each times leases and failovers.
    seen: set[str] = set()
    for item in items:
        # pytest-xdist schedules by node id, and schemathesis gives all of one test's
        # operations one node id: under xdist it ran one operation of 44 without a word.
        # tests/run_suite.py runs that file outside xdist; this stops a silent loss again.
        if hasattr(config, "workerinput") and item.nodeid in seen:
            raise pytest.UsageError(f"{item.nodeid}: one node id for several tests under xdist")
        seen.add(item.nodeid)
        cluster = item.nodeid.startswith("tests/cluster/")
        group = "cluster" if cluster else item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group(group))
