"""One REST measurement: the server of the repetition's start, pinned to its cores (frame/starts.py),
warmed up under the point's own load until steady (rest/warmup.py), loaded by the engine on the
remaining cores while its CPU time and peak memory are sampled — and what came of it as a
Measurement, with the point's ceiling (rest/ceiling.py)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Callable

from arena.engines.interface import ENGINE_BUSY_MAX, LoadEngine
from arena.frame.attempt import FAILURES, Attempt
from arena.frame.starts import Starts
from arena.host.database import Database, DatabaseError
from arena.host.process import Sampler, ServerError
from arena.kind import Task
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement, Outcome
from arena.rest import ceiling, warmup
from arena.rest.result import RestResult, metrics_of
from arena.rest.scenarios import ScenarioPoint

UNPLANNED_S = 30  # a model whose length only the run can tell (a fixed count of requests)
SLACK_S = 120
ERROR_LIMIT = 0.01


def run_length(point: ScenarioPoint) -> float:
    return point.planned_s if point.planned_s is not None else UNPLANNED_S


def measure(
    task: Task,
    engine: LoadEngine,
    users: os.PathLike | None,
    starts: Starts,
    db: Database | None = None,
    phase: Callable[[str], None] = lambda _: None,
) -> Measurement:
    point = task.point
    length = run_length(point)
    attempt = Attempt(task)
    attempt.versions["libraries"] = task.manifest.libraries
    attempt.parameters["settings"] = starts.settings[(point.experiment, point.key)]
    flags, engine_cores = attempt.flags, attempt.engine_cores
    rule = point.warmup()
    server = None
    try:
        # The database of a record scenario runs on the engine's cores (the client side of the
        # server), and its cost is sampled like the server's when the harness started it.
        sampled_db = attempt.on_database(db) if point.scenario.database and db is not None else None
        server = attempt.start(starts, phase)
        warm_s = rule.max_s if rule else 0.0
        document = point.engine_scenario(server.port, task.cpus, users, warm_s + length + SLACK_S, server.host)
        attempt.parameters["engine"] = document
        phase("warm-up, then measure")
        db_sampling = Sampler(sampled_db, proportional=True) if sampled_db else contextlib.nullcontext()
        with Sampler(server) as sampler, db_sampling as db_sampler:
            run = engine.run(document, engine_cores, warm_s + length + 2 * SLACK_S)
        if not server.alive():
            flags.append(Flag.CRASHED)
        # The bcrypt ceiling's hash time, on the server as it was measured: warm, and now idle (a
        # cold point's server was not warm, and its hashes at cost 20 would take minutes).
        bcrypt = ceiling.kind_of(point) == "bcrypt" and Flag.CRASHED not in flags and rule is not None
        hash_s = ceiling.hash_seconds(server.port, server.host) if bcrypt else None
        lost = _database_lost(db) if point.scenario.database and db is not None else None
    except FAILURES as err:
        # `crashed` says the server died (or never started), not that the engine or the database failed.
        crashed = isinstance(err, ServerError) or (server is not None and not server.alive())
        starts.close()  # a server in an unknown state measures nothing more
        return attempt.failed(err, crashed)
    warm = warmup.of_result(run.result, rule) if rule else None
    # The server's CPU and memory over the measured window alone, not its warm-up.
    opened = run.result["started_unix_ms"] / 1000 + (run.result["warmup"]["measured_from_s"] if rule else 0.0)
    closed = opened + run.result["elapsed_s"]
    cpu_s, peak_rss_kb = sampler.window(opened, closed)
    db_cpu_s, db_peak_pss_kb = db_sampler.window(opened, closed) if db_sampler else (None, None)
    metrics = metrics_of(run.result)
    limit = ceiling.ceiling(point, run.result, task.cpus, hash_s)
    if limit is not None:
        metrics["ceiling_share"] = limit.share(metrics["ok_requests"], metrics["ok_rps"])
    if metrics["error_ratio"] > ERROR_LIMIT:
        flags.append(Flag.ERRORS)
    if run.busy(len(engine_cores)) > ENGINE_BUSY_MAX:
        flags.append(Flag.ENGINE_BOUND)
    if warm is not None and not warm.steady:
        flags.append(Flag.NEVER_STEADY if point.counts_unsteady() else Flag.UNSTEADY)
    attempt.versions["engine"] = run.version
    result = RestResult(
        metrics=metrics,
        histograms={step["name"]: step["histogram"] for step in run.result["steps"]}
        | {"*": run.result["all"]["histogram"]},
        series=run.result["series"],
        server_cpu_s=cpu_s,
        server_peak_rss_kb=peak_rss_kb,
        engine_cpu_s=run.cpu_s,
        engine_workers=run.result.get("engine", {}).get("workers"),
        ready_s=server.ready_s,
        points_before=attempt.points_before,
        process_age_s=attempt.process_age_s,
        db_cpu_s=db_cpu_s,
        db_peak_pss_kb=db_peak_pss_kb,
        warmup=dataclasses.asdict(warm) | {"steady_s": warm.steady_s} if warm else None,
        ceiling=dataclasses.asdict(limit) if limit else None,
    )
    if lost:  # what the engine saw is kept, but it measured a server without its database: a failure
        starts.close()
    return attempt.measured(result, Outcome.FAILED if lost else Outcome.MEASURED, lost or "")


def _database_lost(db: Database) -> str | None:
    """Why the point's database no longer answers (it died or was stopped during the measurement),
    or None when it still does."""
    try:
        db.query("SELECT 1")
    except DatabaseError as err:
        return f"the database stopped answering during the measurement ({db.described}): {err.line()}"
    return None


def outcome(m: Measurement) -> str:
    """A measurement in one line."""
    if not m.measured:
        return f"FAILED: {m.reason.splitlines()[0] if m.reason else 'no reason given'}"
    result: RestResult = m.payload
    x = result.metrics
    flags = f"  [{', '.join(m.flags)}]" if m.flags else ""
    share = f" ({x['ceiling_share']:.0%} of ceiling)" if "ceiling_share" in x else ""
    warm = result.warmup or {}
    steady = f"steady after {warm['steady_s']:.1f} s" if warm.get("steady_s") is not None else "never steady"
    return (
        f"{x['rps']:9.1f} req/s{share}  p50 {x['p50_ms']:.1f} ms  p99 {x['p99_ms']:.1f} ms  "
        f"errors {x['error_ratio']:.1%}  cpu {result.server_cpu_s:.1f} s  rss {result.server_peak_rss_kb // 1024} MiB"
        f"  | ready {result.ready_s:.2f} s, {warm.get('classification', '?')}, {steady}{flags}"
    )
