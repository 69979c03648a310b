"""The monitoring that ships in deploy/: Prometheus's alert rules and scrape config, Grafana's
dashboard and provisioning, and the compose `monitoring` profile that starts them.

`promtool` (Debian's `prometheus` package; .ci/run installs it) checks the rules and the
config; every metric a rule or a panel names is looked up in the `/metrics` of a live
`spades serve` in cluster mode (PostgreSQL + Redis, as in the compose stack, so the
`spades_cluster_*` families are there too).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_support import REPO, compose, service
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.engine import make_url

from ci_env import skip_or_fail
from support import free_port, wait_until_up

PROMETHEUS = REPO / "deploy" / "prometheus"
ALERTS = PROMETHEUS / "alerts.yml"
PROMETHEUS_YML = REPO / "deploy" / "prometheus.yml"
GRAFANA = REPO / "deploy" / "grafana"
DASHBOARDS = sorted((GRAFANA / "dashboards").glob("*.json"))
PG_ADMIN_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("SPADES_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# Series that Prometheus makes itself, not the servers.
PROMETHEUS_OWN = {"up", "ALERTS", "ALERTS_FOR_STATE"}
# PromQL words that look like names but are not metrics.
KEYWORDS = {"and", "or", "unless", "bool", "offset", "inf", "nan"}


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        skip_or_fail("promtool is not installed (Debian's `prometheus` package; .ci/run)")
    return found


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, check=False, timeout=60)


# --- what the rules and the dashboards name ----------------------------------------------


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects (functions, aggregations, label names,
    keywords and Grafana's $variables left out)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)  # ranges
    text = re.sub(r"\boffset\s+-?[\dsmhdwy]+", " ", text)
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    text = re.sub(r"\$\w+", " ", text)
    text = re.sub(r"(?<![\w:.])\d+(?:\.\d+)?(?:e[+-]?\d+)?", " ", text)
    names = set()
    for match in re.finditer(r"[A-Za-z_:][\w:]*", text):
        if text[match.end() :].lstrip().startswith("("):
            continue  # a function or an aggregation
        if match.group(0).lower() not in KEYWORDS:
            names.add(match.group(0))
    return names


def rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def dashboard_exprs(node: Any) -> Iterator[str]:
    """Every PromQL expression of a dashboard: its panels' targets and its variables."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "expr" and isinstance(value, str):
                yield value
            elif key == "definition" and isinstance(value, str):
                # A variable's `label_values(METRIC{...}, label)`: the metric is PromQL.
                found = re.match(r"\s*label_values\((.*),\s*\w+\)\s*$", value)
                yield found.group(1) if found else value
            else:
                yield from dashboard_exprs(value)
    elif isinstance(node, list):
        for value in node:
            yield from dashboard_exprs(value)


def test_the_name_extraction() -> None:
    expr = (
        "histogram_quantile(0.99, sum by (le, source) (rate(spades_action_latency_seconds_bucket"
        '{job="spades", instance=~"$instance"}[$__rate_interval]))) > 1.5e9 and on(instance) '
        "process_open_fds / process_max_fds offset 5m > bool 0.8"
    )
    assert metric_names(expr) == {
        "spades_action_latency_seconds_bucket",
        "process_open_fds",
        "process_max_fds",
    }


# --- the live /metrics --------------------------------------------------------------------


def exposed(text: str) -> set[str]:
    """Every series name a scrape can hold: each family's own, with its type's suffixes
    (a labelled family with no child yet shows only its HELP and TYPE lines)."""
    suffixes = {
        "counter": ("_total", "_created"),
        "histogram": ("_bucket", "_sum", "_count", "_created"),
        "summary": ("_sum", "_count", "_created"),
    }
    names: set[str] = set()
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        names.update(family.name + s for s in suffixes.get(family.type, ()))
        names.update(sample.name for sample in family.samples)
    return names


async def _pg_admin(sql: str) -> None:
    import asyncpg

    dsn = make_url(PG_ADMIN_URL).set(drivername="postgresql").render_as_string(False)
    conn = await asyncpg.connect(dsn, timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _redis_missing() -> str | None:
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as exc:
        return f"Redis unreachable at {REDIS_URL}: {exc!r}"
    return None


@pytest.fixture(scope="module")
def live_metrics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The /metrics text of a real `spades serve` in cluster mode, as in the compose stack."""
    try:
        asyncio.run(_pg_admin("SELECT 1"))
    except Exception as exc:
        skip_or_fail(f"PostgreSQL unreachable at {make_url(PG_ADMIN_URL)!r}: {exc!r}")
    missing = _redis_missing()
    if missing is not None:
        skip_or_fail(missing)
    name = f"spades_monitoring_{secrets.token_hex(5)}"
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    url = make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    port, log = free_port(), tmp_path_factory.mktemp("monitoring") / "server.log"
    env = {
        **os.environ,
        "SPADES_DATABASE_URL": url,
        "SPADES_REDIS_URL": REDIS_URL,
        "SPADES_REDIS_PREFIX": f"spades-test-{secrets.token_hex(4)}:",
        "SPADES_BOT_WORKERS": "thread",
    }
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "spades.cli", "serve", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base, proc, log)
        with urllib.request.urlopen(f"{base}/metrics", timeout=10) as response:
            yield response.read().decode()
    finally:
        proc.terminate()
        proc.wait(30)
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def test_every_metric_a_rule_names_is_in_metrics(live_metrics: str) -> None:
    named = set().union(*(metric_names(rule["expr"]) for rule in rules()))
    # The rules of the issue: process down, failovers, leases, latency, store, bots, memory.
    assert named >= {
        "up",
        "spades_cluster_orphans_claimed_total",
        "spades_cluster_leases_lost_total",
        "spades_action_latency_seconds_bucket",
        "spades_store_failures_total",
        "spades_bot_fallbacks_total",
        "process_resident_memory_bytes",
    }
    missing = named - PROMETHEUS_OWN - exposed(live_metrics)
    assert not missing, f"alerts.yml names metrics /metrics does not have: {sorted(missing)}"


def test_every_metric_a_panel_names_is_in_metrics(live_metrics: str) -> None:
    assert DASHBOARDS, "no dashboard in deploy/grafana/dashboards"
    have = exposed(live_metrics)
    for path in DASHBOARDS:
        board = json.loads(path.read_text())
        named = set().union(*(metric_names(e) for e in dashboard_exprs(board)))
        if path.name == "spades.json":
            assert named >= {
                "spades_rooms",
                "spades_connections",
                "spades_actions_total",
                "spades_action_latency_seconds_bucket",
                "spades_cluster_leases",
                "spades_cluster_orphans_claimed_total",
                "spades_store_commit_actions_sum",
                "spades_bot_decision_seconds_count",
            }
        missing = named - PROMETHEUS_OWN - have
        assert not missing, f"{path.name} names metrics /metrics does not have: {sorted(missing)}"


# --- the files themselves --------------------------------------------------------------------


def test_promtool_checks_the_rules(tmp_path: Path) -> None:
    # Every file in deploy/prometheus/ is a rules file (the scrape config lives beside the
    # folder), so `promtool check rules deploy/prometheus/*.yml` checks them all.
    files = sorted(str(p) for p in PROMETHEUS.glob("*.yml"))
    assert str(ALERTS) in files
    done = run([promtool(), "check", "rules", *files], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(rules())} rules found" in done.stdout


def test_promtool_checks_the_scrape_config(tmp_path: Path) -> None:
    config = yaml.safe_load(PROMETHEUS_YML.read_text())
    # The rules file where the compose stack mounts it, here where the checkout has it.
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]
    config["rule_files"] = [str(ALERTS)]
    copy = tmp_path / "prometheus.yml"
    copy.write_text(yaml.safe_dump(config))
    done = run([promtool(), "check", "config", str(copy)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_rule_says_how_bad_and_what_it_means() -> None:
    for rule in rules():
        assert rule["alert"].startswith("Spades"), rule
        assert rule["labels"]["severity"] in ("warning", "critical"), rule["alert"]
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
    # docs/operations.md explains every alert by name.
    operations = (REPO / "docs" / "operations.md").read_text()
    undocumented = [r["alert"] for r in rules() if f"`{r['alert']}`" not in operations]
    assert not undocumented, f"docs/operations.md does not explain {undocumented}"


def test_the_monitoring_profile_starts_prometheus_and_grafana_with_the_files() -> None:
    services = compose()["services"]
    for name in ("prometheus", "grafana"):
        spec = services[name]
        assert spec["profiles"] == ["monitoring"], f"{name} starts only with the profile"
        tag = spec["image"].partition(":")[2]
        assert re.fullmatch(r"v?\d+\.\d+\.\d+", tag), f"{name}: pin a version, not {tag!r}"
    for name, spec in services.items():
        if name not in ("prometheus", "grafana"):
            assert "profiles" not in spec, f"{name} must start with a plain `up`"
    mounts = {v.split(":")[1]: v.split(":")[0] for v in service("prometheus")["volumes"]}
    assert mounts["/etc/prometheus/prometheus.yml"] == "./deploy/prometheus.yml"
    assert mounts["/etc/prometheus/alerts.yml"] == "./deploy/prometheus/alerts.yml"
    scrape = yaml.safe_load(PROMETHEUS_YML.read_text())["scrape_configs"]
    spades = next(job for job in scrape if job["job_name"] == "spades")
    assert spades["dns_sd_configs"] == [
        {"names": ["server"], "type": "A", "port": 8000, "refresh_interval": "15s"}
    ]
    # The servers let the compose network read /metrics; HAProxy refuses it from outside.
    assert "172.16.0.0/12" in service("server")["environment"]["SPADES_METRICS_ALLOW"]
    assert (
        "http-request deny deny_status 403 if { path /metrics }"
        in (REPO / "deploy" / "haproxy.cfg").read_text()
    )


def test_grafana_provisions_the_data_source_the_dashboard_uses() -> None:
    mounts = {v.split(":")[1]: v.split(":")[0] for v in service("grafana")["volumes"]}
    assert mounts["/etc/grafana/provisioning"] == "./deploy/grafana/provisioning"
    board_dir = mounts["/etc/grafana/dashboards"]
    assert board_dir == "./deploy/grafana/dashboards"
    provisioning = GRAFANA / "provisioning"
    sources = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())
    (source,) = sources["datasources"]
    assert source["type"] == "prometheus" and source["url"] == "http://prometheus:9090"
    providers = yaml.safe_load((provisioning / "dashboards" / "spades.yml").read_text())
    assert providers["providers"][0]["options"]["path"] == "/etc/grafana/dashboards"
    for path in DASHBOARDS:
        board = json.loads(path.read_text())
        uids = {
            node["uid"]
            for node in _walk(board)
            if isinstance(node, dict) and node.get("type") == "prometheus" and "uid" in node
        }
        assert uids == {source["uid"]}, f"{path.name} uses data sources {uids}"
        titles = [p["title"] for p in board["panels"]]
        assert len(titles) == len(set(titles)), f"{path.name}: two panels share a title"


def _walk(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


# --- the rules fire when they should (promtool test rules) ---------------------------------

S = 'job="spades", instance="a:8000"'
T = 'job="spades", instance="b:8000"'
# (name, series, [(eval minute, alert, the labels of each firing alert)]): every alert the
# issue asks for, on series of one scrape a minute.
SCENARIOS: list[tuple[str, dict[str, str], list[tuple[int, str, list[dict[str, str]]]]]] = [
    (
        "one process down, the other up",
        {f"up{{{S}}}": "1 0 0 0 0 0", f"up{{{T}}}": "1 1 1 1 1 1"},
        [
            (1, "SpadesProcessDown", []),  # not yet for a minute
            (
                3,
                "SpadesProcessDown",
                [{"severity": "critical", "job": "spades", "instance": "a:8000"}],
            ),
            (3, "SpadesNoServer", []),
        ],
    ),
    (
        "every process down",
        {f"up{{{S}}}": "0x5", f"up{{{T}}}": "0x5"},
        [(3, "SpadesNoServer", [{"severity": "critical"}])],
    ),
    (
        "a store failure, then none",
        {f"spades_store_failures_total{{{T}}}": "0 0 3 3 3 3 3 3 3 3 3 3"},
        [
            (3, "SpadesStoreFailures", [{"severity": "warning", "instance": "b:8000"}]),
            (10, "SpadesStoreFailures", []),
            (10, "SpadesStoreDown", []),
        ],
    ),
    (
        "the database keeps failing",
        {f"spades_store_failures_total{{{T}}}": "0+60x20"},
        [(12, "SpadesStoreDown", [{"severity": "critical", "instance": "b:8000"}])],
    ),
    (
        "p99 latency near a second",
        {
            f'spades_action_latency_seconds_bucket{{{S}, source="human", le="0.25"}}': "0+10x30",
            f'spades_action_latency_seconds_bucket{{{S}, source="human", le="1.0"}}': "0+100x30",
            f'spades_action_latency_seconds_bucket{{{S}, source="human", le="+Inf"}}': "0+100x30",
        },
        [
            (5, "SpadesActionLatencyHigh", []),  # not yet for 10 minutes
            (20, "SpadesActionLatencyHigh", [{"severity": "warning"}]),
            (20, "SpadesActionLatencyCritical", []),  # p99 is 0.99 s
        ],
    ),
    (
        "one strong decision in ten falls back",
        {
            f'spades_bot_decision_seconds_count{{{S}, level="strong"}}': "0+100x40",
            f'spades_bot_fallbacks_total{{{S}, level="strong"}}': "0+10x40",
        },
        [(30, "SpadesBotFallbacks", [{"severity": "warning", "level": "strong"}])],
    ),
    (
        "a lease lost",
        {f"spades_cluster_leases_lost_total{{{S}}}": "0 0 0 2 2 2"},
        [(4, "SpadesLeasesLost", [{"severity": "warning", "instance": "a:8000"}])],
    ),
    (
        "one crash moves many rooms once: no failover alert",
        {f"spades_cluster_orphans_claimed_total{{{T}}}": "0 0 500x40"},
        [(11, "SpadesFailoverRate", []), (20, "SpadesFailoverRate", [])],
    ),
    (
        "rooms keep failing over",
        {f"spades_cluster_orphans_claimed_total{{{T}}}": "0+10x60"},
        [(35, "SpadesFailoverRate", [{"severity": "warning"}])],
    ),
    (
        "memory high",
        {f"process_resident_memory_bytes{{{S}}}": "2e9x30"},
        [
            (10, "SpadesMemoryHigh", []),
            (
                20,
                "SpadesMemoryHigh",
                [{"severity": "warning", "job": "spades", "instance": "a:8000"}],
            ),
        ],
    ),
]


def test_the_alerts_fire_when_they_should(tmp_path: Path) -> None:
    """promtool's rule unit tests on the rules' logic (expressions, `for`, labels); the
    annotations, whose templates `check rules` parses, are left out of the comparison."""
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    for group in groups:
        for rule in group["rules"]:
            rule.pop("annotations", None)
    rules_file = tmp_path / "alerts.yml"
    rules_file.write_text(yaml.safe_dump({"groups": groups}))
    tests = [
        {
            "name": name,
            "interval": "1m",
            "input_series": [{"series": s, "values": v} for s, v in series.items()],
            "alert_rule_test": [
                {
                    "eval_time": f"{minute}m",
                    "alertname": alert,
                    "exp_alerts": [{"exp_labels": labels} for labels in firing],
                }
                for minute, alert, firing in checks
            ],
        }
        for name, series, checks in SCENARIOS
    ]
    spec = tmp_path / "alerts_test.yml"
    spec.write_text(yaml.safe_dump({"rule_files": [str(rules_file)], "tests": tests}))
    done = run([promtool(), "test", "rules", str(spec)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
