"""Ratings in the store, on both databases and every commit path: a rated game's finish
writes its rating changes and the players' ratings in the same transaction, once per game
however often it is finished; two games of one player finishing from the same rating both
count; the leaderboard's pages, its own rank and its minimum of games."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import text
from store_support import FakeClock
from test_store_stats import room, seat_stats

from spades.store import PlayerRow, SqlStore, open_store
from spades.store.protocol import StoredRating


def change(seat: int, player: str, before: tuple[float, float], after: tuple[float, float]) -> Any:
    return {
        "seat": seat,
        "player_id": player,
        "mu_before": before[0],
        "sigma_before": before[1],
        "mu_after": after[0],
        "sigma_after": after[1],
        "weight": 1.0,
        "quit": seat == 1,
    }


@pytest.fixture(params=["writer", "inline", "fenced"])
async def path_store(
    request: pytest.FixtureRequest, db_url: str, clock: FakeClock
) -> AsyncIterator[tuple[SqlStore, int | None]]:
    opened = await open_store(db_url, clock=clock, writer_process=request.param == "writer")
    for pid in ("ann", "bob"):
        await opened.create_player(PlayerRow(id=pid, secret_hash="h", name=pid.title()))
    yield opened, (7 if request.param == "fenced" else None)
    await opened.close()


async def test_a_rated_finish_changes_ratings_once(
    path_store: tuple[SqlStore, int | None],
) -> None:
    store, fence = path_store
    await room(store, "r1", {0: "ann", 1: "bob", 3: None}, fence or 0)
    game = await store.start_game("r1", {}, 0, "seed", fence=fence)
    stats = seat_stats("partnership", (1, 0, 1, 0))
    changes = [change(0, "ann", (25, 8.3), (27, 8.0)), change(1, "bob", (25, 8.3), (23, 8.1))]
    # A change for a seat whose player is someone else is not written.
    changes.append(change(3, "ann", (25, 8.3), (40, 1.0)))
    await store.finish_game(game, 0, [500, 100], stats=stats, ratings=changes, fence=fence)
    ann = await store.player_ratings("ann")
    assert ann == {"partnership": StoredRating(27.0, 8.0, 1)}
    # Finished again (a retry, a failover, a replay) with other figures: nothing changes.
    again = [change(0, "ann", (27, 8.0), (29, 7.0)), change(1, "bob", (23, 8.1), (21, 7.0))]
    await store.finish_game(game, 0, [500, 100], stats=stats, ratings=again, fence=fence)
    assert await store.player_ratings("ann") == ann
    assert await store.ratings(["ann", "bob", "zed"], "partnership") == {
        "ann": StoredRating(27.0, 8.0, 1),
        "bob": StoredRating(23.0, 8.1, 1),
    }
    history = await store.rating_history("bob")
    assert [(h.game_id, h.mu_before, h.mu_after, h.quit) for h in history] == [
        (game, 25.0, 23.0, True)
    ]
    assert (await store.player_stats("ann"))["partnership"].won == 1  # statistics as well
    # An unrated finish of another game leaves the ratings alone.
    other = await store.start_game("r1", {}, 1, "seed", fence=fence)
    await store.finish_game(other, 0, [500, 100], stats=stats, fence=fence)
    assert await store.player_ratings("ann") == ann


async def test_two_games_from_one_rating_both_count(store: SqlStore) -> None:
    """Two processes finish a game of ann's each, both computed from her rating before
    either: each adds its own change."""
    await store.create_player(PlayerRow(id="ann", secret_hash="h"))
    await room(store, "r1", {0: "ann"}, 0)
    await room(store, "r2", {2: "ann"}, 0)
    one = await store.start_game("r1", {}, 0, "s")
    two = await store.start_game("r2", {}, 0, "s")
    stats = seat_stats("individual", (1, 0, 0, 0))
    await store.finish_game(
        one, 0, [4, 3, 2, 1], stats=stats, ratings=[change(0, "ann", (25, 8), (28, 7.5))]
    )
    await store.finish_game(
        two, 0, [4, 3, 2, 1], stats=stats, ratings=[change(2, "ann", (25, 8), (26, 7.75))]
    )
    got = (await store.player_ratings("ann"))["individual"]
    assert (round(got.mu, 6), round(got.sigma, 6), got.games) == (29.0, 7.25, 2)
    async with store.engine.connect() as conn:
        version = (await conn.execute(text("SELECT version FROM player_ratings"))).scalar()
    assert version == 2


async def test_leaderboard_pages_rank_and_minimum(store: SqlStore) -> None:
    players = {f"p{i}": 20.0 + i for i in range(5)}  # p4 best
    for pid in players:
        await store.create_player(PlayerRow(id=pid, secret_hash="h", name=pid.upper()))
    for i, (pid, mu) in enumerate(players.items()):
        rounds = 1 if pid == "p0" else 2
        for n in range(rounds):
            await room(store, f"r{i}{n}", {0: pid}, 0)
            game = await store.start_game(f"r{i}{n}", {}, 0, "s")
            before = (25.0, 5.0) if n == 0 else (mu, 3.0)
            await store.finish_game(
                game,
                0,
                [500, 0],
                stats=seat_stats("partnership", (1, 0, 1, 0)),
                ratings=[change(0, pid, before, (mu, 3.0))],
            )
    total, page = await store.leaderboard("partnership", min_games=2, offset=0, limit=2)
    assert total == 4  # p0 has one game only
    assert [(r.rank, r.player_id, r.name) for r in page] == [(1, "p4", "P4"), (2, "p3", "P3")]
    total, page = await store.leaderboard("partnership", min_games=2, offset=2, limit=2)
    assert [(r.rank, r.player_id) for r in page] == [(3, "p2"), (4, "p1")]
    assert await store.leaderboard_rank("p2", "partnership", min_games=2) == 3
    assert await store.leaderboard_rank("p0", "partnership", min_games=2) is None
    assert await store.leaderboard_rank("p0", "partnership", min_games=1) == 5
    assert await store.leaderboard_rank("p4", "individual", min_games=1) is None
    assert (await store.leaderboard("individual", min_games=1, offset=0, limit=5))[0] == 0


async def test_two_processes_finish_games_of_one_player_at_once(
    store: SqlStore, db_url: str, clock: FakeClock
) -> None:
    """As two processes of a cluster: two stores finish a game of ann's each, at the same
    moment, both from her rating before either. Both changes count, whichever waits."""
    other = await open_store(db_url, clock=clock)
    try:
        await store.create_player(PlayerRow(id="ann", secret_hash="h"))
        await room(store, "r1", {0: "ann"}, 0)
        await room(store, "r2", {1: "ann"}, 0)
        one = await store.start_game("r1", {}, 0, "s")
        two = await store.start_game("r2", {}, 0, "s")
        stats = seat_stats("partnership", (1, 0, 1, 0))
        await asyncio.gather(
            store.finish_game(
                one, 0, [500, 0], stats=stats, ratings=[change(0, "ann", (25, 8), (27, 7.5))]
            ),
            other.finish_game(
                two, 1, [0, 500], stats=stats, ratings=[change(1, "ann", (25, 8), (26, 7.5))]
            ),
        )
        got = (await store.player_ratings("ann"))["partnership"]
        assert (round(got.mu, 6), round(got.sigma, 6), got.games) == (28.0, 7.0, 2)
        assert len(await store.rating_history("ann")) == 2
    finally:
        await other.close()


async def test_what_quick_play_checks_is_read_at_once(store: SqlStore) -> None:
    """`queue_facts`: the rated rooms being played with a seat of the player's (not an
    unrated one, nor one not playing), the end of their last quit, their rating."""
    from spades.store import RoomRow, SeatRow

    await store.create_player(PlayerRow(id="ann", secret_hash="h"))
    empty = await store.queue_facts("ann", "partnership")
    assert (empty.rated_games, empty.last_quit, empty.rating) == ([], None, None)
    for room_id, rated, status in (("r1", True, "playing"), ("r2", False, "playing")):
        seats = [SeatRow(room_id, 0, name="Ann", token_hash="t", player_id="ann")]
        row = RoomRow(id=room_id, code=room_id.upper(), settings={"rated": rated}, host_seat=0)
        await store.create_room(row, seats)
        await store.update_room(room_id, status=status)
    await room(store, "r3", {2: "ann"}, 0)  # (open, not rated)
    game = await store.start_game("r1", {}, 0, "s")
    quit_change = {**change(0, "ann", (25, 8), (22, 7.5)), "quit": True}
    await store.finish_game(
        game, 1, [100, 500], stats=seat_stats("partnership", (0, 1, 0, 1)), ratings=[quit_change]
    )
    facts = await store.queue_facts("ann", "partnership")
    assert facts.rated_games == ["R1"]
    assert facts.last_quit == await store.last_quit("ann") and facts.last_quit is not None
    assert facts.rating == StoredRating(22.0, 7.5, 1)
    assert (await store.queue_facts("ann", "individual")).rating is None
