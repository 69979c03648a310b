"""Quick play's picking, on its own: four neighbours in rating whose spread fits every
one's window (which widens with the wait), then bots for whoever's chosen wait is over;
partners balanced; the in-memory queue's rules (once, expiry, a lapsed group back, a seat
handed again for a while)."""

from __future__ import annotations

from spades.rooms.quickplay import (
    SEAT_AGAIN,
    Entry,
    Group,
    Policy,
    Seated,
    Waiting,
    find_groups,
    seat_order,
)
from spades.rooms.quickplay_local import LocalQueue

POLICY = Policy(window=100.0, widen=10.0)
Q = "partnership:300"


def entry(name: str, rating: float, joined: float = 0.0, bots_at: float | None = None) -> Entry:
    return Entry(name, name.title(), Q, rating, joined, bots_at)


def test_four_close_ratings_are_grouped_and_far_ones_wait_until_the_window_widens() -> None:
    close = [entry(n, r) for n, r in (("a", 1500), ("b", 1520), ("c", 1540), ("d", 1600))]
    assert [len(g.players) for g in find_groups(close, 0.0, POLICY)] == [4]
    far = [*close[:3], entry("z", 1900)]  # 400 apart: 30 s of waiting for everyone
    assert find_groups(far, 29.0, POLICY) == []
    assert [g.bots for g in find_groups(far, 30.0, POLICY)] == [False]
    # A newcomer's narrow window holds the group back, whoever else has waited.
    newcomer = [*close[:3], entry("n", 1900, joined=29.0)]
    assert find_groups(newcomer, 30.0, POLICY) == []
    # Eight players: the two tightest fours, in rating order.
    eight = [entry(f"p{i}", 1000 + 300 * (i // 4) + i) for i in range(8)]
    groups = find_groups(eight, 0.0, POLICY)
    assert [[e.player_id for e in g.players] for g in groups] == [
        ["p0", "p1", "p2", "p3"],
        ["p4", "p5", "p6", "p7"],
    ]


def test_bots_for_whoever_waited_as_long_as_they_chose() -> None:
    waiting = [entry("a", 1500, bots_at=10.0), entry("b", 1500), entry("c", 1900, bots_at=5.0)]
    assert find_groups(waiting, 4.0, POLICY) == []
    groups = find_groups(waiting, 10.0, POLICY)
    assert [([e.player_id for e in g.players], g.bots) for g in groups] == [
        (["a"], True),
        (["c"], True),
    ]


def test_partners_are_balanced() -> None:
    four = [entry(n, r) for n, r in (("low", 1400), ("mid1", 1450), ("mid2", 1480), ("top", 1500))]
    order = seat_order(Group("g", Q, tuple(four), bots=False), "partnership")
    assert [e.player_id for e in order] == ["top", "mid1", "low", "mid2"]  # 0+2 vs 1+3


async def test_the_local_queue_keeps_the_same_rules() -> None:
    queue = LocalQueue(expire=15.0)
    names = ["a", "b", "c", "d"]
    for name in names:
        assert await queue.join(entry(name, 1500), 0.0)
    assert not await queue.join(entry("a", 1500), 0.0)
    group = Group("g1", Q, tuple(entry(n, 1500) for n in names), bots=False)
    assert await queue.claim(group, deadline=10.0)
    assert not await queue.claim(Group("g2", Q, group.players, False), 10.0)
    state = await queue.poll("a", 1.0)
    assert isinstance(state, Waiting) and state.seating and state.waiting == 0
    assert await queue.waiting(Q, 9.0) == []
    for name in names:
        await queue.poll(name, 9.0)
    back = await queue.waiting(Q, 11.0)  # the group lapsed: its players wait again
    assert sorted(e.player_id for e in back) == names
    assert not await queue.deliver("g1", {})
    assert await queue.claim(Group("g3", Q, group.players, False), 21.0)
    seat = Seated("ROOM", 0, "token", True)
    assert await queue.deliver("g3", {"a": seat})
    assert await queue.poll("a", 12.0) == seat
    # Handed again to the same player for SEAT_AGAIN (their answer was lost), then gone.
    assert await queue.poll("a", 12.0 + SEAT_AGAIN) == seat
    assert await queue.leave("a", 12.0 + SEAT_AGAIN) == seat
    assert await queue.poll("a", 12.1 + SEAT_AGAIN) is None
    assert await queue.leave("b", 12.0) is None  # seated without a seat for them: gone
    assert await queue.join(entry("e", 1500), 12.0)
    assert await queue.waiting(Q, 28.0) == []  # not polled for 15 s
    assert await queue.poll("e", 28.0) is None


async def test_a_seat_not_handed_out_holds_the_player_one_handed_out_does_not() -> None:
    queue = LocalQueue(expire=15.0)
    told: list[list[str]] = []
    queue.notify = lambda players: told.append(list(players))
    group = Group("g", Q, (entry("a", 1500),), bots=True)
    assert await queue.join(entry("a", 1500), 0.0) and await queue.claim(group, 10.0)
    seat = Seated("ROOM", 0, "token", False)
    assert await queue.deliver("g", {"a": seat})
    assert told == [["a"]]  # a poll waiting for the seat hears of it at once
    assert not await queue.join(entry("a", 1500), 1.0)  # their seat waits for them
    assert await queue.poll("a", 1.0) == seat
    assert await queue.join(entry("a", 1500), 2.0)  # handed: they moved on
    assert isinstance(await queue.poll("a", 2.0), Waiting)
