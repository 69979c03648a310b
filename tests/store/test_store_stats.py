"""Players' statistics in the store, on both databases and every commit path: the finish
of a game adds each seat's statistics to its player's totals in the same transaction,
once per game however often it is finished; bots and seats of no player count for nobody."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from store_support import FakeClock

from spades.engine.stats import Counts, SeatStats
from spades.store import NotFound, PlayerRow, RoomRow, SeatRow, SqlStore, open_store


def seat_stats(mode: str, won: tuple[int, ...], points: int = 10) -> list[SeatStats]:
    return [
        SeatStats(
            seat,
            mode,  # type: ignore[arg-type]
            Counts(
                games=1,
                won=won[seat],
                hands=3,
                contracts_bid=2,
                contracts_made=1,
                sets=1,
                nils_bid=1,
                nils_made=seat % 2,
                blind_nils_bid=1,
                blind_nils_made=0,
                bags=seat,
                points=points + seat,
            ),
        )
        for seat in range(4)
    ]


async def room(store: SqlStore, room_id: str, players: dict[int, str | None], fence: int) -> None:
    """Seats 0..3: the given players (None: a person who named no player), else bots."""
    seats = [
        SeatRow(room_id, s, name=f"P{s}", token_hash=f"t{s}", player_id=players[s])
        if s in players
        else SeatRow(room_id, s, name="Bot", bot_level="easy")
        for s in range(4)
    ]
    row = RoomRow(id=room_id, code=room_id.upper(), settings={}, host_seat=0)
    await store.create_room(row, seats, fence=fence or None)


@pytest.fixture(params=["writer", "inline", "fenced"])
async def path_store(
    request: pytest.FixtureRequest, db_url: str, clock: FakeClock
) -> AsyncIterator[tuple[SqlStore, int | None]]:
    """A store on each commit path: a writer process, in process, and a cluster owner's
    fenced writes (SQLAlchemy's transaction instead of the one-statement fast path)."""
    opened = await open_store(db_url, clock=clock, writer_process=request.param == "writer")
    for pid in ("ann", "bob"):
        await opened.create_player(PlayerRow(id=pid, secret_hash="h", name=pid.title()))
    yield opened, (7 if request.param == "fenced" else None)
    await opened.close()


async def results(store: SqlStore) -> list[tuple[int, int, str | None, int, int]]:
    async with store.engine.connect() as conn:
        rows = await conn.execute(
            text(
                "SELECT game_id, seat, player_id, won, points FROM game_results "
                "ORDER BY game_id, seat"
            )
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]


async def test_a_finish_counts_each_player_once(path_store: tuple[SqlStore, int | None]) -> None:
    store, fence = path_store
    await room(store, "r1", {0: "ann", 1: "bob", 3: None}, fence or 0)
    game = await store.start_game("r1", {}, 0, "seed", fence=fence)
    won = seat_stats("partnership", (1, 0, 1, 0))
    await store.finish_game(game, 0, [510, 200], stats=won, fence=fence)
    ann, bob = await store.player_stats("ann"), await store.player_stats("bob")
    assert ann == {"partnership": won[0].counts}
    assert bob == {"partnership": won[1].counts}
    # The same finish again (its answer was lost, a failover, a replay): nothing more.
    await store.finish_game(game, 0, [510, 200], stats=won, fence=fence)
    assert await store.player_stats("ann") == ann
    # Only seats with a player have a row: bots and a person of no player count for nobody.
    assert await results(store) == [(game, 0, "ann", 1, 10), (game, 1, "bob", 0, 11)]
    # Another game adds up; an individual one is counted apart.
    second = await store.start_game("r1", {}, 1, "seed", fence=fence)
    lost = seat_stats("partnership", (0, 1, 0, 1))
    await store.finish_game(second, 1, [100, 520], stats=lost, fence=fence)
    solo = await store.start_game("r1", {"mode": "individual"}, 2, "seed", fence=fence)
    lone = seat_stats("individual", (0, 0, 0, 1), points=-20)
    await store.finish_game(solo, 3, [1, 2, 3, 4], stats=lone, fence=fence)
    totals = await store.player_stats("ann")
    assert totals["partnership"] == won[0].counts + lost[0].counts
    assert totals["individual"] == lone[0].counts
    assert (await store.player_stats("bob"))["partnership"].won == 1
    assert await store.player_stats("nobody") == {}
    with pytest.raises(NotFound):
        await store.finish_game(9999, 0, [0, 0], stats=won, fence=fence)
    assert len(await results(store)) == 6


async def test_a_player_in_two_seats_and_a_game_of_no_player(store: SqlStore) -> None:
    await store.create_player(PlayerRow(id="ann", secret_hash="h"))
    await room(store, "r2", {0: "ann", 2: "ann"}, 0)
    game = await store.start_game("r2", {}, 0, "seed")
    await store.finish_game(game, 0, [500, 0], stats=seat_stats("partnership", (1, 0, 1, 0)))
    both = (await store.player_stats("ann"))["partnership"]
    assert (both.games, both.won, both.points) == (2, 2, 22)  # each seat is a game played
    await room(store, "r3", {}, 0)
    bots = await store.start_game("r3", {}, 0, "seed")
    await store.finish_game(bots, 0, [500, 0], stats=seat_stats("partnership", (1, 0, 1, 0)))
    assert (await store.player_stats("ann"))["partnership"] == both


async def test_two_processes_finishing_one_game_count_it_once(
    db_url: str, clock: FakeClock
) -> None:
    """Two owners in doubt finish the same game at once (a failover's old and new owner,
    unfenced): the database lets one count it."""
    first = await open_store(db_url, clock=clock)
    second = await open_store(db_url, clock=clock, writer_process=False)
    try:
        await first.create_player(PlayerRow(id="ann", secret_hash="h"))
        await room(first, "r4", {0: "ann"}, 0)
        games = [await first.start_game("r4", {}, n % 4, "seed") for n in range(5)]
        stats = seat_stats("partnership", (1, 0, 1, 0))
        await asyncio.gather(
            *(s.finish_game(g, 0, [500, 0], stats=stats) for g in games for s in (first, second))
        )
        assert (await second.player_stats("ann"))["partnership"].games == 5
    finally:
        await first.close()
        await second.close()


async def test_the_in_memory_store_counts_too(clock: FakeClock) -> None:
    store = await open_store("sqlite+aiosqlite://", clock=clock)
    try:
        await store.create_player(PlayerRow(id="ann", secret_hash="h"))
        await room(store, "r5", {1: "ann"}, 0)
        game = await store.start_game("r5", {}, 0, "seed")
        stats = seat_stats("partnership", (0, 1, 0, 1))
        for _ in range(2):
            await store.finish_game(game, 1, [0, 500], stats=stats)
        assert await store.player_stats("ann") == {"partnership": stats[1].counts}
    finally:
        await store.close()


async def test_spades_db_stats_counts_again_from_the_log(
    db_url: str, store: SqlStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """Games finished before the statistics existed, and totals gone wrong, are counted
    again from the stored actions replayed; running it twice changes nothing."""
    from spades.cli import main as spades_main
    from spades.engine import Game, Rules
    from spades.engine.stats import game_stats
    from spades.store import ActionRow

    await store.create_player(PlayerRow(id="ann", secret_hash="h"))
    await store.create_player(PlayerRow(id="bob", secret_hash="h"))
    expected: dict[str, dict[str, Counts]] = {"ann": {}, "bob": {}}
    for n, mode in enumerate(("partnership", "individual", "partnership")):
        await room(store, f"g{n}", {0: "ann", 1: "bob"}, 0)
        rules = Rules(mode=mode, target=100)  # type: ignore[arg-type]
        game = Game.new(rules, seed=f"recount-{n}")
        while game.phase != "over":
            seat = game.to_act
            assert seat is not None
            if game.blind_nil_open(seat):
                game.apply(seat, {"type": "look"})
            elif game.phase == "bidding":
                game.apply(seat, {"type": "bid", "bid": 3})
            else:
                game.apply(seat, game.legal_actions(seat)[0])
        game_id = await store.start_game(f"g{n}", rules.to_dict(), game.first_dealer, game.seed)
        await asyncio.gather(
            *(
                store.append_action(ActionRow(game_id, seq, seat, action))
                for seq, (seat, action) in enumerate(game.actions, start=1)
            )
        )
        stats = game_stats(game)
        # The first as before statistics existed; the others counted at their finish.
        await store.finish_game(game_id, game.winner, game.scores, stats=stats if n else None)
        for pid, seat in (("ann", 0), ("bob", 1)):
            expected[pid][mode] = expected[pid].get(mode, Counts()) + stats[seat].counts
    async with store.engine.begin() as conn:  # totals gone wrong
        await conn.execute(text("UPDATE player_stats SET games = 99, points = -5"))
    for _ in range(2):
        assert await asyncio.to_thread(spades_main, ["db", "--url", db_url, "stats"]) == 0
        assert "3 finished games counted again, 6 seats with a player" in capsys.readouterr().out
        for pid in ("ann", "bob"):
            assert await store.player_stats(pid) == expected[pid]
