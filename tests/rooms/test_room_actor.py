from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from room_helpers import Conn, first_legal, manager_for, seat_four, settle

from spades.engine import Game
from spades.rooms import ManualClock, Room, RoomManager, RoomNotFound
from spades.rooms.audience import SENT_ON_CHANGE
from spades.rooms.chat import RECENT_CHAT, RECENT_CHAT_KEPT


async def hello(room: Room, conn: Conn, token: str | None) -> None:
    await room.call(room.attach, conn, token)


async def solo_table(
    store: Any, clock: ManualClock, tmp_path: Path, options: dict[str, Any]
) -> tuple[RoomManager, Room, Conn, str]:
    """A started manager with Ann's solo room made with `options`, Ann connected."""
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create_solo("Ann", options)
    conn = Conn()
    await hello(room, conn, token)
    return manager, room, conn, token


async def act(room: Room, conn: Conn, **message: Any) -> None:
    await room.call(room.handle, conn, message)


async def play_out(room: Room, conn: Conn) -> None:
    """Play seat `conn.seat` from the states it is sent until one shows the game over."""
    acted = -1
    while True:
        await settle(lambda a=acted: _shown(conn, a))
        state = conn.last_state()
        view = state["view"]
        if view["phase"] == "over":
            return
        acted = state["seq"]
        await act(room, conn, **first_legal("basic", view))


def _shown(conn: Conn, acted: int) -> bool:
    states = conn.states()
    if not states or states[-1]["view"] is None:
        return False
    view = states[-1]["view"]
    return view["phase"] == "over" or (bool(view["legal"]) and states[-1]["seq"] > acted)


def shown_to_act(conn: Conn) -> int | None:
    states = conn.states()
    if not states or states[-1]["view"] is None:
        return None
    to_act: int | None = states[-1]["view"]["to_act"]
    return to_act


async def test_solo_room_plays_to_the_end_and_everything_is_stored(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conn, _token = await solo_table(
        store, clock, tmp_path, {"mode": "individual", "target": 60}
    )
    assert conn.seat == 0
    await play_out(room, conn)
    game = room.game
    assert game is not None and game.winner is not None
    assert room.status == "finished"
    record = await store.export_game(room.game_id)
    assert Game.from_record(record).state_key() == game.state_key()
    finished = await store.finished_games(room.room_id)
    assert [h.summary for h in finished[0].hands] == game.history
    states = conn.states()
    assert [s["seq"] for s in states] == sorted(s["seq"] for s in states)
    await manager.stop()


async def test_turn_timer_lets_the_bot_move_then_the_seat_goes_away(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conn, token = await solo_table(
        store, clock, tmp_path, {"turn_seconds": 30, "target": 200}
    )
    game = room.game
    assert game is not None
    await settle(lambda: shown_to_act(conn) == 0)
    seq = room.seq
    assert conn.last_state()["clock"]["turn_deadline"] == round(
        (room.match.turn_started + 30) * 1000
    )
    clock.advance(29)
    # Not yet: the timer's deadline is still ahead of the clock, so the turn still waits.
    plan = room.turns.plan
    assert plan is not None and plan.deadline == room.match.turn_started + 30 > clock.now()
    assert room.turns.waiting and room.turns.task is None
    assert room.seq == seq
    clock.advance(2)
    await settle(lambda: conn.last_state()["room"]["seats"][0]["timed_out"])
    assert conn.last_state()["seq"] > seq
    assert not room.seats[0].away
    await settle(lambda: shown_to_act(conn) == 0 and conn.last_state()["seq"] > seq + 1)
    clock.advance(31)
    await settle(lambda: conn.last_state()["room"]["seats"][0]["away"])
    # Away: the bot keeps playing the seat without waiting for the clock.
    await settle(lambda: game.phase == "over" or game.hand_number > 1)
    # The owner comes back: the seat is theirs again.
    again = Conn()
    await hello(room, again, token)
    assert not room.seats[0].away and not room.seats[0].timed_out
    assert conn.closed is not None  # the older connection was replaced
    await manager.stop()


async def test_back_takes_the_seat_back_from_the_bot_on_the_same_connection(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conn, _token = await solo_table(
        store, clock, tmp_path, {"turn_seconds": 30, "target": 500}
    )
    game = room.game
    assert game is not None
    for _ in range(2):  # two timeouts in a row: away
        await settle(lambda: shown_to_act(conn) == 0 and room.turns.waiting)
        clock.advance(31)
        await settle(lambda: conn.last_state()["room"]["seats"][0]["timed_out"])
    await settle(lambda: conn.last_state()["room"]["seats"][0]["away"])
    await act(room, conn, type="back", id="b1")
    assert not room.seats[0].away and not room.seats[0].timed_out
    await settle(lambda: not conn.last_state()["room"]["seats"][0]["away"])
    # The next turn of the seat waits for its owner again, with the turn timer.
    await settle(lambda: shown_to_act(conn) == 0 and room.turns.waiting)
    plan = room.turns.plan
    assert plan is not None and plan.seat == 0 and plan.deadline is not None
    assert conn.closed is None  # the same connection: no reconnect was needed
    # Sent when present, `back` changes nothing and is not refused.
    seq = room.seq
    await act(room, conn, type="back", id="b2")
    assert room.seq == seq and not any(
        m.get("ref") == "b2" and m["type"] == "error" for m in conn.messages
    )
    await manager.stop()


async def test_a_resync_hello_on_the_same_connection_does_not_take_the_seat_back(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """A client that resyncs (its socket saw a gap) says hello again on the same socket:
    that is a catch-up, not the player coming back, so a timed-out seat stays marked; a
    new socket's hello (a reconnect) does take the seat back."""
    manager, room, conn, token = await solo_table(
        store, clock, tmp_path, {"turn_seconds": 30, "target": 500}
    )
    await settle(lambda: shown_to_act(conn) == 0 and room.turns.waiting)
    clock.advance(31)
    await settle(lambda: conn.last_state()["room"]["seats"][0]["timed_out"])
    await hello(room, conn, token)  # the resync
    assert room.seats[0].timed_out
    assert conn.last_state()["room"]["seats"][0]["timed_out"]
    again = Conn()
    await hello(room, again, token)  # a new socket: the player is back
    assert not room.seats[0].timed_out and not room.seats[0].away
    await manager.stop()


async def test_game_clock_ends_the_game(store: Any, clock: ManualClock, tmp_path: Path) -> None:
    manager, room, conn, _token = await solo_table(
        store, clock, tmp_path, {"game_minutes": 5, "target": 10_000}
    )
    game = room.game
    assert game is not None
    assert room.game_clock.deadline == clock.now() + 300
    clock.advance(301)
    await settle(lambda: conn.last_state()["view"]["time_up"])
    await play_out(room, conn)
    assert game.phase == "over"
    assert room.status == "finished"
    await manager.stop()


async def test_refusals_change_nothing(store: Any, clock: ManualClock, tmp_path: Path) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host, guest = Conn(), Conn()
    await hello(room, host, token)
    await hello(room, guest, None)
    before = room.room_dict()
    await act(room, guest, type="start", id=1)
    await act(room, guest, type="set_seat", seat=1, to="bot", id=2)
    await act(room, host, type="play", card="AS", id=3)
    await act(room, host, type="bogus", id=4)
    await act(room, guest, type="stand", id=5)
    await act(room, host, type="settings", settings={"target": 0}, id=6)
    codes = [(e["code"], e["ref"]) for e in host.errors() + guest.errors()]
    assert ("host_only", 1) in codes and ("host_only", 2) in codes
    assert ("no_game", 3) in codes and ("unknown_type", 4) in codes
    assert ("not_seated", 5) in codes and ("bad_request", 6) in codes
    assert room.room_dict() == before
    await manager.stop()


async def test_restart_reloads_rooms_by_replaying_actions(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conn, token = await solo_table(store, clock, tmp_path, {"target": 100})
    game = room.game
    assert game is not None
    acted = -1
    for _ in range(6):
        await settle(lambda a=acted: _shown(conn, a))
        acted = conn.last_state()["seq"]
        await act(room, conn, **first_legal("basic", conn.last_state()["view"]))
    await manager.stop()
    key, code = game.state_key(), room.code

    second = manager_for(store, clock, tmp_path)
    assert await second.start() == 1
    again = await second.get(code)
    assert again.game is not None and again.game.state_key() == key
    conn2 = Conn()
    await hello(again, conn2, token)
    assert conn2.seat == 0
    await play_out(again, conn2)
    assert again.status == "finished"
    await second.stop()


async def test_a_reload_stores_the_hand_rows_a_crash_left_out(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """A crash between the action that ended a hand and the hand's row (or while the row's
    write waited for a retry) leaves the row out; the reload writes it from the log."""
    manager, room, conn, _token = await solo_table(store, clock, tmp_path, {"target": 10_000})
    acted = -1
    while True:
        await settle(lambda a=acted: _shown(conn, a))
        game = room.game
        assert game is not None
        if len(game.history) >= 2:
            break
        acted = conn.last_state()["seq"]
        await act(room, conn, **first_legal("basic", conn.last_state()["view"]))
    await manager.stop()
    history = list(game.history)
    with sqlite3.connect(tmp_path / "spades.db") as db:  # the rows the crash lost
        db.execute("DELETE FROM hands WHERE game_id = ?", (room.game_id,))
    assert (await store.load_room(room.room_id)).hands == []

    second = manager_for(store, clock, tmp_path)
    assert await second.start() == 1
    again = await second.get(room.code)
    assert again.game is not None and again.game.history[:2] == history[:2]
    stored = await store.load_room(room.room_id)
    assert stored.hands == [e["hand"] for e in again.game.history]
    await second.stop()
    with sqlite3.connect(tmp_path / "spades.db") as db:
        rows = db.execute(
            "SELECT hand_number FROM hands WHERE game_id = ? ORDER BY hand_number",
            (room.game_id,),
        ).fetchall()
    assert [r[0] for r in rows] == [e["hand"] for e in again.game.history]


async def test_rooms_without_humans_are_abandoned(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    # The test sweeps by hand; the background sweeper never wakes.
    manager = manager_for(
        store, clock, tmp_path, settings={"abandon_after": 100, "sweep_seconds": 1e9}
    )
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    conn = Conn()
    await hello(room, conn, token)
    clock.advance(500)
    await settle(lambda: True)
    assert await manager.sweep() == []  # someone is connected
    await room.call(room.detach, conn)
    clock.advance(60)
    assert await manager.sweep() == []
    clock.advance(50)
    assert await manager.sweep() == [room.code]
    assert room.closed and room.code not in manager.rooms
    assert room.status == "abandoned"
    assert await manager.purge() == 0  # abandoned just now
    clock.advance(8 * 86_400)
    assert await manager.purge() == 1
    with pytest.raises(RoomNotFound):
        await manager.get(room.code)
    assert [r.room.code for r in await store.load_unfinished()] == []
    await manager.stop()


@pytest.mark.parametrize("leaving", ["stand", "hello as a spectator"])
async def test_idle_time_starts_when_the_last_player_leaves_the_seat_not_the_socket(
    store: Any, clock: ManualClock, tmp_path: Path, leaving: str
) -> None:
    """A player who stands up (or whose socket says hello as a spectator) after a long
    wait is the last human gone from the room: the room gets its whole idle time from that
    moment, not from when it was made."""
    manager = manager_for(
        store, clock, tmp_path, settings={"abandon_after": 100, "sweep_seconds": 1e9}
    )
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    conn = Conn()
    await hello(room, conn, token)
    clock.advance(500)
    if leaving == "stand":
        await act(room, conn, type="stand", id="s")
    else:
        await hello(room, conn, None)
    assert conn.seat is None and not room.closed
    assert await manager.sweep() == []  # idle for no time yet
    clock.advance(99)
    assert await manager.sweep() == []
    clock.advance(2)
    assert await manager.sweep() == [room.code]
    await manager.stop()


async def test_a_disconnected_players_turn_goes_to_the_bot_after_the_grace_period(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path, settings={"grace_seconds": 45})
    await manager.start()
    room, _, token = await manager.create_solo("Ann", {"target": 100})
    conn, watcher = Conn(), Conn()
    await hello(room, conn, token)
    await hello(room, watcher, None)
    await settle(lambda: shown_to_act(conn) == 0)
    seq = room.seq
    await room.call(room.detach, conn)
    state = watcher.last_state()
    assert state["room"]["seats"][0]["connected"] is False
    assert state["clock"]["turn_deadline"] == round((clock.now() + 45) * 1000)
    clock.advance(46)
    await settle(lambda: watcher.last_state()["room"]["seats"][0]["away"])
    assert watcher.last_state()["seq"] > seq
    # Away: the bot plays the seat on; the owner's return takes it back.
    await settle(lambda: watcher.last_state()["seq"] > seq + 8)
    back = Conn()
    await hello(room, back, token)
    assert back.last_state()["room"]["seats"][0]["away"] is False
    await manager.stop()


async def test_the_game_clock_resumes_with_the_time_that_was_left(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conn, _token = await solo_table(
        store, clock, tmp_path, {"target": 100, "game_minutes": 10}
    )
    await settle(lambda: shown_to_act(conn) == 0)
    clock.advance(100)
    await act(room, conn, **first_legal("basic", conn.last_state()["view"]))
    await settle(lambda: shown_to_act(conn) == 0 and bool(conn.last_state()["view"]["legal"]))
    await manager.stop()
    clock.advance(1000)  # the server was down for a while
    second = manager_for(store, clock, tmp_path)
    await second.start()
    again = await second.get(room.code)
    assert again.game_clock.deadline == clock.now() + 500
    await second.stop()


async def test_an_action_that_cannot_be_stored_never_happened(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conn, _token = await solo_table(store, clock, tmp_path, {"target": 100})
    await settle(lambda: shown_to_act(conn) == 0)
    game = room.game
    assert game is not None
    key, seq, sent = game.state_key(), room.seq, len(conn.states())
    await store.close()  # the database goes away
    await act(room, conn, id="x", **first_legal("basic", conn.last_state()["view"]))
    assert conn.errors()[-1]["code"] == "storage_error" and conn.errors()[-1]["ref"] == "x"
    assert room.game is not None and room.game.state_key() == key and room.seq == seq
    assert len(conn.states()) == sent  # nothing unstored was shown
    await manager.stop()


async def test_a_present_player_takes_over_from_a_host_gone_past_the_grace_period(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path, settings={"grace_seconds": 30})
    await manager.start()
    room, _, host_token = await manager.create("Ann", {"target": 100})
    _, guest_token = await room.call(room.join, "Bob", None, False)
    host, guest = Conn(), Conn()
    await hello(room, host, host_token)
    await hello(room, guest, guest_token)
    await act(room, guest, type="start", id=1)
    assert guest.errors()[-1]["code"] == "host_only"
    await room.call(room.detach, host)
    clock.advance(29)
    await act(room, guest, type="start", id=2)
    assert guest.errors()[-1]["ref"] == 2 and room.host_seat == 0
    clock.advance(2)
    await act(room, guest, type="start", id=3)
    assert room.host_seat == 1 and room.status == "playing"
    assert (await store.get_room(room.room_id)).room.host_seat == 1
    await manager.stop()


async def test_the_host_gone_past_the_grace_period_hands_over_by_itself(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """The others are shown a new host without asking for anything: the page of a guest
    offers the Start button only to the host, so waiting for them to ask would leave them
    stuck. A player who comes later, with the host long gone, becomes host at their hello."""
    manager = manager_for(store, clock, tmp_path, settings={"grace_seconds": 30})
    await manager.start()
    room, _, host_token = await manager.create("Ann", {"target": 100})
    _, guest_token = await room.call(room.join, "Bob", None, False)
    host, guest = Conn(), Conn()
    await hello(room, host, host_token)
    await hello(room, guest, guest_token)
    await room.call(room.detach, host)
    clock.advance(29)
    await room.call(room.handle, guest, {"type": "ping"})  # (whatever was due has run)
    assert room.host_seat == 0 and guest.last_state()["room"]["host_seat"] == 0
    # The host came back in time: nothing changes when the grace period ends.
    back = Conn()
    await hello(room, back, host_token)
    clock.advance(2)
    await room.call(room.handle, guest, {"type": "ping"})
    assert room.host_seat == 0
    # Gone for good this time.
    await room.call(room.detach, back)
    clock.advance(31)
    await settle(lambda: guest.last_state()["room"]["host_seat"] == 1)
    assert room.host_seat == 1
    assert (await store.get_room(room.room_id)).room.host_seat == 1
    # Everyone leaves; the one who comes back first, past the grace period, is host.
    _, third_token = await room.call(room.join, "Cy", None, False)
    await room.call(room.detach, guest)
    clock.advance(31)
    third = Conn()
    await hello(room, third, third_token)
    assert room.host_seat == 2 and third.last_state()["room"]["host_seat"] == 2
    await manager.stop()


async def test_states_leave_out_only_what_the_connection_already_holds(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create_solo("Ann", {"mode": "individual", "target": 60})

    class Forgetful(Conn):
        """A spectator the room forgets after every message: it is sent whole states."""

        def send(self, message: dict[str, Any]) -> None:
            super().send(message)
            room.audience.forget(self)

    watcher, reference = Conn(), Forgetful()
    await hello(room, watcher, None)
    await hello(room, reference, None)
    conn = Conn()
    await hello(room, conn, token)
    await play_out(room, conn)
    game = room.game
    assert game is not None and len(game.history) >= 2
    # Keeping what a state leaves out from the one before gives the whole state every time.
    assert len(reference.wire) > 100
    assert watcher.states()[-len(reference.wire) :] == reference.wire
    # Most actions reach the watcher as events (a connection forgotten is sent states:
    # its version does not follow), and applying them gives the very same states.
    events = [m for m in watcher.wire if m["type"] == "event"]
    assert len(events) > len(watcher.wire) / 2
    assert all(m["type"] == "state" for m in reference.wire)
    whole = sum(len(orjson.dumps(m)) for m in reference.wire)
    sent = sum(len(orjson.dumps(m)) for m in watcher.wire)
    assert sent < whole / 2
    for wire in (watcher.wire, conn.wire):
        assert "room" in wire[0] and set(SENT_ON_CHANGE) <= set(wire[0]["view"])
        assert any("room" not in m for m in wire)
        assert any(not set(SENT_ON_CHANGE) & set(m["view"] or {}) for m in wire)
    assert conn.last_state()["view"]["history"] == game.history
    # A new connection, and a second hello on the same one, get the whole state.
    again = Conn()
    for _ in range(2):
        await hello(room, again, token)
        first = again.wire[-1]
        assert "room" in first and set(SENT_ON_CHANGE) <= set(first["view"])
        assert first["view"]["history"] == game.history
    await manager.stop()


async def test_a_hint_that_fails_is_answered(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host = Conn()
    await hello(room, host, token)
    await act(room, host, type="start", id=1)
    await settle(lambda: bool(host.states() and host.last_state()["view"]["legal"]))

    async def broken(*_args: Any, **_kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("the hint's search failed")

    room.bots.decide = broken  # type: ignore[method-assign]
    await act(room, host, type="hint", id="h1")
    await settle(lambda: any(e["code"] == "hint_failed" for e in host.errors()))
    await act(room, host, type="hint", id="h2")  # not "hint_pending": it may ask again
    await settle(lambda: len([e for e in host.errors() if e["code"] == "hint_failed"]) == 2)
    assert [e["ref"] for e in host.errors()] == ["h1", "h2"]
    await manager.stop()


async def test_asking_again_for_the_same_decision_costs_no_new_search(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """A hint costs a bot's move: asked again and again for one decision, it is worked out
    once and sent again; the next decision gets a new one."""
    manager, room, conn, _ = await solo_table(store, clock, tmp_path, {"target": 100})
    await settle(lambda: shown_to_act(conn) == 0)
    searches = []
    decide = room.bots.decide

    async def counted(*args: Any, **kwargs: Any) -> dict[str, Any]:
        searches.append(room.seq)
        return await decide(*args, **kwargs)

    room.bots.decide = counted  # type: ignore[method-assign]
    for n in range(5):
        await act(room, conn, type="hint", id=f"h{n}")
        await settle(lambda n=n: any(m.get("ref") == f"h{n}" for m in conn.messages))
    hints = [m for m in conn.messages if m["type"] == "hint"]
    assert len(hints) == 5 and len({str(h["action"]) for h in hints}) == 1
    assert len([s for s in searches if s == room.seq]) == 1
    seq = room.seq
    await act(room, conn, **hints[0]["action"])
    await settle(lambda: room.seq > seq and shown_to_act(conn) == 0)
    before = len(searches)
    await act(room, conn, type="hint", id="next")
    await settle(lambda: any(m.get("ref") == "next" for m in conn.messages))
    assert len(searches) > before  # bots' moves count too; the new decision was searched
    await manager.stop()


async def test_a_timed_turn_after_another_keeps_the_one_timer_until_it_is_due(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """Four humans on a 30 s turn timer: each action moves the deadline later, and the
    timer armed for the first turn stays (no timer or task per action); when it fires
    early it is armed again for the turn then on, whose seat loses its turn at its own
    deadline, not earlier."""
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("P0", {"turn_seconds": 30, "target": 200})
    conns = await seat_four(room, token)
    await act(room, conns[0], type="start")
    game = room.game
    assert game is not None
    turns = room.turns
    first = turns._timer
    assert first is not None and turns.waiting and turns.task is None
    for _ in range(2):  # two actions, 10 s apart: each deadline later than the last
        clock.advance(10)
        to_act = game.to_act
        assert to_act is not None
        seq = room.seq
        await act(room, conns[to_act], **first_legal("basic", game.view(to_act)))
        assert room.seq == seq + 1  # the human's own move, not a timeout
        assert turns._timer is first and turns.waiting and turns.task is None
        assert turns.plan is not None and turns.plan.deadline == room.match.turn_started + 30
    # At the first turn's deadline the timer fires early: it is armed again for this turn.
    seq, to_act = room.seq, game.to_act
    deadline = room.match.turn_started + 30
    clock.advance(10)
    await settle(lambda: turns._timer is not first)
    assert turns.waiting and turns._timer is not None and room.seq == seq
    clock.advance(deadline - clock.now() - 1)
    await asyncio.sleep(0.05)
    assert room.seq == seq and game.to_act == to_act
    clock.advance(2)  # now due: the bot moves for the seat, which is marked timed out
    assert to_act is not None
    await settle(lambda: room.seq > seq and room.seats[to_act].timed_out)
    await manager.stop()


async def test_a_player_cannot_be_replaced_during_a_game(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {"target": 200})
    host = Conn()
    await hello(room, host, token)
    seat, friend_token = await room.call(room.join, "Bo", 2, False)
    friend = Conn()
    await hello(room, friend, friend_token)
    await act(room, host, type="start", id="go")
    assert room.status == "playing"
    await act(room, host, type="set_seat", seat=seat, to="bot", id="kick")
    await act(room, host, type="set_seat", seat=seat, to="empty", id="free")
    codes = [(e["code"], e["ref"]) for e in host.errors()]
    assert ("game_in_progress", "kick") in codes and ("game_in_progress", "free") in codes
    assert room.seats[seat].kind == "human" and room.seats[seat].name == "Bo"
    assert friend.closed is None
    again = Conn()
    await hello(room, again, friend_token)  # the token still holds the seat
    assert again.seat == seat
    await manager.stop()


async def test_a_rooms_chat_is_capped_across_its_connections(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host = Conn()
    await hello(room, host, token)
    watchers = [Conn() for _ in range(5)]
    for watcher in watchers:
        await hello(room, watcher, None)
    for i in range(12):
        await act(room, watchers[i % 5], type="chat", text=f"spam {i}", id=i)
    # The spectators together have half the room's chat: the last two were refused.
    refused = [e["ref"] for w in watchers for e in w.errors() if e["code"] == "chat_busy"]
    assert sorted(refused) == [10, 11]
    for i in range(10):  # the players have the other half
        await act(room, host, type="chat", text=f"host {i}", id=f"h{i}")
    assert host.errors() == []
    await act(room, host, type="chat", text="one too many", id="late")
    assert [(e["code"], e["ref"]) for e in host.errors()] == [("chat_busy", "late")]
    clock.advance(10)
    await act(room, host, type="chat", text="now it fits", id="later")
    said = [m["text"] for m in host.messages if m["type"] == "chat"]
    assert said[-1] == "now it fits" and "one too many" not in said
    await manager.stop()


async def test_a_chat_message_sent_again_after_a_hello_is_the_same_message(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """A client that reconnects is sent the recent chat again: each message exactly as it
    was sent live (its time included), so the client can tell it already holds it."""
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host = Conn()
    await hello(room, host, token)
    for i in range(3):
        clock.advance(0.0123)
        await act(room, host, type="chat", text=f"hello {i}", id=i)
    live = [m for m in host.messages if m["type"] == "chat"]
    again = Conn()
    await hello(room, again, token)
    assert [m for m in again.messages if m["type"] == "chat"] == live
    # Spectators are told apart in the chat: numbered in the order they first speak.
    watchers = [Conn(), Conn()]
    for watcher in watchers:
        await hello(room, watcher, None)
    for i, watcher in enumerate([*watchers, watchers[0]]):
        await act(room, watcher, type="chat", text=f"from the rail {i}", id=f"w{i}")
    said = [(m["seat"], m["name"]) for m in again.messages if m["type"] == "chat"][3:]
    assert said == [(None, "Spectator 1"), (None, "Spectator 2"), (None, "Spectator 1")]
    # A spectator who leaves frees nothing: the next to speak is never "Spectator 1" again.
    await room.call(room.detach, watchers[0])
    late = Conn()
    await hello(room, late, None)
    await act(room, late, type="chat", text="late", id="late")
    assert again.messages[-1]["name"] == "Spectator 3"
    assert set(room.chat.numbers) == {watchers[1].conn_id, late.conn_id}
    await manager.stop()


async def test_hellos_read_the_chat_once_and_the_room_keeps_it_up_to_date(
    store: Any, clock: ManualClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reconnect storm's hellos must not each read the chat table: the room reads its
    recent chat once, keeps what is said, and reads it again after RECENT_CHAT_KEPT (or
    when a deleted account's name was replaced)."""
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {})
    host = Conn()
    await hello(room, host, token)
    for i in range(RECENT_CHAT + 5):
        clock.advance(0.5)
        await act(room, host, type="chat", text=f"line {i}", id=i)
    reads: list[str] = []
    real = store.recent_chat

    async def counted(room_id: str, limit: int = 50) -> list[dict[str, Any]]:
        reads.append(room_id)
        return list(await real(room_id, limit))

    monkeypatch.setattr(store, "recent_chat", counted)
    seen = []
    for _ in range(4):
        again = Conn()
        await hello(room, again, token)
        seen.append([m for m in again.messages if m["type"] == "chat"])
    assert reads == []  # kept since the first hello, and what was said since
    stored = await real(room.room_id)
    assert len(stored) == RECENT_CHAT
    assert all(s == [{"type": "chat", **m} for m in stored] for s in seen)
    clock.advance(RECENT_CHAT_KEPT)
    await hello(room, Conn(), token)
    assert reads == [room.room_id]
    await manager.forget_name("nobody-here", "Deleted player")
    await hello(room, Conn(), token)
    assert reads == [room.room_id] * 2
    await manager.stop()


async def test_the_game_clock_never_counts_downtime_however_many_restarts(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conn, token = await solo_table(
        store, clock, tmp_path, {"game_minutes": 5, "target": 10_000}
    )
    clock.advance(40)  # 40 s of play, then a move: 40 s of the clock used
    await settle(lambda: _shown(conn, -1))
    await act(room, conn, **first_legal("basic", conn.last_state()["view"]))
    await settle(lambda: room.seq > 0)
    code = room.code
    await manager.stop()
    used = 40.0
    for outage in (65.0, 30.0):  # down, back, a move 10 s later, down again, back
        clock.advance(outage)
        again = manager_for(store, clock, tmp_path)
        await again.start()
        back = await again.get(code)
        assert back.game_clock.deadline == pytest.approx(clock.now() + 300 - used, abs=1.5)
        conn = Conn()
        await hello(back, conn, token)
        clock.advance(10)
        used += 10
        await settle(lambda c=conn: _shown(c, -1))
        view = conn.last_state()["view"]
        if view["to_act"] == 0 and view["legal"]:
            await act(back, conn, **first_legal("basic", view))
        else:  # a bot's move: let it be stored at this time
            await settle(lambda b=back: b.seq > 0)
        await again.stop()
    await manager.stop()


async def finished_table(
    store: Any, clock: ManualClock, tmp_path: Path
) -> tuple[RoomManager, Room, list[Conn]]:
    """Four connected players whose game is over (the vote does not look at that game)."""
    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {"target": 100})
    conns = await seat_four(room, token)
    room.status = "finished"
    return manager, room, conns


async def test_the_next_game_starts_when_everyone_here_has_asked(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """Play again is asked for by each person at the table: one click does not deal the
    others (still reading the results) into a running game; whoever has gone does not
    hold it up, and nobody leaving alone starts a game for an empty table."""
    manager, room, conns = await finished_table(store, clock, tmp_path)
    await act(room, conns[0], type="start", id="s")  # the host's start is not for this
    assert conns[0].errors()[-1]["message"] == "the game is over; use play_again for the next one"
    await act(room, conns[1], type="play_again", id="a1")
    assert room.game is None and conns[0].last_state()["room"]["again"] == [1]
    await act(room, conns[1], type="play_again", id="a1")  # asking twice changes nothing
    await act(room, conns[2], type="play_again", id="a2")
    assert room.game is None and conns[3].last_state()["room"]["again"] == [1, 2]
    await room.call(room.detach, conns[3])  # gone: not waited for
    await act(room, conns[0], type="play_again", id="a0")
    assert room.game is not None and room.status == "playing"
    state = conns[1].last_state()["room"]
    assert state["again"] == [] and state["started_by"] == 0
    await manager.stop()


async def test_the_last_one_to_ask_leaving_starts_the_next_game(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    manager, room, conns = await finished_table(store, clock, tmp_path)
    for n in (0, 1, 2):
        await act(room, conns[n], type="play_again", id=f"a{n}")
    assert room.game is None
    await room.call(room.detach, conns[3])
    assert room.game is not None and room.status == "playing"
    await manager.stop()


async def test_a_bot_leading_after_a_finished_trick_waits_twice_its_delay(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """The finished trick stays on the table until the next card: a bot about to lead waits
    2 x bot_delay, so everyone sees who took it; any other bot move waits bot_delay."""
    manager = manager_for(store, clock, tmp_path, settings={"bot_delay": 1.0})
    await manager.start()
    room, _, token = await manager.create_solo("Ann", {"mode": "individual", "target": 500})
    conn = Conn()
    await hello(room, conn, token)
    game = room.game
    assert game is not None
    waits: dict[bool, set[float]] = {True: set(), False: set()}
    while game.hand_number == 1:
        await settle(lambda: room.turns.waiting or shown_to_act(conn) == 0)
        if shown_to_act(conn) == 0 and not room.turns.waiting:
            await act(room, conn, **first_legal("basic", conn.last_state()["view"]))
            continue
        due = room.turns.due
        assert due is not None
        after_trick = game.phase == "playing" and game.play.played > 0 and not game.play.trick
        waits[after_trick].add(round(due - clock.now(), 6))
        seq = room.seq
        clock.advance(due - clock.now())
        await settle(lambda s=seq: room.seq > s)
    assert waits == {True: {2.0}, False: {1.0}}
    await manager.stop()
