"""Instructions the server executes per accepted action, counted by callgrind (issue 19).

    python -m bench.instructions                      # 30 four-human rooms, a 60 s window
    python -m bench.instructions --repeat 3           # three fresh servers: min / median / max
    python -m bench.instructions --rooms 20 --seconds 30 --commit-interval 0.1
    python -m bench.instructions --postgres           # the store on the local PostgreSQL

The same load as `bench.load --kind humans` (rooms of four human clients over real
WebSockets), but the server runs under `valgrind --tool=callgrind`, which counts every
instruction the server process executes in user space during the measured window (the
kernel's share, socket writes included, is not counted; neither is the SQLite writer process
nor PostgreSQL). The count does not depend on what else the machine is doing, so two
versions of the code can be compared on a shared, noisy machine in one run each, where CPU
seconds need several interleaved runs. It is a proxy, not the issue's figure: `bench.load` measures
CPU time, which also pays for cache misses and the kernel.

Under callgrind the server runs some thirty times slower, so the load is small (30 rooms,
0.5 s think time, about 50 actions/s) and commits are held longer (`--commit-interval`,
default 0.1 s) so that each carries about as many actions as at 1,000 rooms on a real
server (5 to 10). Needs valgrind (`apt-get install valgrind`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import load


class CallgrindServer(load.ServerProcess):
    """`spades serve` under callgrind, counting only between `window_opens` and
    `window_closes`."""

    ready_seconds = 600.0

    def __init__(self, database_url: str, out_dir: Path, commit_interval: float) -> None:
        self.out_dir = out_dir
        super().__init__(
            database_url,
            "basic",
            prefix=[
                "valgrind",
                "--quiet",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={out_dir}/callgrind.%p",
            ],
            settings={"SPADES_COMMIT_INTERVAL": str(commit_interval)},
        )
        self.instructions: int | None = None

    def _control(self, *args: str) -> None:
        subprocess.run(
            ["callgrind_control", *args, str(self.proc.pid)],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def window_opens(self) -> None:
        self._control("--instr=on")

    def window_closes(self) -> None:
        self._control("--dump")
        self._control("--instr=off")
        dumps = sorted(self.out_dir.glob(f"callgrind.{self.proc.pid}.*"), key=os.path.getmtime)
        if not dumps:
            raise RuntimeError("callgrind wrote no dump")
        for line in dumps[-1].read_text().splitlines():
            if line.startswith("summary:"):
                self.instructions = int(line.split()[1])
                return
        raise RuntimeError(f"no summary in {dumps[-1]}")


def one_run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as cleanup:
        url = f"sqlite+aiosqlite:///{tmp}/load.db"
        if args.postgres:  # a throwaway database, as bench.load's
            from sqlalchemy.engine import make_url

            from bench.procs import PG_ADMIN, pg_admin

            database = f"spades_instructions_{os.getpid()}_{time.monotonic_ns()}"
            pg_admin(f'CREATE DATABASE "{database}"')
            cleanup.callback(pg_admin, f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            url = make_url(PG_ADMIN).set(database=database).render_as_string(False)
        server = CallgrindServer(url, Path(tmp), args.commit_interval)
        load.RESULTS.clear()
        try:
            load.run(load.run_load(load_args(args), server))
        finally:
            server.stop()
        if not load.RESULTS or server.instructions is None:
            raise RuntimeError("the window was not measured")
        out = load.RESULTS[-1]
        actions = (out.get("server") or {}).get("actions_accepted") or 0
        if not actions:
            raise RuntimeError("no action was accepted in the window")
        return {
            "instructions": server.instructions,
            "actions": actions,
            "instructions_per_action": round(server.instructions / actions),
            "actions_per_commit_p50_le": out["server"].get("commit_actions_p50_le"),
            "errors": out["errors"],
            "disconnects": out["disconnects"],
        }


def load_args(args: argparse.Namespace) -> argparse.Namespace:
    """bench.load's options for one window of four-human rooms, in one driver process."""
    return load.build_parser().parse_args(
        [
            "--kind=humans",
            f"--rooms={args.rooms}",
            f"--think={args.think}",
            f"--seconds={args.seconds}",
            f"--warmup={args.warmup}",
            f"--spread={args.spread}",
            f"--seed={args.seed}",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rooms", type=int, default=30)
    parser.add_argument("--think", type=float, default=0.5, help="seconds, ±50 %% jitter")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=20.0)
    parser.add_argument("--spread", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commit-interval", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--postgres", action="store_true", help="the local PostgreSQL (a throwaway database)"
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("bench.instructions needs valgrind (Debian: apt-get install valgrind)")
    args.rooms = min(args.rooms, 200)
    args.seconds = min(args.seconds, 600.0)
    runs = []
    for i in range(max(1, args.repeat)):
        started = time.monotonic()
        run = one_run(args)
        run["run"] = i + 1
        run["seconds"] = round(time.monotonic() - started)
        print(json.dumps(run), flush=True)
        runs.append(run)
    per_action = sorted(r["instructions_per_action"] for r in runs)
    print(
        json.dumps(
            {
                "instructions_per_action": {
                    "min": per_action[0],
                    "median": round(statistics.median(per_action)),
                    "max": per_action[-1],
                },
                "runs": len(runs),
            }
        ),
        flush=True,
    )
    print(f"server instructions per action: {round(statistics.median(per_action))}", flush=True)


if __name__ == "__main__":
    main()
