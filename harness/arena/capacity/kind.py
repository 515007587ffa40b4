"""`arena capacity`'s kind of measurement: for every implementation of servers/ that builds and
passes conformance, every workload of spec/capacity.toml and every core budget, a search for the
edge on independent server starts, as many as the cell's precision needs (spec/capacity.md)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses

from arena.capacity import measure, sweep, tables
from arena.capacity.cells import Cells
from arena.capacity.data import data_file
from arena.capacity.plan import CapacityPlan, add_arguments, estimate, planned
from arena.capacity.result import ClientSweep
from arena.capacity.workloads import WorkloadPoint, all_workloads, chosen, objective_of, search_parameters
from arena.context import Context
from arena.frame import servers
from arena.frame.starts import Starts, start_settings
from arena.kind import CAPACITY as KIND
from arena.kind import COMMANDS, Batch, Kind, Task
from arena.measured.measurement import Measurement
from arena.measured.stats import NOISY_COV
from arena.measured.store import Run
from arena.report.tables import Report


class CapacityKind(Kind):
    name = KIND
    plans = CapacityPlan
    command = COMMANDS[KIND]
    help = "where each runtime breaks: the highest rate under a latency objective"
    repeat = None
    repeat_help = (
        "the most independent server starts a cell takes (default 3: at least 2, more while its place in its "
        "workload's order is open; spec/capacity.toml)"
    )
    arguments = staticmethod(add_arguments)

    def plan(self, options: argparse.Namespace) -> CapacityPlan:
        return planned(options)

    def headline(self, plan: CapacityPlan) -> str:
        slo = f", objective {plan.slo}" if plan.slo else ""
        scaling = ", and a sweep of clients" if plan.scaling else ""
        least = min(search_parameters().starts.least, plan.repeat)
        starts = f"{least} to {plan.repeat}" if least < plan.repeat else str(least)
        return f"cpus {plan.cpus}, {starts} independent start(s) a cell, more where the order is open{scaling}{slo}"

    def prepare(self, plan: CapacityPlan, stored: list[Measurement], context: Context) -> Batch:
        workloads, engine = chosen(plan.workload), context.engine
        prepared = servers.prepared(plan, context, [engine])
        with prepared.closing_on_error():
            data = {w.id: data_file(w, prepared.db) for w in workloads}
        points = [WorkloadPoint(w, objective_of(w, plan.slo)) for w in workloads]
        if plan.scaling:
            points += [WorkloadPoint(w, w.objective, sweep.CLIENTS) for w in workloads]
        # One start a repetition serves every workload in turn, in the order of spec/capacity.toml
        # (frame/starts.py; spec/capacity.md, "One start, every workload").
        rule = dataclasses.replace(search_parameters().starts, most=plan.repeat)
        rule = dataclasses.replace(rule, least=min(rule.least, rule.most))
        tasks = [
            Task(self.name, manifest, point, cpus, rep, estimate(manifest, point, rep, i == 0, rule.least))
            for rep in range(plan.repeat)
            for manifest, cpus in prepared.ready
            for i, point in enumerate(p for p in points if plan.measures(manifest, p.workload.id))
        ]
        cells = Cells(stored, rule)
        db = prepared.db if any(w.database for w in workloads) else None
        starts = prepared.stack.enter_context(contextlib.closing(Starts(start_settings(points), db)))
        return prepared.batch(
            tasks,
            lambda task, phase: measure.measure(task, engine, data, prepared.db, starts, cells, phase),
            needless=cells.needless,
        )

    def outcome(self, m: Measurement) -> str:
        return measure.outcome(m)

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        return tables.report(title, measurements, skipped)

    def experiments(self, plan: CapacityPlan) -> list[str]:
        return [w.id for w in chosen(plan.workload)]

    def noisy(self, m: Measurement) -> float:
        workload = all_workloads().get(m.experiment)
        return workload.noisy if workload else NOISY_COV

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        if isinstance(m.payload, ClientSweep):
            return {name: True for name in m.payload.exported() if name.startswith("throughput.")}
        # What a start answered saturated repeats where its edge under a p99 bound does not
        # (spec/capacity.md, "Spread"): both are compared.
        return {"edge": True} | ({"saturated": True} if m.payload.saturated else {})
