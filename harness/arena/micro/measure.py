"""One micro measurement: a run of the runtime's program at a point (or spawn's search), unless a
smaller point of its sweep failed; and a measurement in one line for the progress display."""

from __future__ import annotations

from collections.abc import Callable

from arena.console import Console
from arena.host import cores
from arena.impls.catalog import Manifest
from arena.impls.toolchain import runtime_version
from arena.kind import MICRO as KIND
from arena.kind import Task
from arena.measured.measurement import Measurement, Outcome
from arena.micro import benchmarks, program, search
from arena.micro.benchmarks import Bench, Limits
from arena.micro.result import ProgramRun, SpawnSearch


def _sweep(impl: str, bench: str, mode: str, cpus: int) -> tuple:
    """What a failure carries over to larger points: same runtime, bench, mode and budget."""
    return (impl, bench, mode, cpus)


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
        blocker = next((f for f in self.failed.get(sweep, []) if benchmarks.dominates(f, point.params)), None)
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
