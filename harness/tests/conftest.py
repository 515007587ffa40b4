"""Shared fixtures: throw-away implementations written into a temporary servers/ folder."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

os.environ["ARENA_RESULTS"] = tempfile.mkdtemp(prefix="arena-test-results-")

from arena.engines import loadgen
from arena.impls import catalog

atexit.register(shutil.rmtree, os.environ["ARENA_RESULTS"], ignore_errors=True)
os.chmod(os.environ["ARENA_RESULTS"], 0o755)  # the postgres user runs the tests' database clusters in it

FAKE_SERVER = textwrap.dedent(
    """
    import http.server, os, subprocess, sys, time
    began = time.monotonic()
    if os.environ.get("FAKE_CHILD"):
        subprocess.Popen(["sleep", "300"])  # a grandchild the harness must also stop
    cost = os.environ.get("ARENA_BCRYPT_COST", "10")
    if os.environ.get("FAKE_STRICT") and not (cost.isdigit() and 4 <= int(cost) <= 31):
        print(f"fake server: ARENA_BCRYPT_COST={cost!r}: want an integer in 4..31", file=sys.stderr)
        sys.exit(2)
    if os.environ.get("FAKE_CRASH"):
        print("fake server: crashing on purpose", flush=True)
        sys.exit(3)

    time.sleep(float(os.environ.get("FAKE_START_SLEEP", "0")))  # before it listens: a slow cold start

    class Handler(http.server.BaseHTTPRequestHandler):
        served = 0

        def do_GET(self):
            age = time.monotonic() - began
            if self.path != "/" and age < float(os.environ.get("FAKE_SLOW_FOR_S", "0")):
                time.sleep(0.02)  # slow at first, then fast: a runtime that warms up
            if self.path != "/" and os.environ.get("FAKE_DRIFT"):
                Handler.served += 1  # 1% slower with every request, up to 200 ms: not steady in seconds
                time.sleep(min(0.2, 0.0001 * 1.01**Handler.served))
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


def write_impl(folder: Path, name: str, program: tuple[str, str], manifest: str, top: str = "") -> Path:
    """A throw-away implementation run by this Python: its program (file name, text) and a
    manifest whose common head is written here, with `top` keys, and whose rest, from the [run]
    table on, is `manifest`."""
    impl = folder / name
    impl.mkdir(parents=True)
    (impl / program[0]).write_text(program[1])
    head = f"""
        name = "{name}"
        language = "Python"
        runtime = "CPython"
        framework = "none: a fake"
        version = ["{sys.executable}", "--version"]
        {top}
        [run]
        command = ["{sys.executable}", "{program[0]}"]
    """
    (impl / "arena.toml").write_text(textwrap.dedent(head) + textwrap.dedent(manifest))
    return impl / "arena.toml"


def write_manifest(folder: Path, name: str, extra_env: str = "", ready_timeout: float = 10) -> Path:
    return write_impl(
        folder,
        name,
        ("server.py", FAKE_SERVER),
        f"""
        env = {{ FAKE_BUDGET = "budget-{{cpus}}" {extra_env} }}
        ready_timeout = {ready_timeout}

        [[toolchain]]
        name = "python"
        check = ["{sys.executable}", "--version"]

        [build]
        steps = [["sh", "-c", "mkdir -p out && echo built >> out/count"]]
        outputs = ["out"]

        [cores]
        max = 0
        how = "one thread"
        """,
    )


# Tests that load a server with the real engine: `./arena test` builds it before it runs pytest.
needs_engine = pytest.mark.skipif(not loadgen.BINARY.exists(), reason="the load engine is built by ./arena test first")


@pytest.fixture
def fake(tmp_path: Path) -> catalog.Manifest:
    return catalog.parse(write_manifest(tmp_path, "fake"))


@pytest.fixture(scope="session")
def fake_measurements(tmp_path_factory) -> list:
    """Two repetitions of one point on the fake server under the real load engine (tests that use
    it skip without the engine)."""
    from test_rest_measure import measured, task  # the REST measurement helpers live with their tests

    manifest = catalog.parse(write_manifest(tmp_path_factory.mktemp("servers"), "fake"))
    engine = loadgen.Loadgen()
    return [measured(task(manifest, repetition=rep), engine) for rep in range(2)]
