"""Locust, the thesis' own tool, behind the engine interface (arena/engines/interface.py): a master and its
workers run the scenario document through one generic locustfile (locustfile.py) and return
loadgen's result document, so the REST kind measures and stores alike whichever engine ran.

Locust runs users: it honours the closed model (users, think time, ramp, data rows) and refuses
the open and fixed ones, which need arrivals on a schedule timed from their intended start, or an
exact count shared by workers — neither of which its users can keep.

The master runs on the engine's cores with the workers it starts (one per core, each pinned to
one: a worker is one gevent thread), or waits for `remote` workers that `arena worker` started
elsewhere; either way it binds `bind` (127.0.0.1 unless workers come from other hosts).
"""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.engines.interface import EngineError, EngineRun
from arena.errors import UsageError
from arena.host.process import cpu_list, free_port, stop_tree
from arena.impls.toolchain import Toolchains
from arena.paths import RESULTS, ROOT

LOCUSTFILE = Path(__file__).with_name("locustfile.py")
MASTER_PORT = 5557  # Locust's own default, where remote workers look first
WAIT_FOR_WORKERS_S = 120
MODEL = "closed"  # the one model kind Locust runs (see the module docstring)


def locust_command(*args: str) -> list[str]:
    """Locust from the harness's own environment, with this package importable."""
    return [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--skip-log-setup", *args]


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT / "harness")}


def worker_command(master: str, port: int) -> list[str]:
    return locust_command("--worker", "--master-host", master, "--master-port", str(port))


class Locust:
    name = "locust"

    def __init__(
        self, workers: int | None = None, remote: bool = False, bind: str = "127.0.0.1", port: int | None = None
    ) -> None:
        self.workers, self.remote, self.bind = workers, remote, bind
        self.port = port or (MASTER_PORT if remote else None)

    def ensure(self, toolchains: Toolchains) -> None:
        """Locust is pinned in the harness's own lock: only check that it imports."""
        done = subprocess.run(
            [sys.executable, "-m", "locust", "--version"],
            capture_output=True,
            text=True,
            check=False,
            env=environment(),
        )
        if done.returncode != 0:
            raise EngineError(f"Locust does not start: {(done.stderr or done.stdout).strip()[-300:]}")

    @staticmethod
    def runs(model: dict) -> bool:
        """Whether Locust can run a scenario's model: closed ones only."""
        return model.get("kind") == MODEL

    def check(self, scenario: dict) -> float | None:
        model = scenario.get("model", {})
        if not self.runs(model):
            raise EngineError(
                f"Locust runs closed models only (users that think); this scenario's model is {model.get('kind')!r}: "
                "measure it with --engine loadgen"
            )
        if not model.get("duration_s"):
            raise EngineError("Locust needs the closed model's duration_s (iterations_per_user alone has no end)")
        return float(model["duration_s"])

    def run(self, scenario: dict, cores: list[int], timeout: float) -> EngineRun:
        self.check(scenario)
        scratch = RESULTS / "tmp"
        scratch.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", suffix=".json", dir=scratch, delete=False) as file:
            json.dump(scenario, file)
        plan, result = Path(file.name), Path(file.name).with_suffix(".result.json")
        port = self.port or free_port()
        count = self.workers or len(cores)
        model = scenario["model"]
        users = int(model["users"])
        rate = model.get("ramp_per_s") or users
        env = {**environment(), "ARENA_SCENARIO": str(plan), "ARENA_RESULT": str(result)}
        log = RESULTS / "logs" / f"locust-{time.strftime('%Y%m%d-%H%M%S')}-{port}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        master_args = [
            *("--master", "--headless", "--master-bind-host", self.bind, "--master-bind-port", str(port)),
            *("--expect-workers", str(count), "--expect-workers-max-wait", str(WAIT_FOR_WORKERS_S)),
            *("-u", str(users), "-r", str(rate), "--host", scenario["target"], "--loglevel", "WARNING"),
        ]
        started = time.monotonic()
        processes: list[subprocess.Popen] = []
        with log.open("w") as out:
            try:
                master = _spawn(cores, locust_command(*master_args), env, out)
                processes.append(master)
                if not self.remote:
                    for i in range(count):
                        processes.append(_spawn([cores[i % len(cores)]], worker_command(self.bind, port), env, out))
                try:
                    master.wait(timeout=timeout + WAIT_FOR_WORKERS_S)
                except subprocess.TimeoutExpired:
                    raise EngineError(f"Locust did not finish within {timeout:.0f} s (log {log})") from None
                wall_s = time.monotonic() - started
            finally:
                for process in processes:
                    _stop(process)
                plan.unlink(missing_ok=True)
        if not result.exists():
            raise EngineError(f"Locust ended without a result (status {master.returncode}; log {log})")
        document = json.loads(result.read_text(encoding="utf-8"))
        result.unlink(missing_ok=True)
        engine = document["engine"]
        if len(engine["workers"]) < engine["expected_workers"]:
            raise EngineError(
                f"{len(engine['workers'])} of {engine['expected_workers']} Locust workers reported (log {log})"
            )
        cpu_s = engine["master_cpu_s"] + sum(w["cpu_s"] for w in engine["workers"])
        return EngineRun(
            document, cpu_s, wall_s, f"locust {engine['version']}", busiest=self._busiest(engine["workers"])
        )

    def _busiest(self, workers: list[dict]) -> float:
        """The busiest core's share: workers this machine pinned to one core add up on it; remote
        ones count alone (their machines' cores are not ours to add)."""
        if self.remote:
            return max((w["cpu_s"] / w["wall_s"] for w in workers if w["wall_s"] > 0), default=0.0)
        by_core: dict[tuple, float] = {}
        for w in workers:
            if w["wall_s"] > 0:
                by_core[tuple(w["cores"])] = by_core.get(tuple(w["cores"]), 0.0) + w["cpu_s"] / w["wall_s"]
        return max(by_core.values(), default=0.0)


def _spawn(cores: list[int], command: list[str], env: dict[str, str], out) -> subprocess.Popen:
    """A Locust process pinned to `cores`, in a session of its own (the harness stops it in order)."""
    return subprocess.Popen(
        ["taskset", "--cpu-list", cpu_list(cores), *command],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _stop(process: subprocess.Popen) -> None:
    """A Locust process that did not leave with the master's quit, and what it started."""
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        stop_tree(process)


def serve_worker(master: str, cpus: str | None, say) -> int:
    """`arena worker --master HOST[:PORT]`: a Locust worker in the foreground for every point the
    master measures (its master ends each point's test, and the next point's master finds a fresh
    worker), until Ctrl-C."""
    host, _, port = master.partition(":")
    try:
        address = ipaddress.ip_address(host)
        number = int(port) if port else MASTER_PORT
    except ValueError:
        raise UsageError(f"--master {master}: an IP address, and a port after ':' if not {MASTER_PORT}") from None
    if not 1 <= number <= 65535:
        raise UsageError(f"--master {master}: a port in 1..65535")
    pinned = ["taskset", "--cpu-list", cpus] if cpus else []
    say(f"arena worker: Locust workers for the master at {address}:{number}, one per point (Ctrl-C stops it)")
    while True:
        status = subprocess.call([*pinned, *worker_command(str(address), number)], env=environment())
        say(f"arena worker: the worker ended (status {status}); waiting for the next point's master")
        time.sleep(1)
