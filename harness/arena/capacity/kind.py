"""`arena capacity`'s kind of measurement: for every implementation of servers/ that builds and
passes conformance, every workload of spec/capacity.toml and every core budget, a search for the
edge on independent server starts, as many as the cell's precision needs (spec/capacity.md)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
from collections.abc import Callable
from pathlib import Path

from arena.capacity import edge, sweep, tables
from arena.capacity.cells import Cells
from arena.capacity.data import data_file, set_up
from arena.capacity.plan import CapacityPlan, add_arguments, estimate, planned
from arena.capacity.probe import Runner
from arena.capacity.result import ClientSweep
from arena.capacity.search import ENGINE_BOUND
from arena.capacity.workloads import Point, chosen, load, objective_of
from arena.context import Context
from arena.engines.interface import LoadEngine
from arena.frame import servers
from arena.frame.attempt import FAILURES, Attempt
from arena.frame.starts import Starts, start_settings
from arena.host.database import Database
from arena.host.process import ServerError
from arena.impls import catalog
from arena.kind import CAPACITY as KIND
from arena.kind import COMMANDS, Batch, Kind, Task
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.measured.stats import NOISY_COV
from arena.measured.store import Run
from arena.report.tables import Report


class CapacityKind(Kind):
    name = KIND
    plans = CapacityPlan
    command = COMMANDS[KIND]
    help = "where each runtime breaks: the highest rate under a latency objective"
    repeat, suited = None, False
    repeat_help = (
        "the most independent server starts a cell takes (default 6: at least 2, more while its place in its "
        "workload's order is open; spec/capacity.toml)"
    )
    arguments = staticmethod(add_arguments)

    def plan(self, options: argparse.Namespace) -> CapacityPlan:
        return planned(options)

    def headline(self, plan: CapacityPlan) -> str:
        slo = f", objective {plan.slo}" if plan.slo else ""
        scaling = ", and a sweep of clients" if plan.scaling else ""
        least = min(load()[0].starts.least, plan.repeat)
        starts = f"{least} to {plan.repeat}" if least < plan.repeat else str(least)
        return f"cpus {plan.cpus}, {starts} independent start(s) a cell, more where the order is open{scaling}{slo}"

    def prepare(self, plan: CapacityPlan, stored: list[Measurement], context: Context) -> Batch:
        workloads, console, engine = chosen(plan.workload), context.console, context.engine
        manifests = catalog.rows(plan.impl, catalog.load, console.warn)
        toolchains = servers.engines_built([engine], console)
        prepared = servers.ready(toolchains, context.db_url, manifests, plan.cpus, console)
        with prepared.closing_on_error():
            data = {w.id: data_file(w, prepared.db) for w in workloads}
        points = [Point(w, objective_of(w, plan.slo)) for w in workloads]
        if plan.scaling:
            points += [Point(w, w.objective, sweep.CLIENTS) for w in workloads]
        # One start a repetition serves every workload in turn, in the order of spec/capacity.toml
        # (frame/starts.py; spec/capacity.md, "One start, every workload").
        rule = dataclasses.replace(load()[0].starts, most=plan.repeat)
        rule = dataclasses.replace(rule, least=min(rule.least, rule.most))
        tasks = [
            Task(self.name, manifest, point, cpus, rep, estimate(manifest, point, rep, i == 0, rule.least))
            for rep in range(plan.repeat)
            for manifest, cpus in prepared.ready
            for i, point in enumerate(points)
        ]
        cells = Cells(stored, rule)
        db = prepared.db if any(w.database for w in workloads) else None
        starts = prepared.stack.enter_context(contextlib.closing(Starts(start_settings(points), db)))
        return Batch(
            tasks,
            lambda task, phase: self.measure(task, engine, data, prepared.db, starts, cells, phase),
            prepared.skipped,
            prepared.stack.close,
            cells.needless,
        )

    def measure(
        self,
        task: Task,
        engine: LoadEngine,
        data: dict[str, Path | None],
        db: Database,
        starts: Starts,
        cells: Cells,
        phase: Callable[[str], None],
    ) -> Measurement:
        """One search (or sweep) on the start of the task's repetition, after the workloads before it."""
        point: Point = task.point
        workload = point.workload
        attempt = Attempt(task)
        attempt.parameters["settings"] = workload.settings
        try:
            # The database runs on the engine's cores (the client side of the server), and its CPU
            # is sampled beside the server's when the harness started it, as in `arena run`.
            sampled_db = db if workload.database and db.own else None
            if workload.database:
                db.reset()
                db.pin(attempt.engine_cores)
                attempt.parameters["db_cores"] = attempt.engine_cores
            server, before, age_s = starts.server(task, attempt.server_cores, phase)
            attempt.parameters["start"] = {"points_before": before, "process_age_s": round(age_s, 3)}
            runner = Runner(engine, server, attempt.engine_cores, workload, data[workload.id], sampled_db)
            setup_s = None
            if workload.setup:
                phase("setup")
                setup_s = set_up(runner)
            if point.clients:
                levels = sweep.sweep(runner, load()[0], phase)
                result = ClientSweep(
                    [dataclasses.asdict(level) for level in levels], len(workload.steps), server.ready_s, setup_s
                )
                attempt.flags += [Flag.ENGINE_BOUND] if any(level.engine_bound for level in levels) else []
            else:
                result = edge.search(task, runner, cells.hint(task), attempt.parameters, setup_s, phase)
                attempt.flags += [Flag.ENGINE_BOUND] if result.ended == ENGINE_BOUND else []
                attempt.flags += [Flag.PAUSE_BOUND] if result.pause_bound() else []
            if not server.alive():
                raise ServerError(f"{task.manifest.name} died during the {workload.id} search")
        except FAILURES as err:
            starts.close()  # a server in an unknown state measures nothing more
            failed = attempt.failed(err, crashed=isinstance(err, ServerError))
            cells.add(failed)
            return failed
        attempt.versions["engine"] = runner.version
        measurement = attempt.measured(result)
        cells.add(measurement)
        return measurement

    def outcome(self, m: Measurement) -> str:
        return tables.outcome(m)

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        return tables.report(title, measurements, skipped)

    def experiments(self, plan: CapacityPlan) -> list[str]:
        return [w.id for w in chosen(plan.workload)]

    def noisy(self, m: Measurement) -> float:
        workload = load()[1].get(m.experiment)
        return workload.noisy if workload else NOISY_COV

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        if isinstance(m.payload, ClientSweep):
            return {name: True for name in m.payload.exported() if name.startswith("throughput.")}
        # What a start answered saturated repeats where its edge under a p99 bound does not
        # (spec/capacity.md, "Spread"): both are compared.
        return {"edge": True} | ({"saturated": True} if m.payload.saturated else {})
