"""`/readyz` in cluster mode says whether this process can serve (issue 58, "Readiness
lies"): one of two processes behind HAProxy reaches Redis (then PostgreSQL) through a TCP
relay the test cuts (tests/tcp_relay.py), the other directly. The cut one answers 503
within about a lease ttl, HAProxy takes it out of the pool (its log says so) and sends a
room's requests to the other, and it is back in the pool once the service answers again.
PostgreSQL away for every process takes none out (test_cluster_outage.py): only a process
whose peer reaches the database counts it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_support import REDIS_URL, Cluster, get, post
from sqlalchemy.engine import make_url
from test_cluster_outage import relay_to, via

from tcp_relay import RelayThread

TTL = 1.0
LIMIT = 30.0  # a guard against hangs, not a timing assertion


@pytest.fixture
def relays(database_url: str) -> Iterator[dict[str, RelayThread]]:
    made = {"redis": relay_to(REDIS_URL), "pg": relay_to(database_url.replace("+asyncpg", ""))}
    try:
        yield made
    finally:
        for relay in made.values():
            relay.close()


@pytest.fixture
def cluster(database_url: str, relays: dict[str, RelayThread], tmp_path: Path) -> Iterator[Cluster]:
    """Node 1 reaches Redis and PostgreSQL through the relays, node 2 directly."""
    made = Cluster(database_url, tmp_path, size=2, env={"SPADES_LEASE_TTL": str(TTL)})
    pg = make_url(database_url).set(host="127.0.0.1", port=relays["pg"].port)
    made.nodes[0].env = {
        **made.nodes[0].env,
        "SPADES_REDIS_URL": via(REDIS_URL, relays["redis"].port),
        "SPADES_DATABASE_URL": pg.render_as_string(hide_password=False),
    }
    try:
        made.start()
        yield made
    finally:
        made.stop()


async def ready(url: str) -> int:
    return (await get(url, "/readyz")).status_code


async def until(url: str, status: int) -> float:
    """Seconds until `url`'s /readyz answers `status`."""
    started = time.monotonic()
    while await ready(url) != status:
        assert time.monotonic() - started < LIMIT, f"/readyz never answered {status}"
        await asyncio.sleep(0.1)
    return time.monotonic() - started


async def haproxy_says(cluster: Cluster, text: str, after: int) -> None:
    log = cluster.logdir / "haproxy.log"
    started = time.monotonic()
    while text not in log.read_text()[after:]:
        assert time.monotonic() - started < LIMIT, f"HAProxy never logged {text!r}"
        await asyncio.sleep(0.1)


async def rooms_go_to_node_2(cluster: Cluster) -> None:
    """Through HAProxy, every room's requests reach node 2 (both hash to one of the two)."""
    for i in range(8):
        made = await post(cluster.url, "/api/rooms", {"name": f"r{i}"})
        answer = await get(cluster.url, f"/api/rooms/{made['code']}")
        assert answer.status_code == 200, answer.text
        assert cluster.owner_of(made["code"]) is cluster.nodes[1]


@pytest.mark.parametrize("service", ["redis", "pg"])
async def test_a_process_cut_off_leaves_haproxys_pool(
    cluster: Cluster, relays: dict[str, RelayThread], service: str
) -> None:
    n1, n2 = cluster.nodes
    assert await ready(n1.url) == 200 and await ready(n2.url) == 200
    log_size = len((cluster.logdir / "haproxy.log").read_text())
    relays[service].cut()
    took = await until(n1.url, 503)
    # Redis: after twice a lease ttl and 2 s (every socket there told 4012 by then);
    # PostgreSQL: after 10 s of failed pings, once a peer is seen reaching it.
    assert took < (2 * TTL + 2 + 3 if service == "redis" else 16.0), took
    assert await ready(n2.url) == 200
    await haproxy_says(cluster, "servers/s1 is DOWN", log_size)
    await rooms_go_to_node_2(cluster)
    log_size = len((cluster.logdir / "haproxy.log").read_text())
    relays[service].restore()
    await until(n1.url, 200)
    await haproxy_says(cluster, "servers/s1 is UP", log_size)
