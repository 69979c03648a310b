"""`spades simulate`'s report as tables on the terminal (`--json` prints the report itself)."""

from __future__ import annotations

from typing import Any


def print_report(rep: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    dup = "independent deals"
    if rep["duplicate"]:
        dup = "duplicate deals, " + (
            "sides swapped" if rep["mode"] == "partnership" else "seats rotated four ways"
        )
    console.print(
        f"[bold]{rep['games']} games[/bold], {rep['mode']} to {rep['target']}, {dup}; "
        f"{rep['hands']} hands, {rep['draws']} undecided, {rep['seconds']} s"
    )
    table = Table()
    table.add_column("")
    n_sides = len(rep["sides"])
    for i in range(n_sides):
        table.add_column(f"side {i}", justify="right")

    def row(name: str, cells: list[str]) -> None:
        table.add_row(name, *cells)

    row("bots", list(rep["sides"]))
    row("wins", [str(w) for w in rep["wins"]])
    row("win %", [f"{100 * w:.1f}" for w in rep["win_rate"]])
    row("95% CI", [f"{100 * lo:.1f}-{100 * hi:.1f}" for lo, hi in rep["ci95"]])
    row("contracts made", [_fmt_pct(v) for v in rep["contracts_made_pct"]])
    row(
        "nil tries (made)",
        [
            f"{n} ({_fmt_pct(m)})"
            for n, m in zip(rep["nil_attempts"], rep["nil_made_pct"], strict=True)
        ],
    )
    row(
        "blind nil tries (made)",
        [
            f"{n} ({_fmt_pct(m)})"
            for n, m in zip(rep["blind_nil_attempts"], rep["blind_nil_made_pct"], strict=True)
        ],
    )
    if any(rep.get("blind_bid_attempts") or ()):
        row(
            "blind 6+ bids (made)",
            [
                f"{n} ({_fmt_pct(m)})"
                for n, m in zip(rep["blind_bid_attempts"], rep["blind_bid_made_pct"], strict=True)
            ],
        )
    row("bags per hand", [f"{v:.2f}" for v in rep["bags_per_hand"]])
    row(
        "points per hand vs others (95% CI)",
        [
            "-" if d["mean"] is None else f"{d['mean']:+.1f} ({d['lo']:+.1f} to {d['hi']:+.1f})"
            for d in rep["point_diff_per_hand"]
        ],
    )
    row("tricks per trick bid", ["-" if v is None else f"{v:.2f}" for v in rep["tricks_per_bid"]])
    console.print(table)
    timing = Table(title="decision time, ms (wall clock; CPU of the deciding thread)")
    for col in ("level", "decisions", "p50", "p99", "max", "cpu p50", "cpu p99"):
        timing.add_column(col)
    for level, t in rep["decision_ms"].items():
        timing.add_row(
            level,
            str(t["n"]),
            f"{t['p50']:.3f}",
            f"{t['p99']:.3f}",
            f"{t['max']:.1f}",
            f"{t['cpu_p50']:.3f}",
            f"{t['cpu_p99']:.3f}",
        )
    console.print(timing)


def _fmt_pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}%"
