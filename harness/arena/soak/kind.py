"""`arena soak`'s kind of measurement: every implementation that builds and passes conformance,
held for minutes or hours at a share of its capacity on the soak's workload, one fresh server
start a repetition (spec/soak.md)."""

from __future__ import annotations

import argparse

from arena.capacity.data import data_file
from arena.capacity.workloads import chosen, search_parameters
from arena.context import Context
from arena.frame import servers
from arena.kind import COMMANDS, Batch, Kind, Task
from arena.kind import SOAK as KIND
from arena.measured.measurement import Measurement
from arena.measured.store import Run
from arena.report.tables import Report
from arena.soak import measure, tables
from arena.soak.parameters import load
from arena.soak.plan import SoakPlan, SoakPoint, add_arguments, planned, rate_key

START_S = 10  # a start and its first answer, for the ETA


class SoakKind(Kind):
    name = KIND
    plans = SoakPlan
    command = COMMANDS[KIND]
    help = "each implementation held for minutes or hours: memory slope and p99 drift"
    repeat, repeat_help, suited = 1, "server starts of every implementation, each soaked in turn (default 1)", False
    arguments = staticmethod(add_arguments)

    def plan(self, options: argparse.Namespace) -> SoakPlan:
        return planned(options)

    def headline(self, plan: SoakPlan) -> str:
        held = f"{plan.rate:g} arrivals/s" if plan.rate else f"{plan.share:.0%} of each edge"
        return f"{held} for {plan.minutes:g} min, cpus {plan.cpus}, {plan.repeat} start(s) each"

    def experiments(self, plan: SoakPlan) -> list[str]:
        return [KIND]

    def prepare(self, plan: SoakPlan, stored: list[Measurement], context: Context) -> Batch:
        parameters, search, engine = load(), search_parameters(), context.engine
        (workload,) = chosen([parameters.workload])
        prepared = servers.prepared(plan, context, [engine])
        with prepared.closing_on_error():
            data = data_file(workload, prepared.db)
        point = SoakPoint(plan.minutes, plan.share, plan.rate)
        tasks, missing = [], []
        for manifest, cpus in prepared.ready:
            if not plan.rate and rate_key(manifest.name, cpus) not in plan.rates:
                missing.append(
                    f"skipped {manifest.name} cpus={cpus}: no stored edge of {workload.id} to take a share of "
                    f"(./arena capacity --workload {workload.id} --impl {manifest.name} --cpus {cpus}, or --rate)"
                )
                continue
            estimate = START_S + manifest.warm_s + plan.minutes * 60
            tasks += [Task(self.name, manifest, point, cpus, rep, estimate) for rep in range(plan.repeat)]
        for line in missing:
            context.console.line(f"  {line}")
        db = prepared.db
        return prepared.batch(
            tasks,
            lambda task, phase: measure.measure(task, plan, engine, parameters, search, workload, data, db, phase),
            missing,
        )

    def outcome(self, m: Measurement) -> str:
        return measure.outcome(m)

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        return tables.report(title, measurements, skipped, load())

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        return {"memory_slope_mib_h": False, "p99_drift": False, "p99_ms": False}
