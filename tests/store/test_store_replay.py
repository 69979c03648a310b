"""Random games through the store: what `load` returns replays to exactly what was stored.

Each game is played by random legal actions (looks by any seat, the game clock running out
now and then), every action is appended as the room would, and at checkpoints the game is
rebuilt from what the store loads; its `state_key()` must equal the original's at every
prefix of the action log. The games run concurrently so their appends share commits.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from spades.engine import Game, Rules
from spades.engine.fast import hand_seed
from spades.store import (
    ActionRow,
    GameRow,
    HandRow,
    RoomRow,
    SeatRow,
    SqlStore,
    StoredRoom,
)

GAMES = 6
MAX_ACTIONS = 150  # two and a half hands per game keeps the suite quick


@dataclass
class Played:
    room_id: str
    game_id: int
    game: Game
    keys: list[tuple[Any, ...]] = field(default_factory=list)  # keys[i]: after i actions
    checks: int = 0


def random_rules(rng: random.Random) -> Rules:
    return Rules(
        mode=rng.choice(["individual", "partnership"]),
        target=rng.choice([100, 200, 300]),
        blind_nil_deficit=rng.choice([0, 100]),
        nil_tricks_count_for_partner=rng.random() < 0.5,
        spades_must_be_broken=rng.random() < 0.8,
    )


def random_action(game: Game, rng: random.Random) -> tuple[int | None, dict[str, Any]]:
    if not game.time_is_up and rng.random() < 0.004:
        return None, {"type": "time_up"}
    if game.phase == "bidding" and rng.random() < 0.2:
        # Anyone may look at their cards while bidding goes on.
        lookers = [s for s in range(4) if game.blind_nil_open(s)]
        if lookers:
            return rng.choice(lookers), {"type": "look"}
    seat = game.to_act
    assert seat is not None
    return seat, rng.choice(game.legal_actions(seat))


def rebuild(game: GameRow) -> Game:
    return Game(Rules.from_dict(game.rules), seed=game.seed, first_dealer=game.first_dealer)


def assert_every_prefix(played: Played, game_row: GameRow, actions: list[ActionRow]) -> None:
    assert [a.seq for a in actions] == list(range(1, len(actions) + 1))
    replay = rebuild(game_row)
    assert replay.state_key() == played.keys[0]
    for a in actions:
        replay.apply(a.seat, a.action)
        assert replay.state_key() == played.keys[a.seq], f"differs after action {a.seq}"
    played.checks += 1


async def play_one(store: SqlStore, index: int, seed: int) -> Played:
    rng = random.Random(seed)
    rules = random_rules(rng)
    room_id = f"room-{index}"
    await store.create_room(
        RoomRow(id=room_id, code=f"CODE{index}", settings={"rules": rules.to_dict()}),
        [SeatRow(room_id, s, name=f"bot{s}", bot_level="random") for s in range(4)],
    )
    game = Game.new(rules, seed=f"master-{seed}")
    await store.update_room(room_id, status="playing")
    game_id = await store.start_game(room_id, rules.to_dict(), game.first_dealer, game.seed)
    played = Played(room_id, game_id, game, keys=[game.state_key()])
    checkpoints = set(rng.sample(range(1, MAX_ACTIONS), 3))
    seq = 0
    while game.phase != "over" and seq < MAX_ACTIONS:
        seat, action = random_action(game, rng)
        hands_before = len(game.history)
        recorded = game.apply(seat, action)
        seq += 1
        # Write-ahead as the room does it: stored, then (were there clients) broadcast.
        await store.append_action(ActionRow(game_id, seq, seat, recorded))
        played.keys.append(game.state_key())
        if len(game.history) > hands_before:
            entry = game.history[-1]
            await store.finish_hand(HandRow(game_id, entry["hand"], entry))
        if seq in checkpoints:
            stored = await store.get_room(room_id)
            assert stored.game is not None
            assert len(stored.actions) == seq
            assert_every_prefix(played, stored.game, stored.actions)
    if game.phase == "over":
        await store.finish_game(game_id, game.winner, list(game.scores))
    return played


@pytest.mark.parametrize("seed", [2026])
async def test_random_games_replay_identically_at_every_prefix(store: SqlStore, seed: int) -> None:
    seeds = [seed * 100 + i for i in range(GAMES)]
    played = await asyncio.gather(*(play_one(store, i, s) for i, s in enumerate(seeds)))

    unfinished: dict[str, StoredRoom] = {s.room.id: s for s in await store.load_unfinished()}
    for p in played:
        n = len(p.keys) - 1
        # The record export replays to the same final state, and step by step too.
        record = await store.export_game(p.game_id, in_progress=True)
        assert record == p.game.to_record()
        assert json.loads(json.dumps(record)) == record  # plain JSON, as served
        assert Game.from_record(record).state_key() == p.keys[-1]
        replay = Game.from_record({**record, "actions": []})
        for i, entry in enumerate(record["actions"], start=1):
            replay.apply(entry["seat"], entry["action"])
            assert replay.state_key() == p.keys[i]
        if p.game.phase == "over":
            [finished] = await store.finished_games(p.room_id)
            assert finished.game.winner == p.game.winner
            assert finished.game.final_scores == p.game.scores
            assert [h.summary for h in finished.hands] == p.game.history
        else:
            stored = unfinished[p.room_id]
            assert stored.game is not None and stored.game.id == p.game_id
            assert len(stored.actions) == n
            assert_every_prefix(p, stored.game, stored.actions)
            assert Game.from_record(record).legal_actions() == p.game.legal_actions()
        assert p.checks >= 1 or p.game.phase == "over"


async def test_no_seed_leaks_outside_the_game_row(store: SqlStore) -> None:
    """Only GameRow.seed (and export_game, a server-side call) ever carry the master seed or
    the deal seed of a hand in progress: not reprs, hand summaries, rooms, seats or chat."""
    rng = random.Random(7)
    rules = Rules(mode="partnership", target=500)
    game = Game.new(rules, seed="the-master-seed-7")
    await store.create_room(
        RoomRow(id="r", code="R", settings={"rules": rules.to_dict()}),
        [SeatRow("r", s, name=f"p{s}") for s in range(4)],
    )
    game_id = await store.start_game("r", rules.to_dict(), game.first_dealer, game.seed)
    seq = 0
    while game.hand_number < 2 or game.phase != "playing":  # one hand over, the next dealt
        seat, action = random_action(game, rng)
        if seat is None:
            continue
        hands = len(game.history)
        recorded = game.apply(seat, action)
        seq += 1
        await store.append_action(ActionRow(game_id, seq, seat, recorded))
        if len(game.history) > hands:
            await store.finish_hand(HandRow(game_id, hands + 1, game.history[-1]))
    await store.add_chat("r", 0, "p0", "gl hf")

    secrets_now = [game.seed, hand_seed(game.seed, game.hand_number)]
    stored = await store.get_room("r")
    assert stored.game is not None and stored.game.seed == game.seed  # the server needs it
    outside = [
        repr(stored),
        repr(await store.load_unfinished()),
        repr(await store.finished_games("r")),
        repr(await store.recent_chat("r")),
        repr([a.action for a in stored.actions]),
    ]
    async with store.engine.connect() as conn:
        from sqlalchemy import text

        for table in ("rooms", "seats", "actions", "hands", "chat_messages"):
            outside.append(repr((await conn.execute(text(f"SELECT * FROM {table}"))).all()))
    for secret in secrets_now:
        for blob in outside:
            assert secret not in blob
    # The finished hand's seed is in its summary: that hand is over, so it may be shown.
    assert stored.game is not None
    record = await store.export_game(game_id, in_progress=True)
    assert record["seed"] == game.seed
