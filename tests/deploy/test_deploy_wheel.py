"""The wheel is the product: build it and install it into a fresh virtualenv with the
Dockerfile's own pip commands, then, from an unrelated directory, run exactly the commands
the Dockerfile and docker-compose.yml run."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_support import (
    REPO,
    build_stage,
    copy_build_context,
    default_command,
    entrypoint,
    healthcheck_command,
    in_ci,
    pip_commands,
    runtime_stage,
    service_command,
    service_env,
    with_port,
)
from sqlalchemy.engine import make_url
from websockets.sync.client import connect

from spades.cli import COMMANDS
from spades.engine import Game, Rules
from spades.engine.cards import card_text, cards_of
from support import free_port, wait_until_up

PG_ADMIN_URL = os.environ.get(
    "SPADES_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)

pytestmark = pytest.mark.slow


class Installed:
    """A virtualenv with only the built wheel (and its dependencies) installed."""

    def __init__(self, venv: Path, workdir: Path) -> None:
        self.venv = venv
        self.workdir = workdir  # unrelated to the checkout: nothing is found by accident

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("SPADES_") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
        }
        base["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{base.get('PATH', '')}"
        return {**base, **(extra or {})}

    def argv(self, argv: list[str]) -> list[str]:
        # `spades` and `python` are the virtualenv's, as they are the image's.
        if argv[0] in ("spades", "python"):
            return [str(self.venv / "bin" / argv[0]), *argv[1:]]
        return argv

    def run(
        self, argv: list[str], env: dict[str, str] | None = None, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(argv),
            cwd=self.workdir,
            env=self.env(env),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The Dockerfile's two stages, run here: its build stage's pip commands in a copy of
    its build context, then its runtime stage's pip commands into a fresh virtualenv
    (`/wheels` is a temporary folder; `pip` is this interpreter's, told which venv)."""
    root = tmp_path_factory.mktemp("wheel")
    context, wheels, venv = root / "src", root / "wheels", root / "venv"
    copy_build_context(context)

    def pip(argv: list[str], *options: str) -> None:
        argv = [str(wheels) if a == "/wheels" else a for a in argv]
        done = subprocess.run(
            [sys.executable, "-m", "pip", *options, *argv[1:], "-q"],
            cwd=context,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    builds = pip_commands(build_stage())
    assert builds, "the build stage builds the wheels with pip"
    for argv in builds:
        pip(argv)
    (wheel,) = wheels.glob("spades_server-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode()
        licenses = [n for n in archive.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        # The license text travels with the package, as the MIT license asks.
        assert licenses and archive.read(licenses[0]) == (REPO / "LICENSE").read_bytes()
    # An SPDX expression (the old table form printed a setuptools deprecation warning).
    assert "License-Expression: MIT" in metadata.splitlines()
    assert "License-File: LICENSE" in metadata.splitlines()

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    installs = pip_commands(runtime_stage())
    assert installs, "the runtime stage installs the wheels with pip"
    for argv in installs:
        pip(argv, "--python", str(venv / "bin" / "python"))
    workdir = root / "elsewhere"
    workdir.mkdir()
    return Installed(venv, workdir)


def test_the_package_comes_from_the_wheel_with_its_files(installed: Installed) -> None:
    probe = (
        "import importlib.resources as r, spades;"
        "p = r.files('spades');"
        "print(spades.__file__);"
        "print((p / 'migrations' / 'env.py').is_file(), (p / 'client' / 'index.html').is_file())"
    )
    out = installed.run(["python", "-c", probe])
    assert out.returncode == 0, out.stderr
    location, files = out.stdout.splitlines()
    assert location.startswith(str(installed.venv)), location
    assert files == "True True"


def test_db_upgrade_on_sqlite_from_an_unrelated_directory(installed: Installed) -> None:
    env = {"SPADES_DATABASE_URL": "sqlite+aiosqlite:///./fresh.db"}
    migrate = installed.run(service_command("migrate"), env)
    assert migrate.returncode == 0, migrate.stderr
    assert (installed.workdir / "fresh.db").is_file()
    current = installed.run(["spades", "db", "current"], env)
    assert current.returncode == 0 and "up to date" in current.stdout, current
    heads = installed.run(["spades", "db", "heads"], env)
    assert heads.stdout.strip() and heads.stdout.strip() in migrate.stdout
    down = installed.run(["spades", "db", "downgrade", "base"], env)
    assert down.returncode == 0 and "at base" in down.stdout, down
    again = installed.run(service_command("migrate"), env)
    assert again.returncode == 0, again.stderr
    twice = installed.run(service_command("migrate"), env)  # a second start changes nothing
    assert twice.returncode == 0 and twice.stdout == again.stdout, twice


async def _pg_admin(sql: str) -> None:
    import asyncpg

    dsn = make_url(PG_ADMIN_URL).set(drivername="postgresql")
    conn = await asyncpg.connect(dsn.render_as_string(hide_password=False), timeout=3)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@pytest.fixture
def pg_database() -> Iterator[str]:
    try:
        asyncio.run(_pg_admin("SELECT 1"))
    except Exception as exc:
        reason = f"PostgreSQL unreachable at {make_url(PG_ADMIN_URL)!r}: {exc!r}"
        if in_ci():
            pytest.fail(f"CI=true requires PostgreSQL: {reason}")
        pytest.skip(reason)
    name = f"spades_test_{secrets.token_hex(6)}"
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def test_db_upgrade_on_postgresql(installed: Installed, pg_database: str) -> None:
    env = {"SPADES_DATABASE_URL": pg_database}
    migrate = installed.run(service_command("migrate"), env)
    assert migrate.returncode == 0, migrate.stderr
    current = installed.run(["spades", "db", "current"], env)
    assert "up to date" in current.stdout, current


# Appends on PostgreSQL through the installed wheel's writer process (`pg_log.py`, run by
# path with `python -I`): the script must find its frames module and the driver there.
PG_WRITER_PROBE = """
import asyncio, os, sys
from spades.store import ActionRow, RoomRow, SeatRow, open_store

async def main():
    store = await open_store(os.environ["SPADES_DATABASE_URL"])
    try:
        await store.create_room(RoomRow(id="w", code="WHEEL", settings={}), [SeatRow("w", 0)])
        game = await store.start_game("w", {}, 0, "seed")
        for seq in (1, 2, 3):
            await store.append_action(ActionRow(game, seq, 0, {"type": "bid", "bid": seq}))
        child = store._path.writer.pid  # the PostgreSQL writer process (commit_pg)
        assert child is not None and child != os.getpid(), child
        stored = [a.seq for a in (await store.get_room("w")).actions]
        print(stored, child)
    finally:
        await store.close()

asyncio.run(main())
"""


def test_the_postgresql_writer_process_runs_from_the_wheel(
    installed: Installed, pg_database: str
) -> None:
    env = {"SPADES_DATABASE_URL": pg_database}
    assert installed.run(service_command("migrate"), env).returncode == 0
    out = installed.run(["python", "-c", PG_WRITER_PROBE], env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[1, 2, 3] "), out.stdout


def get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.headers.get("content-type", ""), response.read().decode()


def test_serve_the_client_the_api_and_the_websocket(installed: Installed) -> None:
    # The server's environment from docker-compose.yml, on a local SQLite file instead of
    # the stack's PostgreSQL, and without Redis (host names of the compose network).
    env = {k: v for k, v in service_env("server").items() if k != "SPADES_REDIS_URL"}
    env.update(
        SPADES_DATABASE_URL="sqlite+aiosqlite:///./served.db",
        SPADES_PUBLIC_URL="",
        SPADES_BOT_WORKERS="thread",
    )
    assert installed.run(service_command("migrate"), env).returncode == 0
    port = free_port()
    assert service_command("server") == [*entrypoint(), *default_command()]
    argv = installed.argv(with_port(service_command("server"), "127.0.0.1", port))
    log = installed.workdir / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            argv, cwd=installed.workdir, env=installed.env(env), stdout=out, stderr=out
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, proc, log)

        health = installed.run(with_port(healthcheck_command(), "127.0.0.1", port))
        assert health.returncode == 0, health.stderr

        status, kind, page = get(f"{base}/")
        assert status == 200 and "text/html" in kind and "<script" in page
        status, kind, script = get(f"{base}/js/main.js")
        assert status == 200 and "javascript" in kind and "import" in script
        status, kind, body = get(f"{base}/api/rooms")
        assert status == 200 and "rooms" in json.loads(body)

        request = urllib.request.Request(
            f"{base}/api/rooms",
            data=json.dumps({"name": "Wheel"}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            created = json.loads(response.read())
        with connect(f"ws://127.0.0.1:{port}/ws/{created['code']}", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": created["token"]}))
            first = json.loads(ws.recv(timeout=10))
        assert first["type"] == "state" and first["room"]["code"] == created["code"], first
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_every_other_command(installed: Installed) -> None:
    usage = installed.run(["spades", "--help"])
    assert usage.returncode == 0
    assert all(name in usage.stdout for name in COMMANDS), usage.stdout

    game = Game.new(Rules(), seed="wheel")
    record = {
        "rules": {"mode": "partnership"},
        "dealer": game.dealer,
        "hands": [[card_text(c) for c in cards_of(m)] for m in game.dealt],
        "bids": [],
        "plays": [],
    }
    (installed.workdir / "hand.json").write_text(json.dumps(record))
    scored = installed.run(["spades", "score", "hand.json"])
    assert scored.returncode == 0, scored.stderr
    assert json.loads(scored.stdout)["complete"] is False

    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    bot = installed.run(["spades", "bot", "--level", "basic"], stdin=json.dumps(view) + "\n")
    assert bot.returncode == 0, bot.stderr
    assert json.loads(bot.stdout) in view["legal"]

    games = ["--games", "2", "--target", "100", "--seed", "1"]
    simulate = installed.run(["spades", "simulate", *games, "--json", "--no-progress"])
    assert simulate.returncode == 0, simulate.stderr
    assert json.loads(simulate.stdout)
