"""Spawn's `max` point: the largest number of dormant processes a runtime holds under a memory
budget, found by doubling N from 1,000 until the budget, a failure or the time bound stops it."""

from __future__ import annotations

from collections.abc import Callable

from arena.impls.catalog import Manifest
from arena.micro import program
from arena.micro.benchmarks import BenchPoint, Limits
from arena.micro.result import SpawnSearch

FIRST_MAX_PROCS = 1000
LAST_MAX_PROCS = 1000 * 2**16  # about 65M: beyond what any budget here holds
DESCRIPTION = f"doubling from {FIRST_MAX_PROCS}"


def search_max(
    manifest: Manifest, cpus: int, point: BenchPoint, limits: Limits, say: Callable[[str], None] = lambda _: None
) -> tuple[SpawnSearch, str]:
    """The search's result, and the runtime the program reported (empty when no step ran)."""
    budget_mb = limits.max_budget_mb()
    steps: list[dict] = []
    procs, reached, stopped, runtime = FIRST_MAX_PROCS, 0, "", ""
    while not stopped:
        step_point = BenchPoint(point.bench, point.mode, {"procs": procs})
        # No warm-up: the search asks how many processes fit, not how fast they start.
        outcome, failure = program.run_point(manifest, cpus, step_point, limits.seconds, budget_mb * 1024, 0)
        step = {"procs": procs, "wall_s": round(outcome.wall_s, 3), "peak_rss_kb": outcome.peak_rss_kb}
        if failure:
            stopped = f"{procs:,} processes: {failure}"
            step["failure"] = failure
        else:
            metric = outcome.document["metric"]
            step |= {"us_per_spawn": metric["us_per_spawn"], "bytes_per_process": metric["bytes_per_process"]}
            reached, runtime = procs, outcome.document.get("runtime", "")
            if procs >= LAST_MAX_PROCS:
                stopped = f"the search's last step ({procs:,} processes) completed"
            procs *= 2
        say(f"procs {step['procs']:>10,}: " + (step.get("failure") or f"{step['us_per_spawn']:.2f} us/spawn"))
        steps.append(step)
    last_ok = next((s for s in reversed(steps) if "failure" not in s), {})
    found = SpawnSearch(
        max_procs=reached,
        budget_mb=budget_mb,
        stopped_by=stopped,
        us_per_spawn=last_ok.get("us_per_spawn"),
        bytes_per_process=last_ok.get("bytes_per_process"),
        steps=steps,
    )
    return found, runtime
