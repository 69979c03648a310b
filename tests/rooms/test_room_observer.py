"""The rooms' observer hooks: called once per stored action, bot decision and store write."""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from room_helpers import Conn, first_legal, manager_for, settle

from spades.rooms import BotRunner, ManualClock, Observer
from spades.rooms.observer import ActionSource


class Recorder(Observer):
    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.latency: Counter[str] = Counter()
        self.bot_levels: Counter[str] = Counter()
        self.appends: list[float] = []

    def action(self, kind: str) -> None:
        self.kinds[kind] += 1

    def action_latency(self, source: ActionSource, seconds: float) -> None:
        assert seconds >= 0
        self.latency[source] += 1

    def bot_decision(self, level: str, seconds: float) -> None:
        assert seconds >= 0
        self.bot_levels[level] += 1

    def store_append(self, seconds: float) -> None:
        assert seconds >= 0
        self.appends.append(seconds)


def my_turn(conn: Conn, acted: int) -> bool:
    states = conn.states()
    if not states or states[-1]["view"] is None:
        return False
    view = states[-1]["view"]
    return view["phase"] == "over" or (bool(view["legal"]) and states[-1]["seq"] > acted)


async def test_every_stored_action_is_observed_once(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    recorder = Recorder()
    manager = manager_for(store, clock, tmp_path, observer=recorder)
    await manager.start()
    room, _, token = await manager.create_solo("Ann", {"mode": "individual", "target": 50})
    conn = Conn()
    await room.call(room.attach, conn, token)
    acted = -1
    while True:
        await settle(lambda a=acted: my_turn(conn, a))
        state = conn.last_state()
        if state["view"]["phase"] == "over":
            break
        acted = state["seq"]
        await room.call(room.handle, conn, first_legal("basic", state["view"]))
    game = room.game
    assert game is not None
    actions = len(game.actions)
    # The last action's figures may be recorded just after its state went out.
    await settle(
        lambda: sum(recorder.kinds.values()) >= actions and len(recorder.appends) >= actions
    )
    assert sum(recorder.kinds.values()) == actions == len(recorder.appends)
    assert recorder.kinds["play"] % 52 == 0 and recorder.kinds["play"] > 0
    assert recorder.latency["human"] + recorder.latency["bot"] == actions
    assert recorder.latency["human"] >= 13
    # Bot seats decide every one of their moves (the default level is "basic"). A decision
    # may also be dropped unplayed: a `look` by the human (allowed out of turn, before a
    # blind nil bid) moves the game on while a bot decides, and the bot decides again.
    decided, moved = recorder.bot_levels["basic"], recorder.latency["bot"]
    assert moved <= decided <= moved + recorder.kinds["look"]
    await manager.stop()


async def test_a_failed_write_is_timed_but_not_counted(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    recorder = Recorder()
    manager = manager_for(store, clock, tmp_path, observer=recorder)
    await manager.start()
    room, _, token = await manager.create_solo("Ann", {"target": 100})
    conn = Conn()
    await room.call(room.attach, conn, token)
    await settle(lambda: my_turn(conn, -1) and conn.last_state()["view"]["to_act"] == 0)
    counted, appended, humans = (
        sum(recorder.kinds.values()),
        len(recorder.appends),
        recorder.latency["human"],
    )
    await store.close()  # the database goes away
    await room.call(room.handle, conn, first_legal("basic", conn.last_state()["view"]))
    assert conn.errors()[-1]["code"] == "storage_error"
    assert len(recorder.appends) == appended + 1
    assert sum(recorder.kinds.values()) == counted
    assert recorder.latency["human"] == humans
    await manager.stop()


def test_the_default_observer_does_nothing() -> None:
    observer = Observer()
    observer.action("play")
    observer.action_latency("human", 0.1)
    observer.bot_decision("basic", 0.1)
    observer.store_append(0.1)


async def test_a_failing_bot_is_timed_and_logged_without_its_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(level: str, view: dict[str, Any], *, seed: int | None = None) -> dict[str, Any]:
        raise KeyError("KH")  # a message that names a card of the hand

    recorder = Recorder()
    runner = BotRunner(broken, workers="thread")
    runner.observer = recorder
    legal = [{"type": "play", "card": "2C"}]
    with caplog.at_level(logging.ERROR, logger="spades"):
        assert await runner.decide("basic", {"legal": legal}, None) == legal[0]
    assert recorder.bot_levels["basic"] == 1
    [record] = caplog.records
    assert "KeyError" in record.getMessage()
    assert "KH" not in record.getMessage() and record.exc_info is None
    runner.close()
