"""Redis or PostgreSQL away for a while under a running cluster: no process crashes, the
players are told (4012 or `storage_error`) instead of left in silence, nothing that was
acknowledged is lost, and the game goes on from the same seq once the service is back.

The two processes reach the service through a TCP relay that runs on a thread of this test
(tests/tcp_relay.py), which cuts it and restores it; the shared servers are never touched.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import pytest
from cluster_support import REDIS_URL, Cluster, Player, get, post, start_game
from sqlalchemy.engine import make_url

from tcp_relay import RelayThread

TTL = 1.0  # the lease ttl of these clusters: an outage of 4 ttl outlasts every lease
LIMIT = 60.0  # a guard against hangs, not a timing assertion


# --- the clusters, with one service behind a relay ------------------------------------


def via(url: str, port: int) -> str:
    """`url` with its host and port replaced by the relay's (user, database kept)."""
    parts = urlsplit(url)
    auth = parts.netloc.rpartition("@")[0]
    netloc = f"{auth}@127.0.0.1:{port}" if auth else f"127.0.0.1:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def relay_to(url: str) -> RelayThread:
    parts = urlsplit(url)
    relay = RelayThread(parts.hostname or "127.0.0.1", parts.port or 0)
    relay.start()
    return relay


@pytest.fixture
def redis_relay(services: None) -> Iterator[RelayThread]:
    relay = relay_to(REDIS_URL)
    try:
        yield relay
    finally:
        relay.close()


@pytest.fixture
def pg_relay(database_url: str) -> Iterator[RelayThread]:
    relay = relay_to(database_url.replace("+asyncpg", ""))
    try:
        yield relay
    finally:
        relay.close()


def two_processes(database_url: str, logdir: Path, **env: str) -> Iterator[Cluster]:
    # The table's seats are placed on purpose (relayed and local ones): rooms do not move
    # to where their first socket lands here.
    settings = {"SPADES_LEASE_TTL": str(TTL), "SPADES_FOLLOW_SOCKETS": "false", **env}
    cluster = Cluster(database_url, logdir, size=2, env=settings)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def redis_cluster(database_url: str, redis_relay: RelayThread, tmp_path: Path) -> Iterator[Cluster]:
    """Two processes whose Redis is behind `redis_relay`."""
    yield from two_processes(
        database_url, tmp_path, SPADES_REDIS_URL=via(REDIS_URL, redis_relay.port)
    )


@pytest.fixture
def pg_cluster(database_url: str, pg_relay: RelayThread, tmp_path: Path) -> Iterator[Cluster]:
    """Two processes whose PostgreSQL is behind `pg_relay`."""
    url = make_url(database_url).set(host="127.0.0.1", port=pg_relay.port)
    yield from two_processes(
        database_url, tmp_path, SPADES_DATABASE_URL=url.render_as_string(hide_password=False)
    )


# --- a table of four humans over two processes ----------------------------------------


class Table:
    """Seat 0 on the room's owner (node 1), seats 1 and 3 relayed from node 2, seat 2
    through HAProxy. Each seat plays until the game reaches `goal` (moved by the test)."""

    def __init__(self, cluster: Cluster, code: str, tokens: list[str]) -> None:
        n1, n2 = cluster.nodes
        bases = [n1.url, n2.url, cluster.url, n2.url]
        self.code = code
        self.players = [Player(b, code, t, think=0.05) for b, t in zip(bases, tokens, strict=True)]
        self.games: list[asyncio.Task[dict[str, Any]]] = []
        self.play_on()

    def play_on(self) -> None:
        """Every seat plays (again), with no end in sight until `play_until`."""
        self.goal = 10**6
        self.games = [asyncio.create_task(p.play(until=self._reached)) for p in self.players]

    def _reached(self, state: dict[str, Any]) -> bool:
        return bool(state["seq"] >= self.goal)

    @property
    def seq(self) -> int:
        """The furthest any seat has seen (a seat whose play failed raises its error)."""
        for game in self.games:
            if game.done() and not game.cancelled() and game.exception() is not None:
                game.result()
        return max((p.states[-1]["seq"] for p in self.players if p.states), default=0)

    def signals(self) -> int:
        """Close codes and error messages, all seats together."""
        return sum(len(p.close_codes) + len(p.errors) for p in self.players)

    async def play_until(self, goal: int) -> None:
        self.goal = goal
        _, waiting = await asyncio.wait(self.games, timeout=LIMIT)
        stuck = [
            (i, p.states[-1]["seq"] if p.states else None, p.close_codes[-5:], p.errors[-3:])
            for i, (p, g) in enumerate(zip(self.players, self.games, strict=True))
            if g in waiting
        ]
        assert not stuck, stuck
        for game in self.games:
            game.result()

    def cancel(self) -> None:
        for game in self.games:
            game.cancel()


async def table(cluster: Cluster) -> Table:
    n1, n2 = cluster.nodes
    made = await post(n1.url, "/api/rooms", {"name": "north", "target": 500})
    code, tokens = made["code"], [made["token"]]
    for seat, base in ((1, n2.url), (2, cluster.url), (3, n2.url)):
        joined = await post(base, f"/api/rooms/{code}/join", {"name": f"p{seat}", "seat": seat})
        tokens.append(joined["token"])
    assert cluster.owner_of(code) is n1
    await start_game(n1.url, code, tokens[0])
    return Table(cluster, code, tokens)


# --- checks ---------------------------------------------------------------------------


async def wait_for(
    predicate: Callable[[], bool], limit: float = LIMIT, shown: Callable[[], Any] = str
) -> None:
    """Polls a condition (a guard against hangs, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < deadline, f"condition never held: {shown()}"
        await asyncio.sleep(0.05)


async def all_alive(cluster: Cluster) -> None:
    for node in cluster.nodes:
        assert node.proc is not None and node.proc.poll() is None, node.log.read_text()[-3000:]
        response = await get(node.url, "/healthz")
        assert response.status_code == 200, (node.index, response.status_code)


async def logged(database_url: str, game_id: int) -> list[tuple[int, int | None, dict[str, Any]]]:
    """The game's action log as PostgreSQL has it (read directly, not through a relay)."""
    dsn = make_url(database_url).set(drivername="postgresql").render_as_string(False)
    conn = await asyncpg.connect(dsn, timeout=5)
    try:
        rows = await conn.fetch(
            "SELECT seq, seat, action FROM actions WHERE game_id = $1 ORDER BY seq", game_id
        )
    finally:
        await conn.close()
    return [(r["seq"], r["seat"], json.loads(r["action"])) for r in rows]


async def nothing_acknowledged_lost(database_url: str, tab: Table) -> int:
    """Every action any seat saw accepted is in the log, which has no gap; returns its length."""
    game_id = tab.players[0].states[-1]["room"]["game_id"]
    log = await logged(database_url, game_id)
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
    acked = [a for p in tab.players for a in p.acked]
    assert acked
    for sent, answered, seat, action in acked:
        assert any(
            sent < seq <= answered and who == seat and action.items() <= row.items()
            for seq, who, row in log
        ), (sent, answered, seat, action, log[sent : answered + 1])
    for player in tab.players:
        seqs = [s["seq"] for s in player.states]
        assert seqs == sorted(seqs), seqs  # never back, across every reconnect
        assert seqs[-1] <= len(log)
    return len(log)


def answered(code: int | None, failure: str) -> bool:
    """A close frame (4012 ...), or an HTTP refusal of the socket: HAProxy's 503 (or 502
    for a handshake it cut) once every process has left its pool, as each does while Redis
    is out of its reach (cluster/health.py), or HAProxy cutting the socket of a server it
    marked down (`on-marked-down shutdown-sessions`: with its 500 ms check that can come
    before the process's own 4012). The client learns at once and reconnects from each.
    Not a timeout: a socket left silent until the client gave up on it."""
    return (
        code is not None
        or failure.startswith("InvalidStatus")
        or failure.startswith("ConnectionClosedError(None, None")
    )


def told(player: Player) -> int:
    """Answers (above) and error messages this seat got."""
    answers = zip(player.close_codes, player.failures, strict=True)
    return sum(answered(code, failure) for code, failure in answers) + len(player.errors)


# --- the tests --------------------------------------------------------------------------


async def test_redis_cut_then_stalled_for_several_ttls(
    redis_cluster: Cluster, redis_relay: RelayThread, database_url: str
) -> None:
    """Cut: Redis refuses connections (it went down). Stalled: it takes them but answers
    nothing (a partition, a paused server): every command waits until it times out. The
    same game goes through both, one after the other."""
    cluster = redis_cluster
    tab = await table(cluster)
    try:
        await wait_for(lambda: tab.seq >= 8)
        await redis_away(cluster, redis_relay, tab, "cut")
        tab.play_on()
        await redis_away(cluster, redis_relay, tab, "stalled")
    finally:
        tab.cancel()
    await all_alive(cluster)
    for seat, player in enumerate(tab.players):  # no socket left silent until it timed out
        silent = [
            f
            for c, f in zip(player.close_codes, player.failures, strict=True)
            if not answered(c, f)
        ]
        assert not silent, (seat, silent)
    assert await nothing_acknowledged_lost(database_url, tab) >= tab.goal
    assert cluster.owner_of(tab.code) is not None  # claimed again after the outage
    assert "room(s) dropped" in cluster.nodes[0].log.read_text()  # the owner let go in time


async def redis_away(cluster: Cluster, redis_relay: RelayThread, tab: Table, how: str) -> None:
    """Redis away for 4 ttl mid-game, then back: every seat told, the game goes on."""
    before = [told(p) for p in tab.players]
    if how == "cut":
        redis_relay.cut()
    else:
        redis_relay.stall(True)
    # Every seat is told (a close code, an error), the relayed ones too: none is left
    # waiting in silence until its receive times out.
    await wait_for(
        lambda: all(told(p) > n for p, n in zip(tab.players, before, strict=True)),
        limit=10 * TTL,
        shown=lambda: [(p.close_codes, p.errors[-2:]) for p in tab.players],
    )
    await asyncio.sleep(4 * TTL)  # the outage: every lease has lapsed by now
    await all_alive(cluster)
    # Per-address limits let requests through; what needs Redis is refused clearly.
    lobby = await get(cluster.nodes[1].url, "/api/rooms")
    assert lobby.status_code == 200, lobby.text
    async with httpx.AsyncClient(base_url=cluster.nodes[1].url, timeout=30) as http:
        made = await http.post("/api/rooms", json={"name": "late"})
        assert made.status_code == 503, made.text
        state = await http.get(f"/api/rooms/{tab.code}")
        assert state.status_code == 503, state.text
        # A room's past games come from the database alone.
        history = await http.get(f"/api/rooms/{tab.code}/history")
        assert history.status_code == 200 and history.json() == {"games": []}, history.text
    stopped_at = tab.seq
    if how == "cut":
        redis_relay.restore()
    else:
        redis_relay.stall(False)
    await tab.play_until(stopped_at + 12)


async def test_postgresql_away_mid_game(
    pg_cluster: Cluster, pg_relay: RelayThread, database_url: str
) -> None:
    cluster = pg_cluster
    tab = await table(cluster)
    try:
        await wait_for(lambda: tab.seq >= 8)
        pg_relay.cut()

        def storage_errors() -> int:
            return sum(e["code"] == "storage_error" for p in tab.players for e in p.errors)

        await wait_for(lambda: storage_errors() >= 1)
        stopped_at = tab.seq
        await wait_for(lambda: storage_errors() >= 4)  # tried again, refused again
        await asyncio.sleep(3.0)  # several of HAProxy's health checks (deploy/haproxy.cfg)
        assert tab.seq == stopped_at  # nothing refused was shown as done
        await all_alive(cluster)
        for base in (cluster.nodes[1].url, cluster.url):  # REST: refused clearly, 503
            async with httpx.AsyncClient(base_url=base, timeout=30) as http:
                made = await http.post("/api/rooms", json={"name": "late"})
                assert made.status_code == 503, made.text
                lobby = await http.get("/api/rooms")
                assert lobby.status_code == 503, lobby.text
        pg_relay.restore()
        await tab.play_until(stopped_at + 12)
    finally:
        tab.cancel()
    await all_alive(cluster)
    assert await nothing_acknowledged_lost(database_url, tab) >= stopped_at + 12
    for player in tab.players:  # the tables stayed up: no socket was cut or timed out
        assert player.close_codes == [], player.failures


def test_a_cluster_server_whose_port_is_taken_exits(database_url: str, tmp_path: Path) -> None:
    """Stopped right after it started (its port is taken), a cluster server still exits
    with uvicorn's code 3: its Redis tasks end even when the client swallowed their first
    cancellation (it did, about twice in three starts, and the process hung for good)."""
    env = {
        **os.environ,
        "SPADES_DATABASE_URL": database_url,
        "SPADES_REDIS_URL": REDIS_URL,
        "SPADES_REDIS_PREFIX": f"spades-test-{secrets.token_hex(4)}:",
        "SPADES_AUTO_UPGRADE": "false",
    }
    spades = str(Path(sys.executable).parent / "spades")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for attempt in range(3):
            log = tmp_path / f"serve{attempt}.log"
            with log.open("wb") as out:
                proc = subprocess.Popen(
                    [spades, "serve", "--port", str(port)], env=env, stdout=out, stderr=out
                )
                try:
                    code = proc.wait(LIMIT)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                    raise AssertionError(f"still running:\n{log.read_text()[-3000:]}") from None
            assert code == 3, log.read_text()[-3000:]
            assert "address already in use" in log.read_text()
