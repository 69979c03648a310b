"""What the deployment files say: the Dockerfile's runtime stage and docker-compose.yml.

Both deploy tests read the commands from here, so the installed-wheel test runs exactly
what the image and the compose stack run.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
COMPOSE = REPO / "docker-compose.yml"
HAPROXY_CFG = REPO / "deploy" / "haproxy.cfg"
IMAGE_SERVICES = ("migrate", "server")  # the services that run the project's image


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def runtime_stage() -> list[tuple[str, str]]:
    """The instructions of the last stage (the image that runs)."""
    steps = dockerfile_instructions()
    last_from = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last_from:]


def _exec_form(args: str) -> list[str]:
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), args
    return value


def entrypoint() -> list[str]:
    return _exec_form(next(a for w, a in runtime_stage() if w == "ENTRYPOINT"))


def default_command() -> list[str]:
    return _exec_form(next(a for w, a in runtime_stage() if w == "CMD"))


def healthcheck_command() -> list[str]:
    args = next(a for w, a in runtime_stage() if w == "HEALTHCHECK")
    _, _, command = args.partition("CMD ")
    return _exec_form(command.strip())


def image_env() -> dict[str, str]:
    """ENV of the runtime stage (KEY=VALUE form)."""
    env: dict[str, str] = {}
    for word, args in runtime_stage():
        if word == "ENV":
            for item in shlex.split(args):
                key, _, value = item.partition("=")
                env[key] = value
    return env


def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def service(name: str) -> dict[str, Any]:
    spec = compose()["services"][name]
    assert isinstance(spec, dict)
    return spec


def service_command(name: str) -> list[str]:
    """The full argv a service of the project's image runs (ENTRYPOINT + command)."""
    command = service(name).get("command", default_command())
    if isinstance(command, str):
        command = shlex.split(command)
    return [*entrypoint(), *command]


def service_env(name: str) -> dict[str, str]:
    env = service(name).get("environment") or {}
    if isinstance(env, list):
        env = dict(item.partition("=")[::2] for item in env)
    return {str(k): str(v) for k, v in env.items()}


def with_port(argv: list[str], host: str, port: int) -> list[str]:
    """The same command listening on `host:port` (tests never use a fixed port)."""
    out = list(argv)
    for flag, value in (("--host", host), ("--port", str(port))):
        if flag in out:
            out[out.index(flag) + 1] = value
    return [a.replace("127.0.0.1:8000", f"{host}:{port}") for a in out]
