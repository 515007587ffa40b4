"""`arena run`: every point of every experiment on every implementation, measured and stored.

For each point and repetition: start the server pinned to its cores, warm it up, run the engine
pinned to the remaining cores while sampling the server's CPU and memory, stop the server, and
store the measurement at once. Ctrl-C keeps what is finished; `--resume` does only what is left.
"""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from arena import engine, reference, store
from arena.catalog import RESULTS, ROOT, Manifest
from arena.pipeline import cores_for, machine_cores
from arena.process import Sampler, ServerError, free_port, running
from arena.scenarios import Point, Scenario
from arena.toolchain import runtime_version

USERS_ROWS = 100_000
WARMUP_ITERATIONS = 100
ERROR_LIMIT = 0.01
ENGINE_BOUND = 0.9
SLACK_S = 120


@dataclass(frozen=True)
class Task:
    manifest: Manifest
    point: Point
    cpus: int
    repetition: int

    @property
    def key(self) -> tuple:
        return store.key_of(
            "http", self.manifest.name, self.point.scenario.id, self.point.key, self.cpus, self.repetition
        )

    def describe(self) -> str:
        point = self.point
        return (
            f"{self.manifest.name:6} {point.scenario.id:16} {point.label:22} cpus={self.cpus} rep {self.repetition + 1}"
        )


def host_facts() -> dict:
    model = "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), model)
    return {
        "cpu_model": model,
        "cores": len(machine_cores()),
        "kernel": platform.release(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "python": platform.python_version(),
        # Every OS thread takes a pid: these cap thread-per-process runtimes machine-wide.
        "pid_max": _kernel_setting("pid_max"),
        "threads_max": _kernel_setting("threads-max"),
    }


def _kernel_setting(name: str) -> int | None:
    try:
        return int(Path("/proc/sys/kernel", name).read_text())
    except (OSError, ValueError):
        return None


def git_state() -> tuple[str, bool]:
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD") or "unknown"
    return commit, bool(git("status", "--porcelain", "--untracked-files=no"))


def users_file() -> os.PathLike:
    path = RESULTS / "data" / f"users-{USERS_ROWS}.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(reference.users_csv(USERS_ROWS), encoding="ascii")
    return path


def split_cores(cpus: int) -> tuple[list[int], list[int], bool]:
    """Server cores, engine cores, and whether they had to share (no core left for the engine)."""
    server = cores_for(cpus)
    rest = [core for core in machine_cores() if core not in server]
    return (server, rest, False) if rest else (server, machine_cores(), True)


def warmup_scenario(document: dict, scenario: Scenario, suite: str) -> dict:
    """A short fixed run of the same steps, so JITs and caches are warm before we measure."""
    iterations = scenario.profiles[suite].get("warmup", WARMUP_ITERATIONS)
    return {
        **document,
        "model": {"kind": "fixed", "requests": iterations, "concurrency": min(4, iterations)},
        "keep_alive": True,
        "max_duration_s": 120,
    }


def ideal_closed_requests(model: dict, wait_s: float) -> int:
    """Iterations a perfect server completes in a closed run whose every iteration waits `wait_s`.

    User i starts at i / ramp, then completes at start + wait + k x (wait + think) while that is
    within the duration: exactly what an ideal server allows, edges of the window included.
    """
    think_s = sum(model["think_ms"]) / 2 / 1000
    ramp = model.get("ramp_per_s") or 0
    total = 0
    for user in range(model["users"]):
        first = (user / ramp if ramp else 0.0) + wait_s
        if first <= model["duration_s"]:
            total += int((model["duration_s"] - first) // (wait_s + think_s)) + 1
    return total


def metrics_of(result: dict, point: Point) -> dict:
    """The summary numbers the reports use, from the engine's document."""
    everything = result["all"]["latency_us"]
    requests = result["requests"]
    errors = sum(requests["errors"].values())
    metrics = {
        "elapsed_s": result["elapsed_s"],
        "requests": requests["total"],
        "ok_requests": requests["ok"],
        "errors": errors,
        "error_kinds": requests["errors"],
        "error_ratio": errors / requests["total"] if requests["total"] else 1.0,
        "rps": result["throughput_rps"],
        "ok_rps": result["ok_rps"],
        "dropped": result["iterations"]["dropped"],
        "mean_ms": everything["mean"] / 1000,
        **{f"{name}_ms": everything[name] / 1000 for name in everything if name.startswith("p")},
        "max_ms": everything["max"] / 1000,
    }
    if result.get("achieved_arrival_rate") is not None:
        metrics["arrival_rate"] = result["achieved_arrival_rate"]
    wait_s = point.scenario.profiles[point.suite].get("ideal_wait_s")
    if wait_s is not None:
        ideal = ideal_closed_requests(result["scenario"]["model"], wait_s) * len(point.scenario.steps)
        metrics["ideal_requests"] = ideal
        metrics["ideal_ratio"] = metrics["ok_requests"] / ideal if ideal else 0.0
    if "first_last_us" in result:
        metrics["first_s"] = result["first_last_us"][0] / 1e6
        metrics["last_s"] = result["first_last_us"][1] / 1e6
    return metrics


def measure(task: Task, users: os.PathLike | None) -> store.Measurement:
    point, manifest = task.point, task.manifest
    server_cores, engine_cores, shared = split_cores(task.cpus)
    port = free_port()
    document = point.engine_scenario(port, task.cpus, users, point.expected_seconds() + SLACK_S)
    flags = ["shared-cores"] if shared else []
    versions = {
        "runtime": runtime_version(manifest),
        "framework": manifest.framework,
        "libraries": manifest.libraries,
    }
    base = dict(kind="http", impl=manifest.name, experiment=point.scenario.id, point=point.key, cpus=task.cpus,
                repetition=task.repetition, versions=versions)  # fmt: skip
    try:
        with running(manifest, task.cpus, port, point.settings(), server_cores) as server:
            engine.run(warmup_scenario(document, point.scenario, point.suite), engine_cores, 180)
            with Sampler(server) as sampler:
                result = engine.run(document, engine_cores, point.expected_seconds() + 2 * SLACK_S)
            if not server.alive():
                flags.append("crashed")
    except (ServerError, engine.EngineError) as err:
        return store.Measurement(
            **base, parameters={"engine": document, "settings": point.settings()}, metrics={"failure": str(err)},
            histograms={}, series=[], server_cpu_s=None, server_peak_rss_kb=None, engine_cpu_s=None,
            flags=[*flags, "crashed"],
        )  # fmt: skip
    metrics = metrics_of(result, point)
    engine_cpu = result["engine"]["cpu_user_s"] + result["engine"]["cpu_system_s"]
    if metrics["error_ratio"] > ERROR_LIMIT:
        flags.append("errors")
    if engine_cpu > ENGINE_BOUND * result["engine"]["wall_s"] * len(engine_cores):
        flags.append("engine-bound")
    versions["engine"] = f"{result['engine']['name']} {result['engine']['version']}"
    return store.Measurement(
        **base,
        parameters={"engine": document, "settings": point.settings(), "server_cores": server_cores,
                    "engine_cores": engine_cores},
        metrics=metrics,
        histograms={step["name"]: step["histogram"] for step in result["steps"]} | {"*": result["all"]["histogram"]},
        series=result["series"],
        server_cpu_s=sampler.cpu_s,
        server_peak_rss_kb=sampler.peak_rss_kb,
        engine_cpu_s=engine_cpu,
        flags=flags,
    )  # fmt: skip


def one_line(m: store.Measurement) -> str:
    if "failure" in m.metrics:
        return f"FAILED: {m.metrics['failure'].splitlines()[0]}"
    x = m.metrics
    flags = f"  [{', '.join(m.flags)}]" if m.flags else ""
    return (
        f"{x['rps']:9.1f} req/s  ok {x['ok_requests']:7d}  p50 {x['p50_ms']:8.1f} ms  p99 {x['p99_ms']:8.1f} ms"
        f"  errors {x['error_ratio']:.1%}  cpu {m.server_cpu_s:.1f} s  rss {m.server_peak_rss_kb // 1024} MiB{flags}"
    )


def execute(db: store.Store, run_id: int, tasks: list[Task], users: os.PathLike | None) -> bool:
    """Runs what is not yet stored; True when every task is done."""
    done = db.done_keys(run_id)
    todo = [t for t in tasks if t.key not in done]
    if len(todo) < len(tasks):
        print(f"resuming: {len(tasks) - len(todo)} of {len(tasks)} measurements already stored")
    started = time.monotonic()
    estimate = sum(t.point.expected_seconds() + 8 for t in todo)
    for i, task in enumerate(todo, 1):
        elapsed = time.monotonic() - started
        left = max(estimate - elapsed, 0)
        print(f"[{i}/{len(todo)}] {task.describe()}  (~{left / 60:.0f} min left)", flush=True)
        measurement = measure(task, users)
        db.add(run_id, measurement)
        print(f"        {one_line(measurement)}", flush=True)
    return True
