"""Observability: /metrics after a real game, JSON log lines, health and readiness."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_helpers import free_socket, make_settings, play_until_over, running_server
from prometheus_client.parser import text_string_to_metric_families

from hidden_cards import card_strings
from spades.api.app import create_app
from spades.logs import JsonFormatter, setup_logging

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse_metrics(text: str) -> Samples:
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def scrape(server: Any) -> Samples:
    response = await server.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return parse_metrics(response.text)


async def test_metrics_after_a_solo_game(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        before = await scrape(server)
        assert value(before, "spades_connections") == 0
        assert value(before, "spades_actions_total", kind="play") == 0
        assert value(before, "spades_rooms", status="open") == 0

        created = await server.create("/api/solo", mode="individual", target=50)
        client = await server.client(created["code"], created["token"])
        during = await scrape(server)
        assert value(during, "spades_connections") == 1
        assert value(during, "spades_rooms", status="playing") == 1

        # Two refusals: a card before the bidding is over, and a type the server does not know.
        await client.send(type="play", card="2C", id="early")
        refused = await client.until(lambda m: m["type"] == "error")
        await client.send(type="no_such_thing", id="bogus")
        unknown = await client.until(lambda m: m["type"] == "error")
        assert unknown["code"] == "unknown_type"
        errors = await scrape(server)
        assert value(errors, "spades_errors_total", code=refused["code"]) == 1
        assert value(errors, "spades_errors_total", code="unknown_type") == 1

        final = await play_until_over(client)
        assert final["view"]["phase"] == "over"
        after = await scrape(server)
        plays = value(after, "spades_actions_total", kind="play")
        bids = value(after, "spades_actions_total", kind="bid")
        looks = value(after, "spades_actions_total", kind="look")
        assert plays >= 52 and plays % 52 == 0
        assert bids >= 4
        stored = plays + bids + looks + value(after, "spades_actions_total", kind="time_up")
        assert value(after, "spades_store_append_seconds_count") == stored
        assert value(after, "spades_store_append_seconds_sum") > 0
        humans = value(after, "spades_action_latency_seconds_count", source="human")
        bots = value(after, "spades_action_latency_seconds_count", source="bot")
        assert humans >= 13 and bots >= 39
        assert humans + bots == stored  # one latency per accepted move, each stored once
        assert value(after, "spades_action_latency_seconds_bucket", source="bot", le="+Inf") == bots
        assert value(after, "spades_bot_decision_seconds_count", level="basic") >= bots
        assert value(after, "spades_bot_fallbacks_total", level="strong") == 0
        assert value(after, "spades_rooms", status="finished") == 1
        assert value(after, "spades_rooms", status="playing") == 0
        # The refusals did not count as actions, and no other error was sent.
        error_total = sum(v for (n, _), v in after.items() if n == "spades_errors_total")
        assert error_total == 2
        assert value(after, "process_resident_memory_bytes") > 0
        # REST refusals are counted by status.
        assert (await server.get("/api/rooms/NOSUCH")).status_code == 404
        bad = await server.post("/api/rooms", {"name": "x", "target": "lots"})
        assert bad.status_code == 422
        refused = await scrape(server)
        assert value(refused, "spades_http_errors_total", status="404") == 1
        assert value(refused, "spades_http_errors_total", status="422") == 1
        # The event loop's lag is probed ten times a second from start-up.
        assert value(after, "spades_event_loop_lag_seconds_count") >= 1

        await client.close()
        for _ in range(500):  # the server notices the close on its own schedule
            if value(await scrape(server), "spades_connections") == 0:
                break
            await asyncio.sleep(0.01)
        assert value(await scrape(server), "spades_connections") == 0


def test_each_app_has_its_own_registry(tmp_path: Path) -> None:
    first = create_app(make_settings(tmp_path))
    second = create_app(make_settings(tmp_path))
    assert first.state.metrics.registry is not second.state.metrics.registry
    first.state.metrics.action("play")
    assert b'spades_actions_total{kind="play"} 1.0' in first.state.metrics.render()
    assert b'spades_actions_total{kind="play"} 0.0' in second.state.metrics.render()


async def test_log_lines_as_json_carry_the_room_and_no_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="spades")
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", mode="individual", target=50)
        code, token = created["code"], created["token"]
        client = await server.client(code, token)
        await play_until_over(client)
        await client.close()
    formatter = JsonFormatter()
    lines = [formatter.format(record) for record in caplog.records]
    parsed = [json.loads(line) for line in lines]
    assert all("\n" not in line for line in lines)
    ours = [p for p in parsed if p.get("room") == code]
    assert any("created" in p["msg"] for p in ours)
    assert any(p.get("seat") == 0 and "joined" in p["msg"] for p in ours)
    assert any(p.get("game_id") is not None and "over" in p["msg"] for p in ours)
    for line, entry in zip(lines, parsed, strict=True):
        assert token not in line
        assert not card_strings(entry), line
        assert {"ts", "level", "logger", "msg"} <= entry.keys()


def test_setup_logging_json_writes_one_object_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        setup_logging("info", "json")
        log = logging.getLogger("spades.test")
        log.info("seat %s sat down", 2, extra={"room": "ABCDEF", "seat": 2})
        try:
            raise ValueError("boom")
        except ValueError:
            log.exception("it failed", extra={"room": "ABCDEF"})
        log.debug("not shown at info")
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    lines = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["msg"] == "seat 2 sat down"
    assert (first["room"], first["seat"], first["level"]) == ("ABCDEF", 2, "info")
    assert second["level"] == "error" and "ValueError: boom" in second["exc"]
    assert "seat" not in second


async def test_readyz_answers_503_once_the_database_is_gone(tmp_path: Path) -> None:
    async with running_server(tmp_path) as server:
        assert (await server.get("/healthz")).json() == {"status": "ok"}
        ready = await server.get("/readyz")
        assert (ready.status_code, ready.json()) == (200, {"ready": True})
        await server.app.state.store.close()
        gone = await server.get("/readyz")
        assert (gone.status_code, gone.json()) == (503, {"ready": False})
        assert (await server.get("/healthz")).status_code == 200  # the process is still up


async def test_spades_serve_logs_json(tmp_path: Path) -> None:
    """`spades serve` with SPADES_LOG_FORMAT=json: every line on stderr is a JSON object."""
    sock = free_socket()
    port = sock.getsockname()[1]
    sock.close()
    env = {
        **os.environ,
        "SPADES_LOG_FORMAT": "json",
        "SPADES_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'serve.db'}",
        "SPADES_BOT_WORKERS": "thread",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "spades.cli", "serve", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=url) as http:
            for _ in range(600):  # up to ~30 s for imports and the migration
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert proc.poll() is None, "the server exited"
                await asyncio.sleep(0.05)
            assert (await http.get("/readyz")).status_code == 200
            created = (await http.post("/api/solo", json={"name": "Solo"})).json()
            metrics = parse_metrics((await http.get("/metrics")).text)
            assert value(metrics, "spades_rooms", status="playing") == 1
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    lines = [line for line in err.splitlines() if line.strip()]
    parsed = [json.loads(line) for line in lines]  # fails on any non-JSON line
    assert any(p.get("room") == created["code"] for p in parsed)
    assert any(p["logger"] == "uvicorn.access" and "/metrics" in p["msg"] for p in parsed)
    assert not any(created["token"] in line for line in lines)


REFUSE_CHAT = """
CREATE TRIGGER refuse_chat BEFORE INSERT ON chat_messages
BEGIN SELECT RAISE(ABORT, 'the test refuses chat'); END
"""


async def test_a_failed_store_write_is_counted(tmp_path: Path) -> None:
    """`spades_store_failures_total` (the `SpadesStoreFailures` alert): a chat message the
    database refuses is answered `storage_error` and counted once."""
    async with running_server(tmp_path) as server:
        created = await server.create("/api/solo", mode="individual", target=50)
        client = await server.client(created["code"], created["token"])
        before = value(await scrape(server), "spades_store_failures_total")
        await client.send(type="chat", text="stored", id="ok")
        await client.until(lambda m: m["type"] == "chat")
        assert value(await scrape(server), "spades_store_failures_total") == before
        with contextlib.closing(sqlite3.connect(tmp_path / "spades.db", timeout=10)) as db:
            db.execute(REFUSE_CHAT)
            db.commit()
        await client.send(type="chat", text="refused", id="no")
        refusal = await client.until(lambda m: m["type"] == "error")
        assert refusal["code"] == "storage_error" and refusal["ref"] == "no"
        assert value(await scrape(server), "spades_store_failures_total") == before + 1
        await client.close()
