"""Capacity of strong bots: concurrent solo rooms one server process holds.

    python -m bench.bot_capacity [--rooms 10 20 30] [--seconds 60] [--processes 0]
                                 [--iterations N]

For each room count: one `RoomManager` (a real SQLite store in a temporary directory, the
real process pool of strong bots sized by `--processes`, 0 = the machine's cores, the
default bot delay of 0.8 s, the default 2 s budget and the bot's own iterations, or
`--iterations N` as `SPADES_STRONG_ITERATIONS` would set them), that many solo individual rooms
with three `strong` bots, and in every room a human who answers like the basic bot after
`--think` seconds. After a warm-up it counts for `--seconds`: strong decisions, their wall
time from the room's request to the answer (p50 / p99 / max; it includes the wait for a
free worker), fallbacks to basic, and searches the safety cap cut short (they answered in
time on less search than the bot's iterations; those cut before 16 sampled deals played the
basic plan's move, printed apart). A room count holds when there are no
fallbacks and the p99 is under 1 s, and holds at full search when no search was cut
either. The strong bot's CPU time per decision is in `python -m bench.bots --only timing`.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import tempfile
from pathlib import Path
from typing import Any

from spades.bots import decide
from spades.bots.simulate import percentile
from spades.bots.strong import DEFAULT_ITERATIONS
from spades.config import Settings
from spades.rooms import Observer, RoomConfig, RoomManager
from spades.store import open_store, upgrade

_ids = itertools.count(1)


class Recorder(Observer):
    def __init__(self) -> None:
        self.on = False
        self.wall: list[float] = []
        self.fallbacks = 0
        self.cuts = 0
        self.thin = 0

    def bot_decision(self, level: str, seconds: float) -> None:
        if self.on and level == "strong":
            self.wall.append(seconds)

    def bot_fallback(self, level: str) -> None:
        if self.on:
            self.fallbacks += 1

    def bot_search_cut(self, level: str) -> None:
        if self.on:
            self.cuts += 1

    def bot_search_thin(self, level: str) -> None:
        if self.on:
            self.thin += 1


class Human:
    """A connection that plays seat 0 like the basic bot, after thinking a little."""

    def __init__(self) -> None:
        self.conn_id = next(_ids)
        self.seat: int | None = None
        self.address = "127.0.0.1"
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.event = asyncio.Event()

    def send(self, message: dict[str, Any] | bytes) -> None:
        if isinstance(message, bytes):  # an event comes encoded (docs/protocol.md, "event")
            message = json.loads(message)
        if message["type"] == "event":
            if self.view is None or message["seq"] != self.seq + 1:
                return  # does not follow (never here: the room sends a state then)
            self.view = {**self.view, **message["view"], **message.get("you", {})}
        elif message["type"] == "state":
            view = message["view"]
            if view is not None:  # keys left out are unchanged
                self.view = {**(self.view or {}), **view}
        else:
            return
        self.seq = message["seq"]
        self.event.set()

    def close(self, code: int, reason: str) -> None:
        self.event.set()


async def play_human(room: Any, human: Human, think: float) -> None:
    acted = -1
    while True:
        await human.event.wait()
        human.event.clear()
        view = human.view
        if view is None or human.seq <= acted:
            continue
        if view.get("phase") == "over":
            return
        if not view.get("legal"):
            continue
        acted = human.seq
        await asyncio.sleep(think)
        await room.call(room.handle, human, decide("basic", view))


async def run(
    rooms: int, seconds: float, warmup: float, processes: int, think: float, iterations: int = 0
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'spades.db'}"
        upgrade(url)
        store = await open_store(url)
        settings = Settings(database_url=url, bot_processes=processes, strong_iterations=iterations)
        recorder = Recorder()
        manager = RoomManager(store, RoomConfig.pick(settings), observer=recorder)
        await manager.start()
        tasks = []
        try:
            for _ in range(rooms):
                room, _, token = await manager.create_solo(
                    "Bench", {"mode": "individual", "target": 500, "bot_level": "strong"}
                )
                human = Human()
                await room.call(room.attach, human, token)
                tasks.append(asyncio.create_task(play_human(room, human, think)))
            await asyncio.sleep(warmup)
            recorder.on = True
            await asyncio.sleep(seconds)
            recorder.on = False
        finally:
            for t in tasks:
                t.cancel()
            await manager.stop()
            await store.close()
    wall = recorder.wall
    return {
        "rooms": rooms,
        "processes": manager.bots.processes,
        "iterations": iterations or DEFAULT_ITERATIONS,
        "decisions": len(wall),
        "per_second": round(len(wall) / seconds, 1),
        "p50_ms": round(1000 * percentile(wall, 50), 1),
        "p99_ms": round(1000 * percentile(wall, 99), 1),
        "max_ms": round(1000 * max(wall), 1) if wall else 0.0,
        "fallbacks": recorder.fallbacks,
        # searches the server's safety cap stopped early (less search than the bot's
        # iterations): a room count "holds" on time, but these played on less search
        "search_cut": recorder.cuts,
        "search_cut_pct": round(100 * recorder.cuts / len(wall), 1) if wall else 0.0,
        # of those, cut before enough sampled deals: the basic plan's move was played
        "search_thin": recorder.thin,
        "search_thin_pct": round(100 * recorder.thin / len(wall), 1) if wall else 0.0,
        "holds": recorder.fallbacks == 0 and percentile(wall, 99) < 1.0,
        # and every search ran its full iterations (none cut by the cap)
        "holds_full_search": recorder.fallbacks == 0
        and percentile(wall, 99) < 1.0
        and recorder.cuts == 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, nargs="*", default=[10, 20, 30])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--processes", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=0, help="rollouts; 0 = the bot's own")
    parser.add_argument("--think", type=float, default=0.8, help="the human's seconds per move")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for n in args.rooms:
        row = asyncio.run(
            run(n, args.seconds, args.warmup, args.processes, args.think, args.iterations)
        )
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{row['rooms']:>4} rooms, {row['processes']} processes, {row['iterations']} "
                f"rollouts: {row['decisions']} "
                f"strong decisions ({row['per_second']}/s), wall p50 {row['p50_ms']} ms, "
                f"p99 {row['p99_ms']} ms, max {row['max_ms']} ms, fallbacks "
                f"{row['fallbacks']}, searches cut short {row['search_cut']} "
                f"({row['search_cut_pct']}%), of which basic's move {row['search_thin']} "
                f"({row['search_thin_pct']}%)  -> {'holds' if row['holds'] else 'does not hold'}"
                f"{' at full search' if row['holds_full_search'] else ''}",
                flush=True,
            )


if __name__ == "__main__":
    main()
