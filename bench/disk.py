"""How long this disk takes to make a small write durable (not part of the tests).

    python -m bench.disk [--syncs 2000] [--repeat 3] [--dir /tmp]

Every SQLite commit of the action log ends in an `fdatasync` of its WAL file (`PRAGMA
synchronous = FULL`: an appended action is on disk before anyone sees it), and so does
every PostgreSQL commit. On a shared machine that call sometimes takes most of a second;
every action of the batch being committed, and of the batches behind it, waits as long.
`bench.load` prints the commit's max (`commit_ms_max_le`); this prints the disk's own
figures with nothing else of the server involved: the latency of `--syncs` appends of 200
bytes, each followed by `fdatasync`, as p50 / p99 / p99.9 / max per run, and how many took
over 100 ms. With `--repeat`, the min / median / max of each over the runs.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from bench.load import percentile, spread


def one_run(folder: str, syncs: int) -> dict[str, float]:
    fd, path = tempfile.mkstemp(prefix="spades-disk-", dir=folder)
    times: list[float] = []
    try:
        record = b"x" * 200
        for _ in range(syncs):
            start = time.perf_counter()
            os.write(fd, record)
            os.fdatasync(fd)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        os.close(fd)
        os.unlink(path)
    return {
        "p50_ms": round(percentile(times, 0.5), 3),
        "p99_ms": round(percentile(times, 0.99), 3),
        "p999_ms": round(percentile(times, 0.999), 3),
        "max_ms": round(max(times), 3),
        "over_100ms": float(sum(t > 100 for t in times)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--syncs", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="a folder on the disk")
    args = parser.parse_args()
    runs = []
    for i in range(max(1, args.repeat)):
        result = one_run(args.dir, args.syncs)
        runs.append(result)
        print(json.dumps({"run": i + 1, "syncs": args.syncs, **result}), flush=True)
    if len(runs) > 1:
        summary = {key: spread([r[key] for r in runs]) for key in runs[0]}
        print(json.dumps({"repeat": len(runs), "dir": args.dir, **summary}), flush=True)


if __name__ == "__main__":
    main()
