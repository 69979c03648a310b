"""What the deployment files say: the Dockerfile's runtime stage and docker-compose.yml.

Both deploy tests read the commands from here, so the installed-wheel test runs exactly
what the image and the compose stack run.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
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


def stages() -> list[list[tuple[str, str]]]:
    """The instructions of each stage, FROM first."""
    out: list[list[tuple[str, str]]] = []
    for word, args in dockerfile_instructions():
        if word == "FROM":
            out.append([])
        if out:
            out[-1].append((word, args))
    return out


def runtime_stage() -> list[tuple[str, str]]:
    """The instructions of the last stage (the image that runs)."""
    return stages()[-1]


def build_stage() -> list[tuple[str, str]]:
    """The stage that builds the wheels."""
    (stage,) = stages()[:-1]
    return stage


def pip_commands(stage: list[tuple[str, str]]) -> list[list[str]]:
    """The argv of each `RUN pip ...` of a stage (RUN flags such as --mount dropped)."""
    out: list[list[str]] = []
    for word, args in stage:
        if word != "RUN":
            continue
        argv = shlex.split(args)
        while argv and argv[0].startswith("--"):
            argv.pop(0)
        if argv and argv[0] == "pip":
            out.append(argv)
        else:
            assert "pip" not in argv, f"a pip command in a form the tests do not run: {args}"
    return out


def copy_build_context(target: Path) -> None:
    """Lay out the build stage's sources as its COPY instructions do (from the checkout)."""
    for word, args in build_stage():
        if word != "COPY":
            continue
        *sources, destination = args.split()
        assert not destination.startswith("/"), "COPY into the WORKDIR (relative targets)"
        for source in sources:
            origin = REPO / source
            dest = target / destination
            if destination.endswith("/"):
                dest = dest / origin.name
            if origin.is_dir():
                shutil.copytree(origin, dest, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, dest)


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
