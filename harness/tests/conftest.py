"""Shared fixtures: throw-away implementations written into a temporary servers/ folder."""

from __future__ import annotations

import os
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

os.environ["ARENA_RESULTS"] = tempfile.mkdtemp(prefix="arena-test-results-")

from arena import catalog

FAKE_SERVER = textwrap.dedent(
    """
    import http.server, os, subprocess, sys
    if os.environ.get("FAKE_CHILD"):
        subprocess.Popen(["sleep", "300"])  # a grandchild the harness must also stop
    cost = os.environ.get("ARENA_BCRYPT_COST", "10")
    if os.environ.get("FAKE_STRICT") and not (cost.isdigit() and 4 <= int(cost) <= 31):
        print(f"fake server: ARENA_BCRYPT_COST={cost!r}: want an integer in 4..31", file=sys.stderr)
        sys.exit(2)
    if os.environ.get("FAKE_CRASH"):
        print("fake server: crashing on purpose", flush=True)
        sys.exit(3)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"OK" if self.path == "/" else b'{"message":"done","n":1,"checksum":0.5}'
            self.send_response(200)
            self.send_header("Content-Type", "text/plain" if self.path == "/" else "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    port = int(os.environ["ARENA_PORT"])
    print("fake server on", port, "cpus", os.environ["ARENA_CPUS"], "budget", os.environ.get("FAKE_BUDGET"), flush=True)
    http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
    """
)


def write_manifest(folder: Path, name: str, extra_env: str = "", ready_timeout: float = 10) -> Path:
    impl = folder / name
    impl.mkdir(parents=True)
    (impl / "server.py").write_text(FAKE_SERVER)
    (impl / "arena.toml").write_text(
        textwrap.dedent(f"""
        name = "{name}"
        language = "Python"
        runtime = "CPython"
        framework = "http.server"
        seeds = ["test"]
        version = ["{sys.executable}", "--version"]

        [[toolchain]]
        name = "python"
        check = ["{sys.executable}", "--version"]

        [build]
        steps = [["sh", "-c", "mkdir -p out && echo built >> out/count"]]
        outputs = ["out"]

        [run]
        command = ["{sys.executable}", "server.py"]
        env = {{ FAKE_BUDGET = "budget-{{cpus}}" {extra_env} }}
        ready_timeout = {ready_timeout}

        [cores]
        max = 0
        how = "one thread"
    """)
    )
    return impl / "arena.toml"


@pytest.fixture
def fake(tmp_path: Path) -> catalog.Manifest:
    return catalog.parse(write_manifest(tmp_path, "fake"))
