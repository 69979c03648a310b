"""CPU per action of one room in-process, with events and with whole states (issue 19).

    python -m bench.broadcast [--games 6] [--spectators 1]

Four seated connections and some spectators play whole games through `Room.handle` on an
in-memory SQLite store, each connection encoding what it is sent as a socket would
(orjson; an event arrives already encoded). Prints the process CPU per accepted action
of each mode, min / median / max over the games: the room's own work (validation, engine,
store append, every connection's message), without the network and the ASGI stack that
`bench.load` also counts; and the median CPU of an action that ends a hand against any
other (events). `states` sends a whole state (merge rule) after every action,
as before events.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from spades.config import Settings
from spades.rooms import BotRunner, ManualClock, RoomConfig, RoomManager, views
from spades.store import open_store, upgrade

_ids = itertools.count(1)


class Socket:
    """A connection as the room sees it: encodes each message, keeps the latest state."""

    def __init__(self) -> None:
        self.conn_id = next(_ids)
        self.seat: int | None = None
        self.address = "127.0.0.1"
        self.bytes = 0
        self.events = 0
        self.view: dict[str, Any] | None = None

    def send(self, message: dict[str, Any] | bytes) -> None:
        if isinstance(message, bytes):
            self.events += 1
            data = message
        else:
            data = orjson.dumps(message)
        self.bytes += len(data)

    def close(self, code: int, reason: str) -> None:
        pass


def _first_legal(level: str, view: dict[str, Any], *, seed: int | None = None) -> dict[str, Any]:
    legal = view["legal"]
    if {"type": "bid", "bid": 3} in legal:
        return {"type": "bid", "bid": 3}
    return dict(legal[0])


async def one_game(
    tmp: Path,
    mode: str,
    spectators: int,
    seed: int,
    hand_ends: list[float],
    others: list[float],
) -> tuple[float, int, float, float]:
    """For one game to 200 in `mode` (events or states): CPU seconds, actions, bytes the
    seats were sent per action, and the share of seat messages that were events. Each
    action's CPU goes to `hand_ends` (the action ended a hand) or `others`."""
    clock = ManualClock()
    url = f"sqlite+aiosqlite:///{tmp / f'{mode}-{seed}.db'}"  # a file: the server's appender
    await asyncio.to_thread(upgrade, url)
    store = await open_store(url, clock=lambda: datetime.fromtimestamp(clock.now(), UTC))
    settings = Settings(database_url=url, bot_delay=0.0)
    manager = RoomManager(
        store,
        RoomConfig.pick(settings),
        clock=clock,
        bots=BotRunner(_first_legal, workers="thread"),
    )
    await manager.start()
    room, _, token = await manager.create("P0", {"mode": "partnership", "target": 200})
    if mode == "states":

        def whole_states(r: Any, origin: Any, ref: Any) -> None:
            r.audience.broadcast(r.game_id, views.state_builder(r), origin, ref)

        room.events.broadcast = whole_states  # type: ignore[method-assign,assignment]
    tokens = [token]
    for seat in (1, 2, 3):
        _, t = await room.call(room.join, f"P{seat}", seat, False)
        tokens.append(t)
    seats = [Socket() for _ in range(4)]
    for conn, t in zip(seats, tokens, strict=True):
        await room.call(room.attach, conn, t)
    for _ in range(spectators):
        await room.call(room.attach, Socket(), None)
    await room.call(room.handle, seats[0], {"type": "start"})
    game = room.game
    assert game is not None
    actions = 0
    started = time.process_time()
    while game.phase != "over":
        to_act = game.to_act
        assert to_act is not None
        action = _first_legal("", {"legal": game.legal_actions(to_act)})
        hands, before = len(game.history), time.process_time()
        await room.call(room.handle, seats[to_act], action)
        actions += 1
        game = room.game
        assert game is not None
        spent = hand_ends if len(game.history) > hands else others
        spent.append(time.process_time() - before)
    cpu = time.process_time() - started
    sent = sum(s.bytes for s in seats) / actions
    events = sum(s.events for s in seats) / actions / len(seats)
    await manager.stop()
    await store.close()
    return cpu, actions, sent, events


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        results: dict[str, list[float]] = {"events": [], "states": []}
        sent: dict[str, list[float]] = {"events": [], "states": []}
        share: dict[str, list[float]] = {"events": [], "states": []}
        hand_ends: list[float] = []
        others: list[float] = []
        for game in range(args.games):
            for mode in ("events", "states"):  # interleaved: the machine's load hits both
                cpu, actions, nbytes, events = await one_game(
                    Path(tmp),
                    mode,
                    args.spectators,
                    game,
                    *((hand_ends, others) if mode == "events" else ([], [])),
                )
                results[mode].append(1000 * cpu / actions)
                sent[mode].append(nbytes)
                share[mode].append(events)
        for mode, values in results.items():
            values.sort()
            print(
                json.dumps(
                    {
                        "mode": mode,
                        "cpu_ms_per_action": {
                            "min": round(values[0], 3),
                            "median": round(values[len(values) // 2], 3),
                            "max": round(values[-1], 3),
                        },
                        "seat_bytes_per_action": round(sum(sent[mode]) / len(values)),
                        "events_share": round(sum(share[mode]) / len(values), 3),
                        "games": len(values),
                    }
                ),
                flush=True,
            )
        # What one action costs (events), the actions that end a hand apart: those score
        # the hand, store its row, deal the next and send whole states.
        print(
            json.dumps(
                {
                    "cpu_ms_per_action_median": {
                        "hand_end": round(1000 * statistics.median(hand_ends), 3),
                        "other": round(1000 * statistics.median(others), 3),
                    },
                    "hand_ends": len(hand_ends),
                }
            ),
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--spectators", type=int, default=1)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
