"""Rooms across processes: a game played through three processes, the lobby, creation and
joining from any process, and a game's record kept secret on every process until it is over."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from cluster_support import Cluster, Player, get, post, start_game

from hidden_cards import card_strings, current_hand_only, deals_of, played


async def four_humans(cluster: Cluster, target: int = 50) -> tuple[str, list[str]]:
    """A room made on node 1, seats 1-3 joined through nodes 2, 3 and HAProxy."""
    nodes = cluster.nodes
    made = await post(nodes[0].url, "/api/rooms", {"name": "north", "target": target})
    code, tokens = made["code"], [made["token"]]
    for seat, base in zip((1, 2, 3), (nodes[1].url, nodes[2].url, cluster.url), strict=True):
        joined = await post(base, f"/api/rooms/{code}/join", {"name": f"p{seat}", "seat": seat})
        assert joined["seat"] == seat
        tokens.append(joined["token"])
    return code, tokens


def only_own_cards(player: Player, seat: int, record: dict[str, Any]) -> None:
    deals = deals_of(record)
    checked = 0
    for state in player.states:
        state = current_hand_only(state)  # the previous hand's last trick is public
        view = state["view"]
        if view is None or view["phase"] == "over":  # a finished game shows every hand
            continue
        assert view["seat"] == seat
        others = set().union(*(d for s, d in enumerate(deals[view["hand_number"]]) if s != seat))
        seen = card_strings(state) - played(view)
        assert not (seen & others), f"seat {seat} saw {sorted(seen & others)}"
        checked += 1
    assert checked > 0


async def test_four_players_over_three_processes_play_to_the_end(cluster: Cluster) -> None:
    code, tokens = await four_humans(cluster)
    nodes = cluster.nodes
    bases = [nodes[0].url, nodes[1].url, nodes[2].url, cluster.url]
    # Before the game starts, and while it is played, no process gives its record out.
    await start_game(nodes[0].url, code, tokens[0])
    players = [Player(bases[i], code, tokens[i]) for i in range(4)]
    room = (await get(cluster.url, f"/api/rooms/{code}")).json()
    game_id = room["game_id"]
    for node in nodes:
        response = await get(node.url, f"/api/games/{game_id}/record")
        assert response.status_code == 409, response.text
    finals = await asyncio.gather(*(p.play() for p in players))
    assert {f["seq"] for f in finals} == {finals[0]["seq"]}
    assert all(not p.errors for p in players), [p.errors for p in players]
    record = (await get(nodes[1].url, f"/api/games/{game_id}/record")).json()
    assert len(record["actions"]) == finals[0]["seq"]
    for seat, player in enumerate(players):
        only_own_cards(player, seat, record)
    # The players on nodes 2, 3 and HAProxy were relayed or local: all saw the same table.
    assert {f["view"]["tricks_won"].__repr__() for f in finals} == {
        finals[0]["view"]["tricks_won"].__repr__()
    }


async def test_a_room_goes_to_where_its_sockets_land(cluster: Cluster) -> None:
    """A room nobody is connected to moves to the process its first socket reaches (HAProxy
    sends every socket of a room to one process) and is served there, not relayed; a room
    someone is connected to stays where it is, and a socket elsewhere is relayed."""
    nodes = cluster.nodes
    code, tokens = await four_humans(cluster)
    assert cluster.owner_of(code) is nodes[0]
    await start_game(nodes[0].url, code, tokens[0])
    # The four players connect at once, all to node 2 (as HAProxy sends a room's sockets).
    players = [Player(nodes[1].url, code, token) for token in tokens]
    states = await asyncio.gather(
        *(p.play(lambda view: None, until=lambda s: True) for p in players)
    )
    assert [s["view"]["seat"] for s in states] == [0, 1, 2, 3]
    assert cluster.owner_of(code) is nodes[1]
    assert all(not p.close_codes and not p.errors for p in players), [
        (p.close_codes, p.errors) for p in players
    ]
    held = Player(nodes[1].url, code, tokens[1])
    holding = asyncio.create_task(held.play(lambda view: None, until=lambda s: False))
    try:
        while not held.states:
            await asyncio.sleep(0.05)
        other = Player(nodes[2].url, code, tokens[2])
        state = await other.play(lambda view: None, until=lambda s: True)
        assert state["view"]["seat"] == 2
        assert cluster.owner_of(code) is nodes[1]  # relayed: the room did not move
        assert not other.close_codes and not held.close_codes
        # /metrics tells an operator each process's share.
        owner = await cluster_metrics(nodes[1].url)
        assert owner["spades_cluster_leases"] >= 1 and owner["spades_cluster_draining"] == 0
        assert owner["spades_cluster_leases_lost_total"] == 0
        assert "spades_cluster_orphans_claimed_total" in owner
    finally:
        holding.cancel()


async def test_lobby_creation_and_joining_from_any_process(cluster: Cluster) -> None:
    nodes = cluster.nodes
    codes = []
    for node in nodes:
        made = await post(node.url, "/api/rooms", {"name": f"host{node.index}", "public": True})
        codes.append(made["code"])
    assert len(set(codes)) == 3
    for node in (*nodes, None):
        listed = (await get(node.url if node else cluster.url, "/api/rooms")).json()["rooms"]
        assert set(codes) <= {r["code"] for r in listed}
    # Joining a room held by node 1 through node 3: the seat is taken on the owner.
    joined = await post(nodes[2].url, f"/api/rooms/{codes[0]}/join", {"name": "guest"})
    assert joined["seat"] == 1
    room = (await get(nodes[1].url, f"/api/rooms/{codes[0]}")).json()
    assert room["seats"][1]["name"] == "guest"
    missing = await get(nodes[1].url, "/api/rooms/ZZZZZZ")
    assert missing.status_code == 404


@pytest.mark.cluster_env(SPADES_ROOMS_PER_MINUTE="4", SPADES_JOINS_PER_MINUTE="5")
async def test_per_address_limits_count_across_processes(cluster: Cluster) -> None:
    nodes = cluster.nodes
    statuses = []
    for i in range(6):  # one address, creations spread over the three processes
        async with httpx.AsyncClient(base_url=nodes[i % 3].url, timeout=30) as http:
            statuses.append((await http.post("/api/rooms", json={"name": "h"})).status_code)
    assert statuses == [200] * 4 + [429] * 2


async def cluster_metrics(base: str) -> dict[str, float]:
    """The `spades_cluster_*` samples of one process's /metrics."""
    text = (await get(base, "/metrics")).text
    samples = {}
    for line in text.splitlines():
        if line.startswith("spades_cluster_"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples
