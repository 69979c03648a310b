"""A pause that nobody takes advantage of drops nothing (issue 58, "One pause drops every
room"): a process stopped (SIGSTOP) for longer than the lease ttl, with no other process
to claim its rooms, keeps them when it runs again: the lapsed leases are taken again with
their fencing numbers, and no socket is closed. (A pause that a peer does use is fenced
out: test_cluster_failover.py.)"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_support import LEASE_TTL, Cluster, Player, post


@pytest.fixture
def alone(database_url: str, tmp_path: Path) -> Iterator[Cluster]:
    cluster = Cluster(database_url, tmp_path, size=1)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def test_a_pause_past_the_ttl_with_nobody_competing_keeps_the_rooms(alone: Cluster) -> None:
    node = alone.nodes[0]
    rooms = [await post(node.url, "/api/solo", {"name": "south", "target": 50}) for _ in range(3)]
    # (Slower than the bots: a game action costs 3 of the 10 tokens a second a socket
    # gets, so a player acting faster than about 3 times a second for long is cut for its
    # message rate, 1008, which is not what this test is about; at 0.15 s it was, now and
    # then, once the bots' turns stopped spacing its actions out.)
    players = [Player(node.url, r["code"], r["token"], think=0.3) for r in rooms]
    games = [asyncio.create_task(p.play()) for p in players]
    while not all(p.states and p.states[-1]["seq"] >= 4 for p in players):
        await asyncio.sleep(0.05)
    fences = [alone.fence_of(r["code"]) for r in rooms]
    node.signal(signal.SIGSTOP)
    try:
        await asyncio.sleep(LEASE_TTL * 2.5)  # every lease lapses meanwhile
        assert all(alone.owner_of(r["code"]) is None for r in rooms)
    finally:
        node.signal(signal.SIGCONT)
    finals = await asyncio.gather(*games)
    assert all(f["view"]["phase"] == "over" for f in finals)
    for player in players:
        assert not player.close_codes, player.failures  # no 4012: nothing was dropped
        assert not player.errors, player.errors
    # Each room kept its lease and its number (no new claim was needed).
    assert [alone.fence_of(r["code"]) for r in rooms] == fences
    assert "lease lost" not in node.log.read_text()
    assert "taken again" in node.log.read_text()
