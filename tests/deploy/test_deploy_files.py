"""The Dockerfile, docker-compose.yml and the HAProxy config, checked without a Docker daemon:
every file they use exists, every SPADES_* variable is a setting, every command is a real
`spades` command, and HAProxy accepts its config."""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
from pathlib import Path

import pytest
from deploy_support import (
    COMPOSE,
    HAPROXY_CFG,
    IMAGE_SERVICES,
    REPO,
    compose,
    default_command,
    dockerfile_instructions,
    entrypoint,
    healthcheck_command,
    image_env,
    in_ci,
    runtime_stage,
    service,
    service_command,
    service_env,
)

from spades.api.app import create_app
from spades.cli import COMMANDS
from spades.config import Settings


def spades_parser() -> argparse.ArgumentParser:
    """The parser `spades` builds, with every subcommand's arguments (spades.cli.main)."""
    parser = argparse.ArgumentParser(prog="spades", exit_on_error=False)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, _) in COMMANDS.items():
        importlib.import_module(module).configure(sub.add_parser(name, exit_on_error=False))
    return parser


def parses(argv: list[str]) -> argparse.Namespace:
    assert argv[0] == "spades", argv
    try:
        return spades_parser().parse_args(argv[1:])
    except (SystemExit, argparse.ArgumentError) as exc:
        raise AssertionError(f"not a valid spades command: {argv}") from exc


def test_every_command_the_image_and_compose_run_is_a_real_cli_command() -> None:
    assert entrypoint() == ["spades"]
    assert parses([*entrypoint(), *default_command()]).command == "serve"
    assert parses(service_command("migrate")).db_command == "upgrade"
    assert parses(service_command("server")).command == "serve"
    for name, spec in compose()["services"].items():
        text = str(spec.get("command", "")) + str(spec.get("entrypoint", ""))
        assert "pip" not in text and "install" not in text, f"{name} installs at start: {text}"
        if name not in IMAGE_SERVICES:
            assert "build" not in spec, f"{name}: only the project's services are built"


def test_every_spades_variable_is_a_real_setting_with_a_valid_value() -> None:
    sources = {"Dockerfile": image_env()}
    sources.update({f"compose {name}": service_env(name) for name in IMAGE_SERVICES})
    for where, env in sources.items():
        for key, value in env.items():
            if not key.startswith("SPADES_"):
                continue
            field = key.removeprefix("SPADES_").lower()
            assert field in Settings.model_fields, f"{where}: {key} is not a setting"
            Settings(**{field: value})  # raises when the value does not validate


def test_every_file_the_stack_builds_or_mounts_exists() -> None:
    for name, spec in compose()["services"].items():
        build = spec.get("build")
        if build is not None:
            context = REPO / (build if isinstance(build, str) else build.get("context", "."))
            dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile")
            assert (context / (dockerfile or "Dockerfile")).is_file(), name
        for volume in spec.get("volumes", []):
            source = volume.split(":")[0] if isinstance(volume, str) else volume["source"]
            if source.startswith((".", "/")):
                assert (COMPOSE.parent / source).exists(), f"{name} mounts missing {source}"
            else:
                assert source in (compose().get("volumes") or {}), f"{name}: volume {source}"
    # Everything the Dockerfile copies from the context exists and is not .dockerignored.
    ignore = (REPO / ".dockerignore").read_text().splitlines()
    for word, args in dockerfile_instructions():
        if word == "COPY" and "--from=" not in args:
            *sources, _ = args.split()
            for source in sources:
                assert (REPO / source).exists(), f"COPY {source}: no such file"
                kept = f"!{source.rstrip('/')}" in ignore or f"!{source.rstrip('/')}/" in ignore
                assert kept, f"COPY {source}: excluded by .dockerignore"


def test_the_stack_is_the_real_deployment() -> None:
    services = compose()["services"]
    assert set(services) >= {"migrate", "server", "haproxy", "postgres", "redis"}
    server = service("server")
    assert server["deploy"]["replicas"] >= 2
    waits = server["depends_on"]
    assert waits["migrate"]["condition"] == "service_completed_successfully"
    assert waits["postgres"]["condition"] == "service_healthy"
    for name in ("postgres", "redis"):
        assert services[name]["healthcheck"]["test"], name
        assert services[name]["volumes"], f"{name} keeps its data in a volume"
    mounts = [v.split(":")[:2] for v in services["haproxy"]["volumes"]]
    assert ["./deploy/haproxy.cfg", "/usr/local/etc/haproxy/haproxy.cfg"] in mounts
    # The image runs as the plain user `spades`, with a health check on /readyz.
    assert ("USER", "spades") in runtime_stage()
    assert any("/readyz" in part for part in healthcheck_command())
    # By name: the app's routes sit in routers, which `app.routes` does not list one by one.
    assert create_app(Settings()).url_path_for("readyz") == "/readyz"


def test_haproxy_checks_the_servers_and_accepts_its_config(tmp_path: Path) -> None:
    text = HAPROXY_CFG.read_text()
    assert "option httpchk GET /readyz" in text
    assert "bind :8000" in text and "server:8000" in text
    assert "timeout tunnel" in text  # WebSockets stay open past the HTTP timeouts
    haproxy = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    if haproxy is None:
        if in_ci():
            pytest.fail("CI requires haproxy (Debian's package; .ci/run installs it)")
        pytest.skip("haproxy is not installed")
    done = subprocess.run(
        [haproxy, "-c", "-f", str(HAPROXY_CFG)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
