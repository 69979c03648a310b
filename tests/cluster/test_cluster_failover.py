"""Failover: kill -9 of a room's owner, an owner paused past its lease (fencing), SIGTERM's
drain, and a rolling restart of every process while games are played."""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

from cluster_support import CLOSE_RECONNECT, LEASE_TTL, Cluster, Node, Player, get, post


async def solo(base: str, **settings: Any) -> tuple[str, str]:
    made = await post(base, "/api/solo", {"name": "south", "target": 50, **settings})
    return made["code"], made["token"]


async def wait_for(predicate: Any, limit: float = 30.0) -> None:
    """Polls a condition (a guard against hangs, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < deadline, "condition never held"
        await asyncio.sleep(0.05)


def seqs_never_go_back(player: Player) -> None:
    seqs = [s["seq"] for s in player.states]
    assert seqs == sorted(seqs), seqs


async def record_matches(cluster: Cluster, code: str, final: dict[str, Any]) -> None:
    """Every accepted action is in the log, in order, exactly the ones the players saw."""
    game_id = final["room"]["game_id"]
    response = await get(cluster.url, f"/api/games/{game_id}/record")
    assert response.status_code == 200, (code, response.status_code, response.text)
    assert len(response.json()["actions"]) == final["seq"]


async def test_kill_9_of_the_owner_mid_hand(cluster: Cluster) -> None:
    # Two rooms made on node 1: one a human plays (through HAProxy), one where the human
    # never moves, so only the turn timer (a bot moving for them) and the bots go on.
    # Both sockets first go straight to the owner (so neither room moves to where HAProxy
    # would send it), then through HAProxy once the owner is gone.
    owner = cluster.nodes[0]
    code, token = await solo(owner.url)
    idle_code, idle_token = await solo(owner.url, turn_seconds=1)
    assert cluster.owner_of(code) is owner and cluster.owner_of(idle_code) is owner
    urls = iter([owner.url])
    player = Player(lambda: next(urls, cluster.url), code, token, think=0.1)
    game = asyncio.create_task(player.play())
    idle_urls = iter([owner.url])
    idle = Player(lambda: next(idle_urls, cluster.url), idle_code, idle_token)
    await idle.play(lambda view: None, until=lambda s: s["seq"] >= 1)
    await wait_for(lambda: bool(player.states) and player.states[-1]["seq"] >= 8)
    assert cluster.owner_of(code) is owner and cluster.owner_of(idle_code) is owner
    owner.signal(signal.SIGKILL)
    owner.wait_exit()
    final = await game
    assert final["view"]["phase"] == "over"
    seqs_never_go_back(player)
    new_owner = cluster.owner_of(code)
    assert new_owner is not None and new_owner is not owner
    await record_matches(cluster, code, final)
    # Nobody acts in the idle room: its seq goes on only through the resumed timer and bots.
    idle_seq = idle.states[-1]["seq"]
    await idle.play(lambda view: None, until=lambda s: s["seq"] >= idle_seq + 13)
    seqs_never_go_back(idle)
    assert cluster.owner_of(idle_code) not in (None, owner)


async def test_owner_paused_past_its_lease_is_fenced_out(cluster: Cluster) -> None:
    node = cluster.nodes[0]
    code, token = await solo(node.url)
    assert cluster.owner_of(code) is node
    player = Player(node.url, code, token, think=0.1)  # its socket is on the owner
    game = asyncio.create_task(player.play())
    await wait_for(lambda: bool(player.states) and player.states[-1]["seq"] >= 6)
    fence = cluster.fence_of(code)
    node.signal(signal.SIGSTOP)
    try:
        # The lease lapses; the orphan sweep of another process claims the room.
        await wait_for(lambda: cluster.owner_of(code) not in (None, node), limit=LEASE_TTL * 10)
        assert cluster.fence_of(code) > fence
    finally:
        node.signal(signal.SIGCONT)
    final = await game
    assert CLOSE_RECONNECT in player.close_codes, player.failures  # moved on by the old owner
    seqs_never_go_back(player)
    await record_matches(cluster, code, final)
    text = node.log.read_text()
    assert "lease lost" in text or "fenced out" in text


async def test_a_dead_processs_rooms_are_shared_among_the_survivors(cluster: Cluster) -> None:
    """Rooms nobody is connected to go on through the orphan sweep after a kill -9, and
    they are spread over the surviving processes, not all taken by the first to sweep."""
    dead = cluster.nodes[0]
    codes = [(await solo(dead.url, turn_seconds=1))[0] for _ in range(12)]
    assert all(cluster.owner_of(code) is dead for code in codes)
    dead.signal(signal.SIGKILL)
    dead.wait_exit()
    await wait_for(lambda: all(cluster.owner_of(c) not in (None, dead) for c in codes))
    shares = sorted(sum(cluster.owner_of(c) is n for c in codes) for n in cluster.nodes[1:])
    assert shares[0] >= 4, shares  # 6 and 6 when the sweeps do not overlap


async def test_sigterm_hands_rooms_over_at_once(cluster: Cluster) -> None:
    node = cluster.nodes[1]
    code, token = await solo(node.url)
    assert cluster.owner_of(code) is node
    urls = iter([node.url])
    player = Player(lambda: next(urls, cluster.url), code, token, think=0.1)
    game = asyncio.create_task(player.play())
    await wait_for(lambda: bool(player.states) and player.states[-1]["seq"] >= 4)
    node.signal(signal.SIGTERM)
    final = await game
    assert player.close_codes[0] == CLOSE_RECONNECT, player.failures
    seqs_never_go_back(player)
    await record_matches(cluster, code, final)
    assert node.wait_exit() in (0, -signal.SIGTERM)
    assert "handed over" in node.log.read_text()


async def restart(node: Node) -> None:
    node.signal(signal.SIGTERM)
    await asyncio.to_thread(node.wait_exit)
    node.start()
    await asyncio.to_thread(node.wait_ready)


async def test_rolling_restart_during_ten_games_loses_nothing(cluster: Cluster) -> None:
    rooms = [await solo(cluster.url, target=300) for _ in range(10)]

    players = [Player(cluster.url, code, token, think=0.05) for code, token in rooms]
    restarted = asyncio.Event()

    async def play_across_restarts(player: Player) -> dict[str, Any]:
        # On a slow machine three restarts can outlast a whole game, so a seat that reaches
        # its third hand before they are done waits there (offline; the room is untimed)
        # until every node has restarted, so the games outlast the restarts.
        def over(state: dict[str, Any]) -> bool:
            return state["view"] is not None and state["view"]["phase"] == "over"

        def early_stop(state: dict[str, Any]) -> bool:
            view = state["view"]
            return over(state) or (
                not restarted.is_set() and view is not None and view["hand_number"] >= 3
            )

        final = await player.play(until=early_stop)
        if over(final):
            return final
        await restarted.wait()
        return await player.play()

    games = [asyncio.create_task(play_across_restarts(p)) for p in players]
    await wait_for(lambda: all(p.states for p in players))
    for node in cluster.nodes:
        await restart(node)
    restarted.set()
    assert not all(game.done() for game in games), "the games ended before the restarts"
    _, waiting = await asyncio.wait(games, timeout=300)
    stuck = [
        (p.code, p.states[-1]["seq"] if p.states else None, p.close_codes, p.errors[-3:])
        for p, g in zip(players, games, strict=True)
        if g in waiting
    ]
    assert not stuck, stuck
    finals = [g.result() for g in games]
    assert any(p.close_codes for p in players)
    for (code, _), player, final in zip(rooms, players, finals, strict=True):
        assert final["view"]["phase"] == "over"
        seqs_never_go_back(player)
        await record_matches(cluster, code, final)
