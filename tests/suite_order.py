"""A pytest plugin (loaded by `-p suite_order` in pyproject.toml) that orders the suite.

Not a conftest.py: test folders import helpers from their own conftest modules by name.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Browser tests last: Playwright's sync API keeps an event loop running in the main
    # thread for the whole session, and asyncio tests cannot start their own loop after it.
    # The cluster tests first: the longest unit of work for pytest-xdist (see _scope) starts
    # at once rather than last, alone, on one worker.
    items.sort(
        key=lambda item: (
            item.get_closest_marker("e2e") is not None or item.nodeid.startswith("tests/e2e/"),
            not item.nodeid.startswith("tests/cluster/"),
        )
    )
    seen: set[str] = set()
    for item in items:
        # pytest-xdist schedules by node id, and schemathesis gives all of one test's
        # operations one node id: under xdist it ran one operation of 44 without a word.
        # tests/run_suite.py runs that file outside xdist; this stops a silent loss again.
        if hasattr(config, "workerinput") and item.nodeid in seen:
            raise pytest.UsageError(f"{item.nodeid}: one node id for several tests under xdist")
        seen.add(item.nodeid)


def _scope(nodeid: str) -> str:
    """The unit of work one pytest-xdist worker takes whole: a file (its module's server
    starts once), or all the cluster tests together (two clusters of server processes and
    HAProxy never compete for the two cores while each times leases and failovers)."""
    path = nodeid.split("::", 1)[0]
    return "tests/cluster" if path.startswith("tests/cluster/") else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    # (Not `--dist loadgroup` with xdist_group marks: under pytest 9 the marks did not
    # group, and a module's tests ran on both workers, each starting its servers.)
    from xdist.scheduler import LoadScopeScheduling

    class ByFile(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope(nodeid)

    return ByFile(config, log)
