"""`spades score FILE|-`: score hand records, one JSON line out per record in."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from spades.engine.errors import RecordError
from spades.engine.record import HandRecordError, score_record


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a JSON hand record, or JSON lines of them; '-' for stdin")


def _records(stream: TextIO) -> list[tuple[int, Any]]:
    """One JSON document, or JSON lines. Returns (line number, value); raises ValueError."""
    text = stream.read()
    stripped = text.strip()
    if not stripped:
        raise ValueError("line 1: no record")
    try:
        return [(1, json.loads(stripped))]
    except json.JSONDecodeError:
        pass
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {number}: not JSON ({exc.msg})") from exc
    return out


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            records = _records(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as fh:
                records = _records(fh)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"spades score: {exc}", file=sys.stderr)
        return 2
    status = 0
    for number, record in records:
        try:
            out: dict[str, Any] = score_record(record)
        except HandRecordError as exc:
            out = {"error": {"index": exc.index, "seat": exc.seat, "reason": exc.reason}}
            status = 1
        except RecordError as exc:
            out = {"error": {"index": None, "seat": None, "reason": f"line {number}: {exc}"}}
            status = 1
        print(json.dumps(out), flush=True)
    return status
