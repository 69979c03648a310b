"""`deploy/haproxy.cfg` starts, as shipped, under a host's file limit (issue 58,
"Operations"): a fixed `maxconn` of 20,000 asked for 40,019 descriptors and HAProxy
refused to start where the limit is 20,000. The file is run exactly as it is (its
`bind :8000`, Docker's resolver and its server template included) in a network
namespace of its own, so its port is nobody else's, under a hard file limit it cannot
raise; it must start and answer. docker-compose.yml gives the service the same limit the
file caps itself at."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from deploy_support import HAPROXY_CFG, service

from ci_env import skip_or_fail

# Run inside the namespace: bring loopback up, start HAProxy on the shipped file, ask it
# for a page (no server is up: 503, from HAProxy itself), report what happened.
PROBE = r"""
import json, resource, socket, subprocess, sys, time
haproxy, config, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
proc = subprocess.Popen([haproxy, "-db", "-f", config], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT)
answer = b""
for _ in range(100):
    if proc.poll() is not None:
        break
    try:
        with socket.create_connection(("127.0.0.1", 8000), timeout=2) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = sock.recv(200)
        break
    except OSError:
        time.sleep(0.05)
files = None
if proc.poll() is None:
    for line in open(f"/proc/{proc.pid}/limits"):
        if line.startswith("Max open files"):
            files = int(line.split()[3])
    proc.terminate()
output = proc.communicate(timeout=10)[0].decode(errors="replace")
print(json.dumps({"answer": answer.decode(errors="replace"), "files": files,
                  "exit": proc.returncode, "output": output[-2000:]}))
"""


def _haproxy() -> str:
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        skip_or_fail("haproxy is not installed (Debian's package `haproxy`)")
    return found


def _unshare() -> list[str]:
    """A user and network namespace: its own port 8000, and no privilege to raise the
    file limit (root outside would otherwise raise it, as it raises Docker's)."""
    command = ["unshare", "--user", "--map-root-user", "--net"]
    if shutil.which("unshare") is None or subprocess.run([*command, "true"]).returncode:
        skip_or_fail("no user and network namespaces here (`unshare --user --net`)")
    return command


@pytest.mark.parametrize("limit", [20_000, 4_096])
def test_the_shipped_config_starts_under_the_file_limit(limit: int) -> None:
    haproxy, unshare = _haproxy(), _unshare()
    done = subprocess.run(
        [*unshare, sys.executable, "-c", PROBE, haproxy, str(HAPROXY_CFG), str(limit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert "Cannot raise FD limit" not in report["output"], report["output"]
    assert report["answer"].startswith("HTTP/1.1 503"), report
    assert report["files"] is not None and report["files"] <= limit, report


def test_compose_gives_haproxy_the_limit_its_config_caps_itself_at() -> None:
    text = HAPROXY_CFG.read_text()
    assert "\n    maxconn " not in text.split("\nresolvers")[0]  # sized from the limit
    found = re.search(r"(?m)^\s*fd-hard-limit (\d+)$", text)
    assert found, "deploy/haproxy.cfg caps its file descriptors (fd-hard-limit)"
    cap = int(found.group(1))
    nofile = service("haproxy")["ulimits"]["nofile"]
    assert nofile == {"soft": cap, "hard": cap}
