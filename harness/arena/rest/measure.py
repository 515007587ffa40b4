"""One REST measurement: the server started pinned to its cores, warmed up, loaded by the engine on
the remaining cores while its CPU time and peak memory are sampled, then stopped — and what came
of it as a Measurement."""

from __future__ import annotations

import os

from arena import cores
from arena.engine import EngineError, LoadEngine
from arena.kind import Task
from arena.measurement import Measurement, Outcome
from arena.process import Sampler, ServerError, free_port, running
from arena.rest.result import HttpResult, metrics_of
from arena.rest.scenarios import Point
from arena.toolchain import runtime_version

KIND = "http"
WARMUP_ITERATIONS = 100
WARMUP_TIMEOUT_S = 180
UNPLANNED_S = 30  # a model whose length only the run can tell (a fixed count of requests)
SLACK_S = 120
ERROR_LIMIT = 0.01
ENGINE_BOUND = 0.9


def run_length(point: Point) -> float:
    return point.planned_s if point.planned_s is not None else UNPLANNED_S


def warmup_scenario(document: dict, point: Point) -> dict:
    """A short fixed run of the same steps, so JITs and caches are warm before we measure."""
    iterations = point.scenario.profiles[point.suite].get("warmup", WARMUP_ITERATIONS)
    return {
        **document,
        "model": {"kind": "fixed", "requests": iterations, "concurrency": min(4, iterations)},
        "keep_alive": True,
        "max_duration_s": SLACK_S,
    }


def measure(task: Task, engine: LoadEngine, users: os.PathLike | None) -> Measurement:
    point, manifest = task.point, task.manifest
    server_cores, engine_cores, shared = cores.split(task.cpus)
    port = free_port()
    length = run_length(point)
    document = point.engine_scenario(port, task.cpus, users, length + SLACK_S)
    flags = ["shared-cores"] if shared else []
    versions = {"runtime": runtime_version(manifest), "framework": manifest.framework, "libraries": manifest.libraries}
    parameters = {
        "engine": document,
        "settings": point.settings(),
        "server_cores": server_cores,
        "engine_cores": engine_cores,
    }
    try:
        with running(manifest, task.cpus, port, point.settings(), server_cores) as server:
            engine.run(warmup_scenario(document, point), engine_cores, WARMUP_TIMEOUT_S)
            with Sampler(server) as sampler:
                run = engine.run(document, engine_cores, length + 2 * SLACK_S)
            if not server.alive():
                flags.append("crashed")
    except (ServerError, EngineError) as err:
        return task.measurement(
            Outcome.FAILED, reason=str(err), flags=[*flags, "crashed"], versions=versions, parameters=parameters
        )
    metrics = metrics_of(run.result, point)
    if metrics["error_ratio"] > ERROR_LIMIT:
        flags.append("errors")
    if run.cpu_s > ENGINE_BOUND * run.wall_s * len(engine_cores):
        flags.append("engine-bound")
    versions["engine"] = run.version
    result = HttpResult(
        metrics=metrics,
        histograms={step["name"]: step["histogram"] for step in run.result["steps"]}
        | {"*": run.result["all"]["histogram"]},
        series=run.result["series"],
        server_cpu_s=sampler.cpu_s,
        server_peak_rss_kb=sampler.peak_rss_kb,
        engine_cpu_s=run.cpu_s,
    )
    return task.measurement(Outcome.MEASURED, flags=flags, payload=result, versions=versions, parameters=parameters)


def outcome(m: Measurement) -> str:
    """A measurement in one line."""
    if not m.measured:
        return f"FAILED: {m.reason.splitlines()[0] if m.reason else 'no reason given'}"
    result: HttpResult = m.payload
    x = result.metrics
    flags = f"  [{', '.join(m.flags)}]" if m.flags else ""
    return (
        f"{x['rps']:9.1f} req/s  ok {x['ok_requests']:7d}  p50 {x['p50_ms']:8.1f} ms  p99 {x['p99_ms']:8.1f} ms"
        f"  errors {x['error_ratio']:.1%}  cpu {result.server_cpu_s:.1f} s  "
        f"rss {result.server_peak_rss_kb // 1024} MiB{flags}"
    )
