"""`spades simulate`: many bot games between levels, duplicate deals, and a report.

Every deal is replayed with the seats rotated so each configured side holds every side's
cards once (two rotations in partnership, four in individual play): luck of the cards
cancels. `--preset` plays a named set of house rules (`spades.engine.RULE_PRESETS`)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spades.engine import RULE_PRESETS, Game, Rules

from . import LEVELS, decide
from .args import non_negative_float, positive_int
from .simulate_print import print_report

MAX_HANDS = 200  # a game that never reaches the target (random bots) stops here


@dataclass
class SideStats:
    hands: int = 0
    contracts: int = 0
    contracts_made: int = 0
    bid_tricks: int = 0
    taken_tricks: int = 0  # tricks of the non-nil bidders, when the side had a contract
    bags: int = 0
    nil: int = 0
    nil_made: int = 0
    blind_nil: int = 0
    blind_nil_made: int = 0
    blind_bids: int = 0  # blind numbers (Blind 6+), and the side's contracts made with one
    blind_bids_made: int = 0

    def add(self, other: SideStats) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class GameResult:
    winner: int | None  # configured side, None when capped without a single leader
    hands: int
    sides: list[SideStats]
    times: dict[str, list[float]] = field(default_factory=dict)  # level -> seconds per decision
    cpu: dict[str, list[float]] = field(default_factory=dict)  # the same, CPU seconds
    diffs: list[list[float]] = field(default_factory=list)  # per configured side, per hand


def rotations(mode: str) -> int:
    return 2 if mode == "partnership" else 4


def play_game(
    levels: list[str],
    rules: Rules,
    deal_seed: str,
    rotation: int,
    bot_seed: int,
    strong_iterations: int | None = None,
    strong_budget_ms: float | None = None,
) -> GameResult:
    """One game; seat s is played by the bot configured for seat (s + rotation) % 4."""
    partnership = rules.mode == "partnership"
    n_sides = 2 if partnership else 4
    game = Game.new(rules, seed=deal_seed, dealer=0)
    times: dict[str, list[float]] = {lv: [] for lv in set(levels)}
    cpu: dict[str, list[float]] = {lv: [] for lv in set(levels)}
    seat_level = [levels[(s + rotation) % 4] for s in range(4)]

    def config_side(engine_side: int) -> int:
        return (engine_side + rotation) % n_sides

    sides = [SideStats() for _ in range(n_sides)]
    diffs: list[list[float]] = [[] for _ in range(n_sides)]
    step = 0
    while game.phase != "over" and game.hand_number <= MAX_HANDS:
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        level = seat_level[seat]
        step += 1
        start = time.perf_counter()
        start_cpu = time.thread_time()
        if level == "strong" and (strong_iterations or strong_budget_ms):
            from .strong import decide_strong

            action = decide_strong(
                view,
                seed=bot_seed * 1_000_003 + step,
                iterations=strong_iterations,
                budget_ms=strong_budget_ms,
            )
        else:
            action = decide(level, view, seed=bot_seed * 1_000_003 + step)
        times[level].append(time.perf_counter() - start)
        cpu[level].append(time.thread_time() - start_cpu)
        if action not in view["legal"]:
            raise RuntimeError(f"{level} bot chose {action} outside legal {view['legal']}")
        before = len(game.history)
        game.apply(seat, action)
        if len(game.history) > before:
            _count_hand(game.history[-1], rules, sides, config_side)
            points = game.history[-1]["points"]
            for engine_side, own in enumerate(points):
                others = (sum(points) - own) / (n_sides - 1)
                diffs[config_side(engine_side)].append(own - others)
    winner: int | None
    if game.winner is not None:
        winner = config_side(game.winner)
    else:
        best = max(game.scores)
        leaders = [s for s, v in enumerate(game.scores) if v == best]
        winner = config_side(leaders[0]) if len(leaders) == 1 else None
    return GameResult(
        winner=winner,
        hands=len(game.history),
        sides=sides,
        times=times,
        cpu=cpu,
        diffs=diffs,
    )


def _count_hand(
    entry: dict[str, Any], rules: Rules, sides: list[SideStats], config_side: Any
) -> None:
    bids = entry["bids"]
    tricks = entry["tricks"]
    for engine_side, st in enumerate(sides):
        st = sides[config_side(engine_side)]
        seats = rules.seats_of(engine_side)
        st.hands += 1
        st.bags += entry["bags_added"][engine_side]
        contract = 0
        taken = 0
        blind = False
        for s in seats:
            b = bids[s]
            if isinstance(b, int) and entry["blind"][s]:
                blind = True
                st.blind_bids += 1
            if isinstance(b, str):
                if b == "blind nil":
                    st.blind_nil += 1
                    st.blind_nil_made += tricks[s] == 0
                else:
                    st.nil += 1
                    st.nil_made += tricks[s] == 0
            else:
                contract += b
                taken += tricks[s]
        if contract > 0:
            st.contracts += 1
            st.contracts_made += bool(entry["contract_made"][engine_side])
            st.blind_bids_made += blind and bool(entry["contract_made"][engine_side])
            st.bid_tricks += contract
            st.taken_tricks += taken


def _job(args: tuple[Any, ...]) -> GameResult:
    return play_game(*args)


class ResultsFile:
    """One JSON line per finished game, after a header line naming the run. A run given
    the same file again skips the games already in it: games are independent and each is
    fixed by its index (deal, rotation and bot seeds), so a stopped run resumes where it
    stopped and its report is the same as an unbroken run's."""

    def __init__(self, path: Path, header: dict[str, Any]) -> None:
        self.path = path
        self.done: dict[int, GameResult] = {}
        if path.exists() and path.stat().st_size > 0:
            lines = path.read_text().splitlines()
            if json.loads(lines[0]) != header:
                raise ValueError(
                    f"{path} holds another run ({lines[0]}); use a new file for this one"
                )
            for line in lines[1:]:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    break  # a line cut short when the run was killed: play that game again
                self.done[row["game"]] = _result_from(row["result"])
            # drop anything after the last whole line
            path.write_text(
                "\n".join(
                    [lines[0]]
                    + [
                        json.dumps({"game": g, "result": asdict(r)})
                        for g, r in sorted(self.done.items())
                    ]
                )
                + "\n"
            )
        else:
            path.write_text(json.dumps(header) + "\n")

    def add(self, game: int, result: GameResult) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps({"game": game, "result": asdict(result)}) + "\n")


def _result_from(row: dict[str, Any]) -> GameResult:
    return GameResult(
        winner=row["winner"],
        hands=row["hands"],
        sides=[SideStats(**st) for st in row["sides"]],
        times=row["times"],
        cpu=row["cpu"],
        diffs=row["diffs"],
    )


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: list[float], z: float = 1.96) -> dict[str, float | None]:
    """Mean with a normal-approximation 95% confidence interval."""
    n = len(values)
    if n == 0:
        return {"mean": None, "lo": None, "hi": None, "n": 0}
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(var / n)
    lo, hi = round(mean - half, 2), round(mean + half, 2)
    return {"mean": round(mean, 2), "lo": lo, "hi": hi, "n": n}


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))
    return ordered[k]


def simulate(
    levels: list[str],
    rules: Rules,
    games: int,
    seed: int,
    *,
    duplicate: bool = True,
    workers: int = 1,
    strong_iterations: int | None = None,
    strong_budget_ms: float | None = None,
    progress: bool = False,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
    checkpoint_every: int = 10,
    results_file: Path | None = None,
) -> dict[str, Any]:
    """Play the games and report. `checkpoint`, if given, gets the report of the games so
    far every `checkpoint_every` games, so a long run that is stopped still tells something.
    `results_file` keeps every finished game; a run given it again plays only the rest."""
    rot = rotations(rules.mode) if duplicate else 1
    jobs = []
    for g in range(games):
        deal = g // rot if duplicate else g
        jobs.append(
            (
                levels,
                rules,
                f"sim:{seed}:{deal}",
                g % rot,
                seed * 100_003 + g,
                strong_iterations,
                strong_budget_ms,
            )
        )
    saved = None
    if results_file is not None:
        header = {
            "levels": levels,
            "rules": rules.to_dict(),
            "seed": seed,
            "duplicate": duplicate,
            "strong_iterations": strong_iterations,
            "strong_budget_ms": strong_budget_ms,
        }
        saved = ResultsFile(results_file, header)
    done = {} if saved is None else {g: r for g, r in saved.done.items() if g < games}
    todo = [g for g in range(games) if g not in done]
    results: list[GameResult] = [done[g] for g in sorted(done)]
    started = time.perf_counter()
    for index, result in zip(todo, _run([jobs[g] for g in todo], workers, progress), strict=True):
        results.append(result)
        if saved is not None:
            saved.add(index, result)
        if checkpoint is not None and len(results) % checkpoint_every == 0:
            checkpoint(report(levels, rules, results, time.perf_counter() - started, duplicate))
    elapsed = time.perf_counter() - started
    return report(levels, rules, results, elapsed, duplicate)


def _run(jobs: list[tuple[Any, ...]], workers: int, progress: bool) -> Iterator[GameResult]:
    def produce() -> Iterator[GameResult]:
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                yield from pool.map(_job, jobs, chunksize=1)
        else:
            for job in jobs:
                yield _job(job)

    if not progress:
        yield from produce()
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=_stderr_console(),
        transient=True,
    ) as bar:
        task = bar.add_task("games", total=len(jobs))
        for result in produce():
            bar.advance(task)
            yield result


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def report(
    levels: list[str],
    rules: Rules,
    results: list[GameResult],
    elapsed: float,
    duplicate: bool,
) -> dict[str, Any]:
    n_sides = 2 if rules.mode == "partnership" else 4
    seats_of = [rules.seats_of(s) for s in range(n_sides)]
    labels = ["+".join(levels[s] for s in seats) for seats in seats_of]
    wins = [0] * n_sides
    draws = 0
    hands = 0
    totals = [SideStats() for _ in range(n_sides)]
    times: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    diffs: list[list[float]] = [[] for _ in range(n_sides)]
    for r in results:
        for i, d in enumerate(r.diffs):
            diffs[i].extend(d)
        if r.winner is None:
            draws += 1
        else:
            wins[r.winner] += 1
        hands += r.hands
        for i, st in enumerate(r.sides):
            totals[i].add(st)
        for level, ts in r.times.items():
            times.setdefault(level, []).extend(ts)
        for level, ts in r.cpu.items():
            cpu.setdefault(level, []).extend(ts)
    n = len(results)

    def pct(a: int, b: int) -> float | None:
        return round(100 * a / b, 1) if b else None

    return {
        "mode": rules.mode,
        "target": rules.target,
        "seats": levels,
        "sides": labels,
        "duplicate": duplicate,
        "games": n,
        "hands": hands,
        "draws": draws,
        "wins": wins,
        "win_rate": [round(w / n, 4) if n else 0.0 for w in wins],
        "ci95": [[round(x, 4) for x in wilson(w, n)] for w in wins],
        "contracts_made_pct": [pct(t.contracts_made, t.contracts) for t in totals],
        "nil_attempts": [t.nil for t in totals],
        "nil_made_pct": [pct(t.nil_made, t.nil) for t in totals],
        "blind_nil_attempts": [t.blind_nil for t in totals],
        "blind_nil_made_pct": [pct(t.blind_nil_made, t.blind_nil) for t in totals],
        "blind_bid_attempts": [t.blind_bids for t in totals],
        "blind_bid_made_pct": [pct(t.blind_bids_made, t.blind_bids) for t in totals],
        "bags_per_hand": [round(t.bags / t.hands, 3) if t.hands else 0.0 for t in totals],
        "point_diff_per_hand": [mean_ci(d) for d in diffs],
        "tricks_per_bid": [
            round(t.taken_tricks / t.bid_tricks, 3) if t.bid_tricks else None for t in totals
        ],
        "decision_ms": {
            level: {
                "n": len(ts),
                "p50": round(1000 * percentile(ts, 50), 3),
                "p99": round(1000 * percentile(ts, 99), 3),
                "max": round(1000 * max(ts), 3) if ts else 0.0,
                "cpu_p50": round(1000 * percentile(cpu.get(level, []), 50), 3),
                "cpu_p99": round(1000 * percentile(cpu.get(level, []), 99), 3),
            }
            for level, ts in sorted(times.items())
        },
        "seconds": round(elapsed, 1),
    }


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("partnership", "individual"), default="partnership")
    parser.add_argument(
        "--games", type=positive_int, default=100, help="games to play (default 100)"
    )
    parser.add_argument("--target", type=int, default=500, help="target score (default 500)")
    parser.add_argument(
        "--seats",
        default=None,
        help="four levels, seat 0..3, e.g. strong,basic,strong,basic "
        "(default: basic,random,basic,random; individual: basic,random,random,random)",
    )
    parser.add_argument("--preset", choices=list(RULE_PRESETS), help="a set of house rules")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=positive_int, default=1, help="processes (default 1)")
    parser.add_argument(
        "--no-duplicate", action="store_true", help="independent deals instead of duplicate"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--strong-iterations",
        type=positive_int,
        default=None,
        help="strong bot: fixed rollouts per decision (default: its own setting)",
    )
    parser.add_argument(
        "--strong-budget-ms",
        type=non_negative_float,
        default=None,
        help="strong bot: time budget per decision in ms (default: its own setting)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--checkpoint",
        default=None,
        metavar="FILE",
        help="write the JSON report of the games so far to FILE every 10 games",
    )
    parser.add_argument(
        "--results",
        default=None,
        metavar="FILE",
        help="keep every finished game in FILE (JSON lines); run again with the same FILE "
        "to resume a stopped run where it stopped",
    )
    parser.add_argument(
        "--rules", default=None, help="other rule options as JSON, e.g. '{\"blind_nil\": false}'"
    )


def _writer(path: str) -> Callable[[dict[str, Any]], None]:
    def write(rep: dict[str, Any]) -> None:
        partial = Path(path + ".part")
        partial.write_text(json.dumps(rep))
        partial.replace(path)  # readers never see half a file

    return write


def run(args: argparse.Namespace) -> int:
    seats = args.seats or (
        "basic,random,basic,random" if args.mode == "partnership" else "basic,random,random,random"
    )
    levels = [s.strip() for s in seats.split(",")]
    if len(levels) != 4 or any(lv not in LEVELS for lv in levels):
        return _refuse(f"--seats needs four of {', '.join(LEVELS)}, got {seats!r}")
    try:
        extra = json.loads(args.rules) if args.rules else {}
    except json.JSONDecodeError as exc:
        return _refuse(f"--rules is not JSON ({exc.msg}): {args.rules!r}")
    preset = RULE_PRESETS[args.preset or "Classic"]
    try:
        rules = Rules.from_dict({**preset, **extra, "mode": args.mode, "target": args.target})
    except (ValueError, TypeError) as exc:
        return _refuse(f"bad rules: {exc}")
    try:
        rep = _simulate_args(args, levels, rules)
    except ValueError as exc:
        return _refuse(str(exc))
    except OSError as exc:  # --results or --checkpoint cannot be read or written
        return _refuse(f"{exc.strerror}: {exc.filename}")
    if args.json:
        print(json.dumps(rep))
    else:
        print_report(rep)
    return 0


def _refuse(reason: str) -> int:
    """A bad argument: one line on stderr, exit status 2 (argparse's own)."""
    print(f"spades simulate: {reason}", file=sys.stderr)
    return 2


def _simulate_args(args: argparse.Namespace, levels: list[str], rules: Rules) -> dict[str, Any]:
    return simulate(
        levels,
        rules,
        args.games,
        args.seed,
        duplicate=not args.no_duplicate,
        workers=args.workers,
        strong_iterations=args.strong_iterations,
        strong_budget_ms=args.strong_budget_ms,
        progress=not args.no_progress and sys.stderr.isatty(),
        checkpoint=None if args.checkpoint is None else _writer(args.checkpoint),
        results_file=None if args.results is None else Path(args.results),
    )
