"""Acceptance (issue 57): ratings equal a recomputation from the stored games. 300 rated
games of 12 players (both modes, seats with a bot's share, leavers, seats of no player),
each finished as a room finishes it (the ratings read, rated, written) and a fifth of them
finished a second time from the ratings as they are then (a replay, a failover): the
ratings stored equal the games replayed in order from what the store keeps of them (each
game's result, and each rated seat's player, weight and whether they left)."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import text
from test_store_stats import room, seat_stats

from spades.rooms.rating import RatedSeat, Rating, rate_game
from spades.store import PlayerRow, SqlStore

PLAYERS = [f"p{n}" for n in range(12)]


async def finish(
    store: SqlStore, game: int, mode: str, seats: list[RatedSeat], scores: list[int], winner: int
) -> None:
    ids = [s.player_id for s in seats if s.player_id]
    stored = await store.ratings(ids, mode)
    current = {p: Rating(r.mu, r.sigma, r.games) for p, r in stored.items()}
    changes = [c.to_dict() for c in rate_game(mode, seats, scores, winner, current)]  # type: ignore[arg-type]
    stats = seat_stats(
        mode, tuple(int(mode == "partnership" and s % 2 == winner) for s in range(4))
    )
    await store.finish_game(game, winner, scores, stats=stats, ratings=changes)


async def test_ratings_equal_a_recomputation_from_the_stored_games(store: SqlStore) -> None:
    rng = random.Random(57)
    for pid in PLAYERS:
        await store.create_player(PlayerRow(id=pid, secret_hash="h"))
    finished = []
    for n in range(300):
        mode = "partnership" if n % 3 else "individual"
        sitting = rng.sample(PLAYERS, 4)
        if rng.random() < 0.1:
            sitting[rng.randrange(4)] = None  # a person who named no player
        room_id = f"g{n}"
        await room(store, room_id, dict(enumerate(sitting)), 0)
        game = await store.start_game(room_id, {"mode": mode}, 0, "s")
        seats = [
            RatedSeat(
                s,
                pid,
                weight=1.0 if rng.random() < 0.7 else rng.uniform(0.1, 1.0),
                quit=rng.random() < 0.05,
            )
            for s, pid in enumerate(sitting)
            if pid is not None
        ]
        scores = [rng.randrange(-100, 600) for _ in range(2 if mode == "partnership" else 4)]
        winner = max(range(len(scores)), key=lambda i: scores[i])
        await finish(store, game, mode, seats, scores, winner)
        finished.append((game, mode, seats, scores, winner))
        if rng.random() < 0.2:  # finished again, from the ratings as they are now
            again = rng.choice(finished)
            await finish(store, *again)

    # The recomputation: only what the store keeps, game by game in the order finished.
    async with store.engine.connect() as conn:
        games = (
            await conn.execute(text("SELECT id, winner, final_scores FROM games ORDER BY id"))
        ).all()
        rows = (
            await conn.execute(
                text("SELECT game_id, seat, player_id, mode, weight, quit FROM rating_changes")
            )
        ).all()
    by_game: dict[int, list[Any]] = {}
    for row in rows:
        by_game.setdefault(row.game_id, []).append(row)
    ratings: dict[tuple[str, str], Rating] = {}
    for game_id, winner, final_scores in games:
        seated = by_game.get(game_id, [])
        if not seated:
            continue
        mode = seated[0].mode
        scores = (
            final_scores
            if isinstance(final_scores, list)
            else __import__("json").loads(final_scores)
        )
        seats = [RatedSeat(r.seat, r.player_id, r.weight, bool(r.quit)) for r in seated]
        current = {
            s.player_id: ratings.get((s.player_id, mode), Rating()) for s in seats if s.player_id
        }
        for change in rate_game(mode, seats, scores, winner, current):
            before = ratings.get((change.player_id, mode), Rating())
            ratings[(change.player_id, mode)] = Rating(
                change.mu_after, change.sigma_after, before.games + 1
            )
    counted = 0
    for pid in PLAYERS:
        stored = await store.player_ratings(pid)
        for mode, got in stored.items():
            want = ratings[(pid, mode)]
            assert got.games == want.games
            assert abs(got.mu - want.mu) < 1e-9 and abs(got.sigma - want.sigma) < 1e-9
            counted += got.games
    assert counted == len(rows) > 0  # each rated seat of each game once, replays or not
