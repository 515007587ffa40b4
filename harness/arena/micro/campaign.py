"""`arena micro`: every bench of spec/micro.toml on every runtime of micro/, measured and stored.

Each measurement is one run of the runtime's program (a cold start, as Valkov et al. restarted
their VMs), pinned to its core budget and bounded in time and memory; its check values are
verified and it is stored at once. A point that fails is recorded as failing there, and the larger
points of the same sweep are recorded as not run. Ctrl-C keeps what is finished; `--resume` does
the rest.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from arena import campaign, store
from arena.catalog import Manifest, load_micro
from arena.micro import program, suite
from arena.micro.suite import Bench, Limits, Point, SuiteError
from arena.pipeline import UsageError, cores_for, load, machine_cores, parse_budgets, prepare
from arena.store import Store
from arena.toolchain import Toolchains, runtime_version

FIRST_MAX_PROCS = 1000
LAST_MAX_PROCS = 1000 * 2**16  # about 65M: beyond what any budget here holds


@dataclass(frozen=True)
class Task:
    manifest: Manifest
    point: Point
    cpus: int
    repetition: int

    @property
    def key(self) -> tuple:
        return store.key_of("micro", self.manifest.name, self.point.bench.id, self.point.key, self.cpus,
                            self.repetition)  # fmt: skip

    @property
    def sweep(self) -> tuple:
        """What a failure carries over to larger points: same runtime, bench, mode and budget."""
        return (self.manifest.name, self.point.bench.id, self.point.mode, self.cpus)

    def describe(self) -> str:
        name, point = self.manifest.name, self.point
        return f"{name:14} {point.bench.id:10} {point.label:34} cpus={self.cpus} rep {self.repetition + 1}"


def plan_tasks(rows: list[Manifest], benches: list[Bench], plan: dict) -> tuple[list[Task], list[str]]:
    """The measurements of a plan, and the (runtime, budget) pairs skipped with the reason."""
    machine = len(machine_cores())
    budgets = {bench.id: plan["cpus"] or suite.budgets(bench, plan["suite"], machine) for bench in benches}
    tasks = [
        Task(manifest, point, cpus, repetition)
        for repetition in range(plan["repeat"])
        for bench in benches
        for point in suite.points(bench, plan["suite"])
        if repetition == 0 or not point.is_max  # the search is long and its answer a single number
        for manifest in rows
        for cpus in budgets[bench.id]
        if manifest.cpus_for(cpus) == cpus
    ]
    skipped = [
        f"skipped {manifest.name} cpus={cpus}: uses at most {manifest.max_cpus} core(s)"
        for bench in benches
        for manifest in rows
        for cpus in budgets[bench.id]
        if manifest.cpus_for(cpus) != cpus
    ]
    return tasks, list(dict.fromkeys(skipped))


def _versions(manifest: Manifest, document: dict | None, cache: dict[str, str]) -> dict:
    if manifest.name not in cache:
        cache[manifest.name] = runtime_version(manifest)
    return {
        "runtime": cache[manifest.name],
        "program_runtime": (document or {}).get("runtime", ""),
        "framework": manifest.framework,
        "libraries": manifest.libraries,
        "payload": manifest.payload,
    }


def measure(task: Task, limits: Limits, versions: dict[str, str]) -> store.Measurement:
    point, manifest = task.point, task.manifest
    memory_mb = limits.run_memory_mb()
    outcome, failure = program.run_point(manifest, task.cpus, point, limits.seconds, memory_mb * 1024)
    if failure:
        metrics = {"failure": failure, "log": str(outcome.log)}
    else:
        document = outcome.document
        metrics = {**document["metric"], "elapsed_s": document["elapsed_s"], "wall_s": outcome.wall_s,
                   "check": document["check"]}  # fmt: skip
    return store.Measurement(
        kind="micro", impl=manifest.name, experiment=point.bench.id, point=point.key, cpus=task.cpus,
        repetition=task.repetition, versions=_versions(manifest, outcome.document, versions),
        parameters={"arguments": point.arguments(), "mode": point.mode, "params": point.params,
                    "payload": manifest.payload, "cores": cores_for(task.cpus), "limit_s": limits.seconds,
                    "memory_limit_mb": memory_mb},
        metrics=metrics, histograms={}, series=[], server_cpu_s=outcome.cpu_s,
        server_peak_rss_kb=outcome.peak_rss_kb, engine_cpu_s=None, flags=["failed"] if failure else [],
    )  # fmt: skip


def search_max(task: Task, limits: Limits, versions: dict[str, str], say=print) -> store.Measurement:
    """spawn with N = 1000, 2000, 4000, ... until the memory budget, a failure or the time bound."""
    manifest, point = task.manifest, task.point
    budget_mb = limits.max_budget_mb()
    steps: list[dict] = []
    procs, reached, stopped, document = FIRST_MAX_PROCS, 0, "", None
    while not stopped:
        step_point = Point(point.bench, point.mode, {"procs": procs})
        outcome, failure = program.run_point(manifest, task.cpus, step_point, limits.seconds, budget_mb * 1024)
        step = {"procs": procs, "wall_s": round(outcome.wall_s, 3), "peak_rss_kb": outcome.peak_rss_kb}
        if failure:
            stopped = f"{procs:,} processes: {failure}"
            step["failure"] = failure
        else:
            document = outcome.document
            step |= {"us_per_spawn": document["metric"]["us_per_spawn"],
                     "bytes_per_process": document["metric"]["bytes_per_process"]}  # fmt: skip
            reached = procs
            if procs >= LAST_MAX_PROCS:
                stopped = f"the search's last step ({procs:,} processes) completed"
            procs *= 2
        say(f"          procs {step['procs']:>10,}: " + (step.get("failure") or f"{step['us_per_spawn']:.2f} us/spawn"))
        steps.append(step)
    last_ok = next((s for s in reversed(steps) if "failure" not in s), {})
    metrics = {"max_procs": reached, "budget_mb": budget_mb, "stopped_by": stopped,
               "us_per_spawn": last_ok.get("us_per_spawn"),
               "bytes_per_process": last_ok.get("bytes_per_process")}  # fmt: skip
    return store.Measurement(
        kind="micro", impl=manifest.name, experiment="spawn", point=point.key, cpus=task.cpus,
        repetition=task.repetition, versions=_versions(manifest, document, versions),
        parameters={"search": "doubling from 1000", "mode": point.mode, "params": point.params,
                    "payload": manifest.payload, "cores": cores_for(task.cpus), "limit_s": limits.seconds},
        metrics=metrics, histograms={}, series=steps, server_cpu_s=None, server_peak_rss_kb=None,
        engine_cpu_s=None, flags=[] if reached else ["failed"],
    )  # fmt: skip


def _failed_points(db: Store, run_id: int) -> dict[tuple, list[dict]]:
    """Per sweep, the parameters of the points that failed so far in this run."""
    failed: dict[tuple, list[dict]] = {}
    for m in db.measurements(run_id):
        if m.kind == "micro" and "failure" in m.metrics and not m.metrics.get("not_run"):
            sweep = (m.impl, m.experiment, m.parameters["mode"], m.cpus)
            failed.setdefault(sweep, []).append(m.parameters["params"])
    return failed


def not_run(task: Task, failed_at: dict) -> store.Measurement:
    at = " ".join(f"{k}={v}" for k, v in failed_at.items())
    return store.Measurement(
        kind="micro", impl=task.manifest.name, experiment=task.point.bench.id, point=task.point.key, cpus=task.cpus,
        repetition=task.repetition, versions={}, parameters={"mode": task.point.mode, "params": task.point.params},
        metrics={"failure": f"not run: failed at {at}", "not_run": True}, histograms={}, series=[],
        server_cpu_s=None, server_peak_rss_kb=None, engine_cpu_s=None, flags=["failed"],
    )  # fmt: skip


def one_line(m: store.Measurement, bench: Bench) -> str:
    if "failure" in m.metrics:
        return f"FAILED: {m.metrics['failure']}"
    if "max_procs" in m.metrics:
        return (
            f"max {m.metrics['max_procs']:,} processes under {m.metrics['budget_mb']} MiB ({m.metrics['stopped_by']})"
        )
    cpu = f"  cpu {m.server_cpu_s:.2f} s" if m.server_cpu_s is not None else ""
    rss = f"  rss {m.server_peak_rss_kb // 1024} MiB" if m.server_peak_rss_kb is not None else ""
    return f"{m.metrics[bench.metric]:12.3f} {bench.metric}  checks ok{cpu}{rss}"


def _estimate(task: Task) -> float:
    if task.point.is_max:
        return 30.0
    return float(task.point.params.get("seconds", 0)) + 1.5


def execute(db: Store, run_id: int, tasks: list[Task], limits: Limits) -> None:
    done = db.done_keys(run_id)
    todo = [t for t in tasks if t.key not in done]
    if len(todo) < len(tasks):
        print(f"resuming: {len(tasks) - len(todo)} of {len(tasks)} measurements already stored")
    failed = _failed_points(db, run_id)
    versions: dict[str, str] = {}
    started, estimate = time.monotonic(), sum(map(_estimate, todo))
    for i, task in enumerate(todo, 1):
        left = max(estimate - (time.monotonic() - started), 0)
        print(f"[{i}/{len(todo)}] {task.describe()}  (~{left / 60:.0f} min left)", flush=True)
        blocker = next((f for f in failed.get(task.sweep, []) if suite.dominates(f, task.point.params)), None)
        if blocker is not None:
            measurement = not_run(task, blocker)
        elif task.point.is_max:
            measurement = search_max(task, limits, versions)
        else:
            measurement = measure(task, limits, versions)
            if "failure" in measurement.metrics:
                failed.setdefault(task.sweep, []).append(task.point.params)
        db.add(run_id, measurement)
        print(f"        {one_line(measurement, task.point.bench)}", flush=True)


def _plan(args: argparse.Namespace) -> dict:
    if not 1 <= args.repeat <= 100:
        raise UsageError(f"--repeat {args.repeat}: choose 1..100")
    return {
        "suite": args.suite,
        "impl": args.impl,
        "bench": args.bench,
        "cpus": parse_budgets(args.cpus) if args.cpus else None,
        "repeat": args.repeat,
    }


def run(args: argparse.Namespace) -> int:
    try:
        suite.load(args.bench)
        suite.limits(args.suite)
    except SuiteError as err:
        raise UsageError(str(err)) from None
    load(args.impl, load_micro)
    db = Store()
    try:
        campaign.claim(db)
        run_id, name, plan = campaign.open_run(db, args.resume, "micro", lambda: _plan(args))
        benches, limits = suite.load(plan["bench"]), suite.limits(plan["suite"])
        rows = load(plan["impl"], load_micro)
        budgets = plan["cpus"] or "each bench's own (spec/micro.toml)"
        print(f"arena micro {name}: suite {plan['suite']}, cpus {budgets}, {plan['repeat']} repetition(s); "
              f"each run bounded by {limits.seconds:g} s and {limits.run_memory_mb()} MiB")  # fmt: skip
        print(f"results: {db.path} (run {name}); Ctrl-C keeps what is finished, --resume continues\n")

        toolchains = Toolchains()
        print("preparing")
        ready, skipped = [], []
        for manifest in rows:
            if manifest.unavailable:
                print(f"  {manifest.name}: unavailable: {manifest.unavailable}")
                skipped.append(f"skipped {manifest.name}: unavailable: {manifest.unavailable}")
                continue
            prepared = prepare(manifest, toolchains)
            if prepared.ok:
                ready.append(manifest)
            else:
                skipped.append(f"skipped {manifest.name}: {prepared.reason}")
        tasks, budget_skips = plan_tasks(ready, benches, plan)
        for line in skipped + budget_skips:
            db.add_note(run_id, line)
        print(f"\nmeasuring: {len(tasks)} measurements")
        try:
            execute(db, run_id, tasks, limits)
        except KeyboardInterrupt:
            return campaign.interrupted(db, run_id, name, "micro")
        db.finish_run(run_id)
        campaign.write_summary(db, run_id)
        return 0
    finally:
        db.close()
