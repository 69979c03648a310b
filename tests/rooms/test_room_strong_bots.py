"""Strong bots in a room through the real process pool; fallbacks to basic are counted."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from room_helpers import Conn, first_legal, make_settings, settle

from spades.rooms import BotRunner, ManualClock, Observer, RoomConfig, RoomManager
from spades.rooms.bots import pool_size


class Recorder(Observer):
    def __init__(self) -> None:
        self.decisions: Counter[str] = Counter()
        self.fallbacks: Counter[str] = Counter()
        self.cuts: Counter[str] = Counter()
        self.thin: Counter[str] = Counter()

    def bot_decision(self, level: str, seconds: float) -> None:
        self.decisions[level] += 1

    def bot_fallback(self, level: str) -> None:
        self.fallbacks[level] += 1

    def bot_search_cut(self, level: str) -> None:
        self.cuts[level] += 1

    def bot_search_thin(self, level: str) -> None:
        self.thin[level] += 1


async def test_a_solo_room_of_strong_bots_plays_through_the_process_pool(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    settings = make_settings(
        tmp_path, bot_workers="process", bot_processes=2, strong_bot_budget=60.0
    )
    recorder = Recorder()
    manager = RoomManager(store, RoomConfig.pick(settings), clock=clock, observer=recorder)
    assert manager.bots.processes == 2
    await manager.start()
    try:
        room, _, token = await manager.create_solo(
            "Ann", {"mode": "individual", "target": 100, "bot_level": "strong"}
        )
        conn = Conn()
        await room.call(room.attach, conn, token)
        acted = -1
        while True:
            await settle(lambda a=acted: _my_turn(conn, a), rounds=120_000)
            state = conn.last_state()
            if state["view"]["phase"] == "over" or state["view"]["hand_number"] > 1:
                break  # one whole hand is enough
            acted = state["seq"]
            await room.call(room.handle, conn, first_legal("basic", state["view"]))
        assert recorder.decisions["strong"] >= 39  # three seats' bids and cards of a hand
        assert recorder.fallbacks["strong"] == 0
        assert recorder.cuts["strong"] == 0  # 60 s: every search ran its iterations
    finally:
        await manager.stop()


def _my_turn(conn: Conn, acted: int) -> bool:
    states = conn.states()
    if not states or states[-1]["view"] is None:
        return False
    view = states[-1]["view"]
    return view["phase"] == "over" or (bool(view["legal"]) and states[-1]["seq"] > acted)


async def test_a_strong_decision_over_its_budget_falls_back_to_basic_and_is_counted() -> None:
    release = threading.Event()
    seen: list[str] = []

    def slow(level: str, view: dict[str, Any], *, seed: int | None = None) -> dict[str, Any]:
        seen.append(level)
        if level == "strong":
            release.wait(30)
        return dict(view["legal"][-1])

    recorder = Recorder()
    runner = BotRunner(slow, workers="thread", budget=0.05)
    runner.observer = recorder
    legal = [{"type": "play", "card": "2C"}, {"type": "play", "card": "3C"}]
    try:
        assert await runner.decide("strong", {"legal": legal}, 1) == legal[-1]
    finally:
        release.set()
        runner.close()
    assert seen == ["strong", "basic"]
    assert recorder.fallbacks["strong"] == 1 and recorder.decisions["strong"] == 1
    # One legal action: answered at once, no search, no fallback.
    assert await runner.decide("strong", {"legal": legal[:1]}, 1) == legal[0]
    assert recorder.fallbacks["strong"] == 1


def test_the_pool_is_sized_from_the_setting_or_the_cores() -> None:
    assert pool_size(3) == 3
    assert pool_size(0) >= 1


async def test_the_iterations_setting_sizes_the_servers_search() -> None:
    """SPADES_STRONG_ITERATIONS reaches the search: the room's answer is the bot's own answer
    at that many rollouts and the same seed (a fixed search gives one answer), and on these
    views that answer is not always the one of the default search (the setting matters)."""
    from spades.bots.strong import decide_strong
    from spades.engine import Game, Rules

    game = Game.new(Rules(), seed="iterations", dealer=1)
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        game.apply(seat, first_legal("basic", game.view(seat)))
    runner = BotRunner(workers="thread", budget=60.0, iterations=30)
    differs = 0
    try:
        for step in range(8):
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            action = await runner.decide("strong", view, step)
            assert action == decide_strong(view, seed=step, iterations=30)
            differs += action != decide_strong(view, seed=step)
            game.apply(seat, action)
    finally:
        runner.close()
    assert differs > 0


async def test_a_search_its_safety_cap_stops_plays_its_best_card_and_is_counted() -> None:
    """The real worker with a budget far too small for 800 rollouts: the search is cut at
    40% of it, a legal card still comes back (no fallback), and the cut is counted."""
    from spades.engine import Game, Rules

    recorder = Recorder()
    runner = BotRunner(workers="process", processes=1, budget=0.05)
    runner.observer = recorder
    game = Game.new(Rules(), seed="cut", dealer=3)
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        game.apply(seat, first_legal("basic", game.view(seat)))
    try:
        await runner.decide("strong", game.view(game.to_act or 0), 1)  # starts the worker
        cuts_before = recorder.cuts["strong"]
        view = game.view(game.to_act or 0)
        action = await runner.decide("strong", view, 2)
        assert action in view["legal"]
        assert recorder.fallbacks["strong"] == 0
        assert recorder.cuts["strong"] == cuts_before + 1
    finally:
        runner.close()


async def test_closing_the_runner_ends_its_workers_even_mid_search() -> None:
    """A server stopped while strong bots think must not leave their processes behind."""
    from spades.engine import Game, Rules

    runner = BotRunner(workers="process", processes=2, budget=60.0, iterations=1_000_000)
    game = Game.new(Rules(), seed="close", dealer=3)
    while game.phase == "bidding":
        seat = game.to_act
        assert seat is not None
        game.apply(seat, first_legal("basic", game.view(seat)))
    view = game.view(game.to_act or 0)
    thinking = asyncio.create_task(runner.decide("strong", view, 1))
    pool: Any = None
    for _ in range(600):  # the workers start, then one takes the search
        await asyncio.sleep(0.05)
        pool = runner._pool
        if pool is not None and runner._ready is not None and runner._ready.done():
            break
    await asyncio.sleep(0.3)
    workers = list(pool._processes.values())
    assert len(workers) == 2 and all(w.is_alive() for w in workers)
    runner.close()
    # close() terminates, then kills, and joins each worker; the executor's own thread
    # may reap a worker at the same instant, and Process.is_alive() answers True for the
    # moment between that thread's waitpid and its recording of the exit code. A worker
    # that survived would still be alive seconds later.
    for _ in range(100):
        if not any(w.is_alive() for w in workers):
            break
        await asyncio.sleep(0.1)
    assert not any(w.is_alive() for w in workers)
    action = await asyncio.wait_for(thinking, 30)  # the search's room gets a move anyway
    assert action in view["legal"]


# A server process that starts its strong bots' workers, prints their process ids, and
# waits to be killed.
_POOL_OWNER = """
import asyncio, sys
from spades.rooms.bots import BotRunner

async def main():
    runner = BotRunner(workers="process", processes=2)
    runner._executor()
    pids = await runner._ready
    print(" ".join(str(p) for p in pids), flush=True)
    await asyncio.sleep(600)

asyncio.run(main())
"""


def test_the_workers_end_when_the_server_is_killed(tmp_path: Path) -> None:
    """kill -9 of the server runs none of its shutdown: its strong bots' workers notice
    their parent is gone and end (they were left for ever, 40 MB each)."""
    import contextlib
    import os
    import signal
    import subprocess
    import sys
    import time

    owner = subprocess.Popen(
        [sys.executable, "-c", _POOL_OWNER],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # its resource tracker's note on the semaphores it held
        text=True,
        cwd=tmp_path,
    )
    pids: list[int] = []
    try:
        assert owner.stdout is not None
        pids = [int(p) for p in owner.stdout.readline().split()]
        assert len(pids) == 2
        owner.send_signal(signal.SIGKILL)
        owner.wait(10)

        def alive(pid: int) -> bool:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            # A zombie (ended, not yet reaped by init) is gone for this purpose.
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] != "Z"

        deadline = time.monotonic() + 10
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(p) for p in pids)
    finally:
        if owner.poll() is None:
            owner.kill()
        for pid in pids:  # a failed run leaves nothing behind either
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
