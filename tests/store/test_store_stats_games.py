"""Acceptance (issue 56, statistics): 200 games played by Easy bots in seats with players,
both modes, with nils, blind nils and bag penalties, stored as a room stores them (deal,
each action appended, each hand's row, the finish with its seats' statistics); some are
finished again, as a replay of the log or a retry after a lost answer would. Every
player's totals equal a recomputation from the event log: each of their finished games'
stored actions replayed through the engine. On SQLite and PostgreSQL.

The kill -9 and failover parts, through real servers: tests/api/test_api_stats_restart.py
and tests/cluster/test_cluster_stats.py."""

from __future__ import annotations

import asyncio
import functools
import random
from typing import Any

from spades.bots import easy
from spades.engine import Game, Rules
from spades.engine.stats import Counts, game_stats
from spades.store import ActionRow, HandRow, PlayerRow, RoomRow, SeatRow, SqlStore

GAMES = 200
AT_ONCE = 20  # games stored concurrently (their writes share group commits)
PLAYERS = [f"player{n}" for n in range(7)]
# Rules that make every statistic happen within a few hands: blind nil open to anyone not
# leading, nils worth less (so bidding them is cheap), bag penalties after 3 bags.
RULES = {
    "blind_nil_deficit": 0,
    "nil_value": 50,
    "blind_nil_value": 100,
    "bag_limit": 3,
    "bag_penalty": 20,
}


def choose(game: Game, seat: int, rng: random.Random) -> dict[str, Any]:
    """The Easy bot's action, with a blind nil or a nil now and then."""
    if game.blind_nil_open(seat) and seat == game.to_act and rng.random() < 0.05:
        return {"type": "bid", "bid": "blind nil"}
    if game.phase == "bidding" and not game.blind_nil_open(seat) and rng.random() < 0.05:
        return {"type": "bid", "bid": "nil"}
    return easy.decide(game.view(seat), rng)


def play(rules: Rules, rng: random.Random) -> Game:
    game = Game.new(rules, seed=f"stats-{rng.random()}", dealer=rng.randrange(4))
    while game.phase != "over":
        seat = game.to_act
        assert seat is not None and game.hand_number < 60
        game.apply(seat, choose(game, seat, rng))
    return game


@functools.cache
def played_games() -> tuple[tuple[Game, tuple[str | None, ...]], ...]:
    """The 200 games, played once for both databases: each with who sits where (three
    players and a bot, seats shuffled), alternating the modes."""
    rng = random.Random(56)
    games = []
    for n in range(GAMES):
        mode = "partnership" if n % 2 else "individual"
        target = rng.choice((120, 150) if mode == "partnership" else (80, 100))
        rules = Rules.from_dict({"mode": mode, "target": target, **RULES})
        seated: list[str | None] = [*rng.sample(PLAYERS, 3), None]
        rng.shuffle(seated)
        games.append((play(rules, rng), tuple(seated)))
    return tuple(games)


async def store_game(store: SqlStore, n: int) -> None:
    """Game `n` stored as `rooms.match` stores one: dealt, each action appended, each
    hand's row, and its finish with its seats' statistics."""
    game, seated = played_games()[n]
    room_id = f"room{n}"
    seats = [
        SeatRow(room_id, s, name=pid or "Bot", bot_level=None if pid else "easy", player_id=pid)
        for s, pid in enumerate(seated)
    ]
    await store.create_room(RoomRow(id=room_id, code=room_id.upper(), settings={}), seats)
    rules = game.rules.to_dict()
    game_id = await store.start_game(room_id, rules, game.first_dealer, game.seed)
    await asyncio.gather(
        *(
            store.append_action(ActionRow(game_id, seq, seat, action))
            for seq, (seat, action) in enumerate(game.actions, start=1)
        )
    )
    for entry in game.history:
        await store.finish_hand(HandRow(game_id, entry["hand"], entry))
    stats = game_stats(game)
    await store.finish_game(game_id, game.winner, list(game.scores), stats=stats)
    if n % 7 == 0:  # finished again from the log replayed: counted once all the same
        again = Game.from_record(await store.export_game(game_id))
        await store.finish_game(game_id, again.winner, again.scores, stats=game_stats(again))


async def recomputed(store: SqlStore) -> tuple[dict[str, dict[str, Counts]], list[Game]]:
    """Each player's statistics from the event log: every finished game they were dealt
    into, its stored actions replayed through the engine (each game once); and the games."""
    replayed: dict[int, Game] = {}
    sums: dict[str, dict[str, Counts]] = {}
    for pid in PLAYERS:
        mine = sums.setdefault(pid, {})
        for played in await store.player_games(pid, limit=10 * GAMES):
            game = replayed.get(played.game_id)
            if game is None:
                record = await store.export_game(played.game_id)
                game = replayed[played.game_id] = Game.from_record(record)
            seat = game_stats(game)[played.seat]
            mine[seat.mode] = mine.get(seat.mode, Counts()) + seat.counts
    return sums, list(replayed.values())


async def test_two_hundred_games_equal_their_recomputation_from_the_log(
    store: SqlStore,
) -> None:
    for pid in PLAYERS:
        await store.create_player(PlayerRow(id=pid, secret_hash="h", name=pid))
    for start in range(0, GAMES, AT_ONCE):
        await asyncio.gather(*(store_game(store, n) for n in range(start, start + AT_ONCE)))
    expected, games = await recomputed(store)
    assert len(games) == GAMES
    everyone = Counts()
    for pid in PLAYERS:
        assert await store.player_stats(pid) == expected[pid], pid
        for counts in expected[pid].values():
            everyone = everyone + counts
    modes = {mode for totals in expected.values() for mode in totals}
    penalties = sum(1 for g in games for h in g.history if any(h["bag_penalty"]))
    # 200 games of three players each; both modes; every statistic happened.
    assert everyone.games == 3 * GAMES and modes == {"partnership", "individual"}
    assert everyone.nils_made > 0 and everyone.nils_bid > everyone.nils_made
    assert everyone.blind_nils_made > 0 and everyone.blind_nils_bid > everyone.blind_nils_made
    assert everyone.sets > 0 and everyone.won > 0 and penalties > 0
