"""`make test`'s pytest: the browser tests and the rest of the suite side by side.

The browser tests (tests/e2e) spend most of their time waiting for Chromium and for the
server they drive (about a third of their wall time is CPU), so on a machine with two
cores they run in a second pytest process beside the rest instead of after it. They cannot
share one process with the asyncio tests anyway (Playwright's sync API keeps an event loop
in the main thread), and they use neither PostgreSQL nor Redis, so the two processes share
nothing but the CPU. The rest runs on two pytest-xdist workers.

With arguments (`make test PYTEST_ARGS="tests/engine -x"`), one pytest runs with exactly
those. The rest of the suite prints as it goes; the browser tests' output follows it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time

E2E = "tests/e2e"
# The rest of the suite runs on two pytest-xdist workers: most of its time is spent
# waiting (servers starting, leases lapsing, sockets answering), so one process used
# under one core. Each file stays on one worker, and the cluster tests share one
# (tests/suite_order.py's scheduler).
XDIST = ["-n", "2"]
# Schemathesis gives its generated tests one node id, which xdist cannot schedule: the file
# runs in the browser tests' pytest instead (before them: tests/suite_order.py).
SCHEMATHESIS = "tests/api/test_api_schemathesis.py"


def main(args: list[str]) -> int:
    pytest = [sys.executable, "-m", "pytest"]
    if args:
        return subprocess.call([*pytest, *args])
    started = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as e2e_log:
        browser = subprocess.Popen(
            # One rerun of a failed browser test: beside the rest of the suite on two
            # cores, a test waiting on Chromium's timing failed now and then in CI while
            # passing every time alone. A rerun shows as R in the output, and a test that
            # fails twice still fails the suite.
            [*pytest, E2E, SCHEMATHESIS, "-p", "no:cacheprovider", "--reruns", "1"],
            stdout=e2e_log,
            stderr=subprocess.STDOUT,
        )
        try:
            rest = subprocess.call([*pytest, "--ignore", E2E, "--ignore", SCHEMATHESIS, *XDIST])
        finally:
            browser_rc = browser.wait()
        e2e_log.seek(0)
        print(f"\n===== {E2E} (run beside the rest) =====", flush=True)
        sys.stdout.write(e2e_log.read())
    took = time.monotonic() - started
    print(
        f"\nsuite: rest of the tests exit {rest}, {E2E} exit {browser_rc}, {took:.0f} s in all",
        flush=True,
    )
    return rest or browser_rc


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
