"""Running a server: pinned to its cores, logged to a file, awaited until ready, always stopped whole.

`Server` is a context manager: on leaving it — success, failure, timeout or Ctrl-C — the server's
whole process tree is terminated, then killed if it does not go within a grace period.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import resource
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import psutil

from arena.errors import ArenaError
from arena.host.steal import stolen_s
from arena.impls.build import tail
from arena.impls.catalog import Manifest
from arena.paths import RESULTS, SPEC

STOP_GRACE = 5.0
READY_POLL_S = 0.01  # how often readiness is asked: the cold-start time is this precise


class ServerError(ArenaError):
    """The server could not be started or did not become ready; the message has its log tail."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def open_files_limit() -> int:
    """The open-files limit a process started from here gets: the soft limit raised to the hard
    one, so that servers, the engine and the database inherit the most this machine allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard if hard != resource.RLIM_INFINITY else 1 << 20


def port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


DB_POOL = 8  # spec/README.md's default ARENA_DB_POOL


def contract_env(port: int, cpus: int, settings: dict[str, str] | None = None) -> dict[str, str]:
    """The ARENA_* variables of spec/README.md, with the given overrides. Past DB_POOL cores, a
    pool of one connection a core, every server alike: a server of one process a core gives each
    its share of the pool and refuses a pool smaller than its processes (spec/README.md)."""
    env = {
        "ARENA_HOST": "127.0.0.1",
        "ARENA_PORT": str(port),
        "ARENA_CPUS": str(cpus),
        "ARENA_DATA_DIR": str(SPEC / "data"),
        **({"ARENA_DB_POOL": str(cpus)} if cpus > DB_POOL else {}),
    }
    env.update(settings or {})
    return env


def cpu_list(cores: list[int]) -> str:
    return ",".join(str(core) for core in cores)


def tree_of(process: subprocess.Popen | None) -> list[psutil.Process]:
    """The process and every descendant still alive."""
    if process is None:
        return []
    try:
        root = psutil.Process(process.pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def stop_tree(process: subprocess.Popen | None) -> int | None:
    """Terminates a process started in a session of its own, with its group and every descendant;
    kills what is left after the grace. Its exit status, or None when it would not go."""
    if process is None:
        return None
    members = tree_of(process)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        for proc in members:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.send_signal(sig)
        _, alive = psutil.wait_procs(members, timeout=STOP_GRACE)
        members = alive
        if not members:
            break
    try:
        return process.wait(timeout=STOP_GRACE)
    except subprocess.TimeoutExpired:
        return None


@dataclass
class Server:
    manifest: Manifest
    cpus: int
    port: int
    cores: list[int]
    settings: dict[str, str] = field(default_factory=dict)
    log: Path | None = None
    started: float = 0.0  # monotonic time just before the process was created
    ready_s: float | None = None  # from then to the first correct answer to GET / (cold start)
    process: subprocess.Popen | None = None

    @property
    def host(self) -> str:
        """Where it listens: loopback unless its settings name another address (ARENA_HOST)."""
        return self.settings.get("ARENA_HOST", "127.0.0.1")

    def start(self) -> None:
        if port_in_use(self.port):
            raise ServerError(f"port {self.port} on 127.0.0.1 is already in use; choose another with --port")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.log = RESULTS / "logs" / f"{self.manifest.name}-cpus{self.cpus}-{stamp}-{self.port}.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        # Every ARENA_* setting is the harness's to give: none leaks in from the caller's environment.
        inherited = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
        env = {**inherited, **self.manifest.env(self.cpus), **contract_env(self.port, self.cpus, self.settings)}
        command = ["taskset", "--cpu-list", cpu_list(self.cores), *self.manifest.command(self.cpus)]
        with self.log.open("w") as out:
            out.write(f"$ {' '.join(command)}\n")
            out.flush()
            self.started = time.monotonic()
            try:
                # A session of its own: Ctrl-C in the terminal reaches the harness, which then stops
                # the whole tree in order, rather than racing the server's own signal handling.
                self.process = subprocess.Popen(
                    command,
                    cwd=self.manifest.folder,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            except OSError as err:
                raise ServerError(f"cannot start {self.manifest.name}: {err}") from err

    def wait_ready(self, timeout: float | None = None) -> float:
        """Seconds from the process's start until `GET /` answered 200 (also kept as `ready_s`);
        raises ServerError with the log tail otherwise."""
        assert self.process is not None
        limit = timeout if timeout is not None else self.manifest.ready_timeout
        while time.monotonic() - self.started < limit:
            if self.process.poll() is not None:
                raise ServerError(
                    f"{self.manifest.name} exited with status {self.process.returncode} before it was ready;"
                    f" log {self.log}:\n{tail(self.log)}"
                )
            try:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=1)
                conn.request("GET", "/")
                if conn.getresponse().status == 200:
                    self.ready_s = time.monotonic() - self.started
                    return self.ready_s
            except OSError:
                pass
            finally:
                conn.close()
            time.sleep(READY_POLL_S)
        raise ServerError(
            f"{self.manifest.name} did not answer GET / within {limit:.0f} s; log {self.log}:\n{tail(self.log)}"
        )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def output(self) -> str:
        """What the server printed: its log without the command line written there first."""
        try:
            return self.log.read_text(errors="replace").split("\n", 1)[1] if self.log else ""
        except (OSError, IndexError):
            return ""

    def tree(self) -> list[psutil.Process]:
        return tree_of(self.process)

    def stop(self) -> None:
        stop_tree(self.process)


class Processes(Protocol):
    """Something whose processes can be sampled: a server, or the database (arena/host/database.py)."""

    def tree(self) -> list[psutil.Process]: ...


def cpu_times(processes: Processes) -> dict[int, float]:
    """CPU seconds (user and system) of each live process of a tree, by pid."""
    found = {}
    for proc in processes.tree():
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            times = proc.cpu_times()
            found[proc.pid] = times.user + times.system
    return found


class Sampler:
    """Samples a server's whole process tree: CPU seconds used and peak resident memory, over the
    whole block (`cpu_s`, `peak_rss_kb`) or over a part of it (`window`), from samples every
    `interval` seconds stamped with the wall clock; and, given `cores`, the time the hypervisor
    took from them over a part of it (`stolen`, host/steal.py).

    A process that exits keeps the CPU time of its last sample, so a worker that dies mid-run
    is not forgotten; one that lives shorter than the sampling interval is missed.
    """

    def __init__(
        self, server: Processes, interval: float = 0.1, proportional: bool = False, cores: list[int] | None = None
    ) -> None:
        self.server = server
        self.interval = interval
        # Proportional set size rather than resident: memory the processes share (a database's
        # shared buffers, mapped by every backend) counted once, not once per process.
        self.proportional = proportional
        self.cores = cores or []
        # (unix time, CPU seconds so far, RSS KiB, seconds stolen from `cores` so far)
        self.samples: list[tuple[float, float, int, float]] = []
        self._seen: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _cpu(self) -> float:
        self._seen |= cpu_times(self.server)
        return sum(self._seen.values())

    def _rss(self) -> int:
        total = 0
        for proc in self.server.tree():
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                total += proc.memory_full_info().pss if self.proportional else proc.memory_info().rss
        return total // 1024

    def _sample(self) -> None:
        self.samples.append((time.time(), self._cpu(), self._rss(), stolen_s(self.cores) if self.cores else 0.0))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def __enter__(self) -> Sampler:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    @property
    def cpu_s(self) -> float:
        return self.samples[-1][1] - self.samples[0][1]

    @property
    def peak_rss_kb(self) -> int:
        return max(sample[2] for sample in self.samples)

    def _at(self, t: float, column: int) -> float:
        """A running total (CPU or stolen seconds) at unix time `t`, interpolated between the
        samples around it."""
        before = [s for s in self.samples if s[0] <= t] or self.samples[:1]
        after = [s for s in self.samples if s[0] >= t] or self.samples[-1:]
        (t0, v0), (t1, v1) = (before[-1][0], before[-1][column]), (after[0][0], after[0][column])
        return v0 if t1 <= t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)

    def window(self, start: float, end: float) -> tuple[float, int]:
        """CPU seconds and peak RSS between two unix times within the block: CPU interpolated
        between the samples around each end, RSS the highest sample inside (or nearest)."""
        inside = [s[2] for s in self.samples if start <= s[0] <= end]
        nearest = min(self.samples, key=lambda s: abs(s[0] - end))[2]
        return max(0.0, self._at(end, 1) - self._at(start, 1)), max(inside, default=nearest)

    def stolen(self, start: float, end: float) -> float | None:
        """The share of the `cores`' time the hypervisor took between two unix times within the
        block; None without cores, or over no time."""
        if not self.cores or end <= start:
            return None
        return max(0.0, self._at(end, 3) - self._at(start, 3)) / ((end - start) * len(self.cores))


@contextmanager
def running(
    manifest: Manifest,
    cpus: int,
    port: int,
    settings: dict[str, str] | None = None,
    cores: list[int] | None = None,
) -> Iterator[Server]:
    """A started and ready server, stopped with its whole tree when the block ends, however it ends."""
    server = Server(manifest, cpus, port, cores or list(range(cpus)), settings or {})
    try:
        server.start()
        server.wait_ready()
        yield server
    finally:
        server.stop()
