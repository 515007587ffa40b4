"""`arena micro`'s kind of measurement: every bench of spec/micro.toml on every runtime of micro/.

Each measurement is one run of the runtime's program (a cold start, as Valkov et al. restarted
their VMs), pinned to its core budget and bounded in time and memory; its check values are
verified. A point that fails is recorded as failing there, and the larger points of the same sweep
are recorded as not run. Spawn's `max` point is a search (micro/search.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field

from arena import options
from arena.console import Console
from arena.host import cores
from arena.impls import catalog
from arena.impls.catalog import Manifest
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains, runtime_version
from arena.kind import COMMANDS, FINDINGS, Batch, Plan, Task, repetitions
from arena.kind import MICRO as KIND
from arena.measured.measurement import Measurement, Outcome
from arena.measured.stats import NOISY_COV
from arena.measured.store import Run
from arena.micro import program, search, suite, tables
from arena.micro.result import ProgramRun, SpawnSearch
from arena.micro.suite import Bench, Limits, Point
from arena.report.tables import Report

START_S = 1.5  # starting and stopping a program, for the ETA
SEARCH_S = 30.0  # a spawn search, for the ETA


def _sweep(impl: str, bench: str, mode: str, cpus: int) -> tuple:
    """What a failure carries over to larger points: same runtime, bench, mode and budget."""
    return (impl, bench, mode, cpus)


@dataclass(frozen=True)
class MicroPlan(Plan):
    bench: list[str] = field(default_factory=list)  # none named: every bench


def plan_tasks(rows: list[Manifest], benches: list[Bench], plan: MicroPlan) -> tuple[list[Task], list[str]]:
    """The measurements of a plan, and the (runtime, budget) pairs skipped with the reason: a
    runtime that uses fewer cores than a budget would repeat its smaller budget's numbers, except
    in the findings profile, where the seeds gave every runtime the whole machine, and how much of
    it one uses is what some findings ask (spec/micro.md, "Core budget and memory")."""
    machine = len(cores.machine_cores())
    budgets = {bench.id: plan.cpus or suite.budgets(bench, plan.suite, machine) for bench in benches}
    whole = plan.suite == FINDINGS
    tasks = [
        Task(KIND, manifest, point, cpus, repetition, _estimate(point))
        for repetition in range(plan.repeat)
        for bench in benches
        for point in suite.points(bench, plan.suite)
        if repetition == 0 or not point.is_max  # the search is long and its answer a single number
        for manifest in rows
        for cpus in budgets[bench.id]
        if manifest.cpus_for(cpus) == cpus or whole
    ]
    skipped = [
        f"skipped {manifest.name} cpus={cpus}: uses at most {manifest.max_cpus} core(s)"
        for bench in benches
        for manifest in rows
        for cpus in budgets[bench.id]
        if manifest.cpus_for(cpus) != cpus and not whole
    ]
    return tasks, list(dict.fromkeys(skipped))


def _estimate(point: Point) -> float:
    return SEARCH_S if point.is_max else float(point.params.get("seconds", 0)) + START_S


class Measurer:
    """Measures the tasks of one run, remembering which sweeps have failed and each runtime's version."""

    def __init__(self, limits: Limits, stored: list[Measurement], console: Console) -> None:
        self.limits, self.console = limits, console
        self.versions: dict[str, str] = {}
        self.failed: dict[tuple, list[dict]] = {}
        for m in stored:
            if m.kind == KIND and m.outcome is Outcome.FAILED and not isinstance(m.payload, SpawnSearch):
                sweep = _sweep(m.impl, m.experiment, m.parameters["mode"], m.cpus)
                self.failed.setdefault(sweep, []).append(m.parameters["params"])

    def version(self, manifest: Manifest, program_runtime: str) -> dict:
        if manifest.name not in self.versions:
            self.versions[manifest.name] = runtime_version(manifest)
        return {
            "runtime": self.versions[manifest.name],
            "program_runtime": program_runtime,
            "framework": manifest.framework,
            "libraries": manifest.libraries,
            "payload": manifest.payload,
        }

    def __call__(self, task: Task, phase: Callable[[str], None]) -> Measurement:
        point, manifest = task.point, task.manifest
        parameters = {
            "mode": point.mode,
            "params": point.params,
            **({"start": point.start} if point.start else {}),
            "payload": manifest.payload,
            "cores": cores.take(task.cpus),
            "limit_s": self.limits.seconds,
        }
        sweep = _sweep(manifest.name, point.experiment, point.mode, task.cpus)
        blocker = next((f for f in self.failed.get(sweep, []) if suite.dominates(f, point.params)), None)
        if blocker is not None:
            at = " ".join(f"{k}={v}" for k, v in blocker.items())
            return task.measurement(Outcome.NOT_RUN, reason=f"failed at {at}", parameters=parameters)
        if point.is_max:
            return self._search(task, parameters)
        return self._run(task, parameters, sweep)

    def _search(self, task: Task, parameters: dict) -> Measurement:
        found, runtime = search.search_max(task.manifest, task.cpus, task.point, self.limits, self._say)
        return task.measurement(
            Outcome.MEASURED if found.max_procs else Outcome.FAILED,
            reason="" if found.max_procs else found.stopped_by,
            versions=self.version(task.manifest, runtime),
            parameters=parameters | {"search": search.DESCRIPTION},
            payload=found,
        )

    def _say(self, step: str) -> None:
        self.console.line(f"          {step}")

    def _run(self, task: Task, parameters: dict, sweep: tuple) -> Measurement:
        memory_mb = self.limits.run_memory_mb()
        limits = self.limits
        ran, failure = program.run_point(
            task.manifest, task.cpus, task.point, limits.seconds, memory_mb * 1024, limits.warmup_s
        )
        document = ran.document or {}
        result = ProgramRun(
            metric=document.get("metric", {}) if not failure else {},
            check=document.get("check", {}),
            elapsed_s=document.get("elapsed_s"),
            wall_s=ran.wall_s,
            cpu_s=ran.cpu_s,
            peak_rss_kb=ran.peak_rss_kb,
            log=str(ran.log),
            warmup=document.get("warmup"),
        )
        if failure:
            self.failed.setdefault(sweep, []).append(task.point.params)
        return task.measurement(
            Outcome.FAILED if failure else Outcome.MEASURED,
            reason=failure,
            versions=self.version(task.manifest, document.get("runtime", "")),
            parameters=parameters | {"arguments": task.point.arguments(limits.warmup_s), "memory_limit_mb": memory_mb},
            payload=result,
        )


def outcome(m: Measurement, benches: dict[str, Bench]) -> str:
    """A measurement in one line."""
    if m.outcome is Outcome.NOT_RUN:
        return f"not run: {m.reason}"
    if isinstance(m.payload, SpawnSearch):
        found = m.payload
        return f"max {found.max_procs:,} processes under {found.budget_mb} MiB ({found.stopped_by})"
    if not m.measured:
        return f"FAILED: {m.reason}"
    run: ProgramRun = m.payload
    metric = benches[m.experiment].metric
    cpu = f"  cpu {run.cpu_s:.2f} s" if run.cpu_s is not None else ""
    rss = f"  rss {run.peak_rss_kb // 1024} MiB" if run.peak_rss_kb is not None else ""
    warmup = run.warmup or {}
    warm = f"  warm-up {warmup.get('iterations', 0)} it, {warmup.get('seconds', 0):.2f} s" if warmup else ""
    steady = "" if not warmup or warmup.get("steady") else " (not steady)"
    return f"{run.metric[metric]:12.3f} {metric}  checks ok{cpu}{rss}{warm}{steady}"


class MicroKind:
    name = KIND
    plans = MicroPlan
    command = COMMANDS[KIND]
    help = "the actor and process micro-benchmarks of spec/micro.md"
    repeat, repeat_help, suited = 3, "repetitions of every point (default 3)", True

    @staticmethod
    def arguments(parser: argparse.ArgumentParser) -> None:
        options.impls(parser, "runtimes of micro/")
        parser.add_argument(
            "--bench", nargs="*", default=[], help="pingping pingpong spawn throughput ring (default: all)"
        )
        options.budgets(parser, "each bench's own, spec/micro.toml")

    def plan(self, options: argparse.Namespace) -> MicroPlan:
        suite.load(options.bench)
        suite.limits(options.suite)
        catalog.rows(options.impl, catalog.load_micro, lambda _: None)  # unknown names fail here
        return MicroPlan(
            suite=options.suite,
            impl=options.impl,
            cpus=cores.parse_budgets(options.cpus) if options.cpus else None,
            repeat=repetitions(options.repeat),
            bench=options.bench,
        )

    def check(self, plan: MicroPlan) -> None:
        for cpus in plan.cpus or []:
            cores.check_budget(cpus)

    def headline(self, plan: MicroPlan) -> str:
        limits = suite.limits(plan.suite)
        budgets = plan.cpus or "each bench's own (spec/micro.toml)"
        return (
            f"suite {plan.suite}, cpus {budgets}, {plan.repeat} repetition(s); "
            f"each run bounded by {limits.seconds:g} s and {limits.run_memory_mb()} MiB"
        )

    def prepare(self, plan: MicroPlan, stored: list[Measurement], console: Console) -> Batch:
        benches, limits = suite.load(plan.bench), suite.limits(plan.suite)
        self.benches = {b.id: b for b in benches}
        toolchains = Toolchains(say=console.line)
        console.line("preparing")
        ready, skipped = [], []
        for manifest in catalog.rows(plan.impl, catalog.load_micro, console.warn):
            prepared = prepare(manifest, toolchains, console)
            if prepared.ok:
                ready.append(manifest)
            else:
                skipped.append(f"skipped {manifest.name}: {prepared.reason}")
        tasks, budget_skips = plan_tasks(ready, benches, plan)
        return Batch(tasks, Measurer(limits, stored, console), skipped + budget_skips)

    def outcome(self, m: Measurement) -> str:
        return outcome(m, self.benches)

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        return tables.report(title, suite.load(MicroPlan.of(run.plan).bench), measurements, skipped, run.host)

    def experiments(self, plan: MicroPlan) -> list[str]:
        return [b.id for b in suite.load(plan.bench)]

    def noisy(self, m: Measurement) -> float:
        return NOISY_COV

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        if isinstance(m.payload, SpawnSearch):
            return {"max_procs": True}
        bench = {b.id: b for b in suite.load([])}.get(m.experiment)
        return {bench.metric: bench.higher_is_better} if bench else {}
