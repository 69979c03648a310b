"""A store that fails once, at each write in turn: the room goes on.

Every stored action reaches the clients, bots and timers move again, the game clock
fires, and a bookkeeping write that failed after its action was stored is retried.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from room_helpers import Conn, first_legal, manager_for, settle

from spades.rooms import ManualClock, Room
from spades.rooms.writes import STORE_RETRY_SECONDS

WRITES = ("append_action", "finish_hand", "finish_game", "set_seat", "add_chat")


class FailOnce:
    """The real store, except that the next call of `method` after `arm()` fails once."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.method: str | None = None
        self.failed = 0

    def arm(self, method: str) -> None:
        self.method = method

    def __getattr__(self, name: str) -> Any:
        real = getattr(self._store, name)
        if name != self.method:
            return real

        async def failing(*args: Any, **kwargs: Any) -> Any:
            self.method = None
            self.failed += 1
            raise OSError(f"injected failure of {name}")

        return failing


async def act(room: Room, conn: Conn, **message: Any) -> None:
    await room.call(room.handle, conn, message)


async def until_done(room: Room, conn: Conn, store: FailOnce, clock: ManualClock) -> None:
    """Play seat `conn.seat` to the game's end; resend a refused action, and move the clock
    on when a failed write waits for its retry."""
    retried = 0
    acted = -1
    for _ in range(5_000):

        def ready(a: int = acted, r: int = retried) -> bool:
            state = conn.last_state()
            view = state["view"]
            return (
                view["phase"] == "over"
                or (bool(view["legal"]) and state["seq"] > a)
                or store.failed > r
            )

        await settle(ready)
        if store.failed > retried:
            retried = store.failed
            clock.advance(STORE_RETRY_SECONDS)
            await settle(lambda: True, rounds=1)
            acted = -1  # the refused action may be ours: try again
            continue
        state = conn.last_state()
        if state["view"]["phase"] == "over":
            return
        acted = state["seq"]
        await act(room, conn, **first_legal("basic", state["view"]))
    raise AssertionError("the game never ended")


@pytest.mark.parametrize("method", WRITES)
async def test_a_write_that_fails_once_does_not_stop_the_room(
    store: Any, clock: ManualClock, tmp_path: Path, method: str
) -> None:
    failing = FailOnce(store)
    manager = manager_for(failing, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create("Ann", {"mode": "individual", "target": 60})
    conn, watcher = Conn(), Conn()
    await room.call(room.attach, conn, token)
    await room.call(room.attach, watcher, None)
    failing.arm(method)
    # Chat and seats come before any change: a failed write refuses, and a retry works.
    await act(room, conn, type="chat", text="hi", id="c1")
    await act(room, conn, type="set_seat", seat=1, to="bot", id="s1")
    await act(room, conn, type="set_seat", seat=2, to="bot", id="s2")
    refused = [e["ref"] for e in conn.errors()]
    if method == "add_chat":
        assert refused == ["c1"] and conn.errors()[0]["code"] == "storage_error"
        await act(room, conn, type="chat", text="hi", id="c2")
    if method == "set_seat":
        assert refused == ["s1"] and room.seats[1].kind == "empty"
        await act(room, conn, type="set_seat", seat=1, to="bot", id="s3")
    assert [m["text"] for m in conn.messages if m["type"] == "chat"] == ["hi"]
    assert [s.kind for s in room.seats] == ["human", "bot", "bot", "empty"]
    await act(room, conn, type="start", id="go")
    assert room.status == "playing"
    await until_done(room, conn, failing, clock)
    assert failing.failed == (1 if method in WRITES else 0)
    game = room.game
    assert game is not None and game.phase == "over" and room.status == "finished"
    # Every stored action was shown, to every connection.
    record = await store.export_game(room.game_id, in_progress=True)
    assert len(record["actions"]) == room.seq
    await settle(lambda: watcher.last_state()["seq"] == room.seq)
    assert conn.last_state()["seq"] == room.seq
    assert conn.last_state()["view"]["winner"] == game.winner
    # Bookkeeping that failed was retried: the hands and the game's end are stored.
    clock.advance(STORE_RETRY_SECONDS)
    finished: list[Any] = []

    async def stored() -> bool:
        finished[:] = await store.finished_games(room.room_id)
        status = (await store.get_room(room.room_id)).room.status
        return (
            bool(finished) and len(finished[0].hands) == len(game.history) and status == "finished"
        )

    for _ in range(200):
        if await stored():
            break
        clock.advance(STORE_RETRY_SECONDS)
        await settle(lambda: True, rounds=1)
    assert [h.summary for h in finished[0].hands] == game.history
    assert finished[0].game.winner == game.winner
    assert (await store.get_room(room.room_id)).room.status == "finished"
    # And play again works.
    await act(room, conn, type="play_again", id="again")
    assert room.status == "playing" and room.game is not game
    await manager.stop()


async def test_the_game_clock_and_the_turn_timer_survive_a_failed_append(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    failing = FailOnce(store)
    manager = manager_for(failing, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create_solo(
        "Ann", {"target": 10_000, "game_minutes": 5, "turn_seconds": 30}
    )
    conn = Conn()
    await room.call(room.attach, conn, token)
    await settle(lambda: bool(conn.last_state()["view"]["legal"]))
    seq = room.seq
    failing.arm("append_action")
    await act(room, conn, id="x", **first_legal("basic", conn.last_state()["view"]))
    assert conn.errors()[-1]["code"] == "storage_error" and room.seq == seq
    # The turn timer still runs: past it, the bot moves for the seat.
    clock.advance(31)
    await settle(lambda: conn.last_state()["room"]["seats"][0]["timed_out"])
    assert conn.last_state()["seq"] > seq
    # The game clock still fires.
    clock.advance(300)
    await settle(lambda: conn.last_state()["view"]["time_up"])
    await manager.stop()


async def test_a_connection_whose_send_fails_does_not_stop_the_others(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    class Broken(Conn):
        def send(self, message: dict[str, Any] | bytes) -> None:
            if self.messages and (isinstance(message, bytes) or message["type"] == "state"):
                raise OSError("injected failure of a socket")
            super().send(message)

    manager = manager_for(store, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create_solo("Ann", {"mode": "individual", "target": 60})
    broken, watcher, conn = Broken(), Conn(), Conn()
    await room.call(room.attach, broken, None)
    await room.call(room.attach, watcher, None)
    await room.call(room.attach, conn, token)
    await until_done(room, conn, FailOnce(store), clock)
    await settle(lambda: watcher.last_state()["seq"] == room.seq)
    assert room.status == "finished"
    await manager.stop()


class InDoubt:
    """The real store, except that some appends are stored and then reported failed, as a
    timeout reports a statement whose commit came late: the caller cannot tell."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.room: Room | None = None
        self.hands = 0  # hands the room's game had finished at the last append
        self.failed: list[tuple[int, bool]] = []  # (seq, ended a hand)
        self.reported: set[int] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def append_action(self, row: Any, **kwargs: Any) -> None:
        await self._store.append_action(row, **kwargs)
        assert self.room is not None and self.room.game is not None
        hands, self.hands = self.hands, len(self.room.game.history)
        ended_hand = self.hands > hands
        if row.seq not in self.reported and (ended_hand or row.seq % 9 == 0):
            self.reported.add(row.seq)
            self.failed.append((row.seq, ended_hand))
            raise TimeoutError(f"injected: append of seq {row.seq} stored, reported failed")


async def test_an_append_in_doubt_that_was_stored_is_taken_from_the_log(
    store: Any, clock: ManualClock, tmp_path: Path
) -> None:
    """The next action finds its seq taken: the room takes the game from the log (with the
    hands and the game's end it brought), shows it, and plays on; no storage_error loop."""
    doubtful = InDoubt(store)
    manager = manager_for(doubtful, clock, tmp_path)
    await manager.start()
    room, _, token = await manager.create_solo("Ann", {"mode": "individual", "target": 60})
    doubtful.room = room
    conn, watcher = Conn(), Conn()
    await room.call(room.attach, conn, token)
    await room.call(room.attach, watcher, None)
    retried = 0
    for _ in range(5_000):

        def ready(r: int = retried) -> bool:
            view = conn.last_state()["view"]
            return view["phase"] == "over" or bool(view["legal"]) or len(doubtful.failed) > r

        await settle(ready)
        if len(doubtful.failed) > retried:
            retried = len(doubtful.failed)
            # A bot's failed move is tried again STORE_RETRY_SECONDS after the room heard
            # of the failure, a few loop turns after the append raised: the clock moved
            # before that, the retry waits past the move (the game stood still one run in
            # about 25). So move it on until the game does.
            seq = room.seq
            for _ in range(50):
                clock.advance(STORE_RETRY_SECONDS)
                await asyncio.sleep(0.01)
                if room.seq != seq or len(doubtful.failed) > retried:
                    break
            continue
        view = conn.last_state()["view"]
        if view["phase"] == "over":
            break
        await act(room, conn, **first_legal("basic", view))
    game = room.game
    assert game is not None and game.phase == "over" and room.status == "finished"
    assert any(ended for _, ended in doubtful.failed) and len(doubtful.failed) >= 5
    # Every logged action is the game's, once, and every connection was shown all of them.
    record = await store.export_game(room.game_id, in_progress=True)
    assert len(record["actions"]) == room.seq
    assert record["actions"] == game.to_record()["actions"]
    await settle(lambda: watcher.last_state()["seq"] == room.seq)
    assert conn.last_state()["seq"] == room.seq
    # The hands the doubtful appends ended are stored, and so is the game's end.
    for _ in range(200):
        finished = await store.finished_games(room.room_id)
        if finished and len(finished[0].hands) == len(game.history):
            break
        clock.advance(STORE_RETRY_SECONDS)
        await settle(lambda: True, rounds=1)
    assert [h.summary for h in finished[0].hands] == game.history
    assert finished[0].game.winner == game.winner
    await manager.stop()
