"""`arena micro`'s kind of measurement: every bench of spec/micro.toml on every runtime of micro/.

Each measurement is one run of the runtime's program (a cold start, as Valkov et al. restarted
their VMs), pinned to its core budget and bounded in time and memory; its check values are
verified. A point that fails is recorded as failing there, and the larger points of the same sweep
are recorded as not run. Spawn's `max` point is a search (micro/search.py).
"""

from __future__ import annotations

import argparse
import functools

from arena.context import Context
from arena.impls import catalog
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains
from arena.kind import COMMANDS, Batch, Kind
from arena.kind import MICRO as KIND
from arena.measured.measurement import Measurement
from arena.measured.store import Run
from arena.micro import benchmarks, tables
from arena.micro.measure import Measurer, outcome
from arena.micro.plan import MicroPlan, add_arguments, plan_tasks, planned
from arena.micro.result import SpawnSearch
from arena.report.tables import Report


class MicroKind(Kind):
    name = KIND
    plans = MicroPlan
    command = COMMANDS[KIND]
    help = "the actor and process micro-benchmarks of spec/micro.md"
    suited = True
    arguments = staticmethod(add_arguments)

    def plan(self, options: argparse.Namespace) -> MicroPlan:
        return planned(options)

    def headline(self, plan: MicroPlan) -> str:
        limits = benchmarks.limits(plan.suite)
        budgets = plan.cpus or "each bench's own (spec/micro.toml)"
        return (
            f"suite {plan.suite}, cpus {budgets}, {plan.repeat} repetition(s); "
            f"each run bounded by {limits.seconds:g} s and {limits.run_memory_mb()} MiB"
        )

    def prepare(self, plan: MicroPlan, stored: list[Measurement], context: Context) -> Batch:
        benches, limits, console = benchmarks.load(plan.bench), benchmarks.limits(plan.suite), context.console
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
        return tables.report(title, benchmarks.load(MicroPlan.of(run.plan).bench), measurements, skipped, run.host)

    def experiments(self, plan: MicroPlan) -> list[str]:
        return [b.id for b in benchmarks.load(plan.bench)]

    @functools.cached_property
    def _metric_of_bench(self) -> dict[str, dict[str, bool]]:
        """Read once: reports and exports ask it of every measurement (spec/micro.toml parsed for
        each took 30 s over the kept runs)."""
        return {b.id: {b.metric: b.higher_is_better} for b in benchmarks.load()}

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        if isinstance(m.payload, SpawnSearch):
            return {"max_procs": True}
        return dict(self._metric_of_bench.get(m.experiment, {}))
