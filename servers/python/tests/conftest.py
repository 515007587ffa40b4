"""Fixtures: the application on aiohttp's test server, and the real server as a process on 127.0.0.1."""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from arena_aiohttp.app import State, make_app
from arena_aiohttp.config import Config
from arena_aiohttp.records import Records
from arena_aiohttp.store import LocalCounter, LocalStore
from support import DATA, FOLDER, HELLO, QUICK


def quick_config(**changes: object) -> Config:
    settings = {
        "bcrypt_cost": 4,
        "longpoll_ms": 300,
        "hello_delay_ms": 400,
        "hello_delay_every": 3,
        "sort_n": 300,
        "data_dir": str(DATA),
    }
    return Config(**{**settings, **changes})


@pytest.fixture
def state():
    hasher = ThreadPoolExecutor(max_workers=2)
    yield State(quick_config(), HELLO, LocalStore(), LocalCounter(), Records(None, 1), hasher)
    hasher.shutdown()


@pytest.fixture
async def client(aiohttp_client, state):
    return await aiohttp_client(make_app(state))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Process:
    """The server started as the harness starts it: `python -m arena_aiohttp` in this folder."""

    def __init__(self, cpus: int, **settings: str) -> None:
        self.port = free_port()
        env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
        env.update({**QUICK, "ARENA_PORT": str(self.port), "ARENA_CPUS": str(cpus), "ARENA_DATA_DIR": str(DATA)})
        env.update(settings)
        if sys.pycache_prefix:
            env["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (the process writes to it until it ends)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena_aiohttp"],
            cwd=FOLDER,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 20.0) -> None:
        ends = time.monotonic() + timeout
        while time.monotonic() < ends:
            if self.proc.poll() is not None:
                raise AssertionError(f"exited {self.proc.returncode}: {self.output()}")
            with contextlib.suppress(OSError):
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                try:
                    conn.request("GET", "/")
                    if conn.getresponse().status == 200:
                        return
                finally:
                    conn.close()
            time.sleep(0.05)
        raise AssertionError(f"not ready within {timeout} s")

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> int:
        """SIGTERM to the whole process group, as the harness stops servers; the exit status."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise


@pytest.fixture
def start():
    """start(cpus, **settings) -> a ready server process, stopped after the test."""
    started: list[Process] = []

    def run(cpus: int = 1, **settings: str) -> Process:
        process = Process(cpus, **settings)
        started.append(process)
        process.wait_ready()
        return process

    yield run
    for process in started:
        process.stop()
