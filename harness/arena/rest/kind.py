"""`arena run`'s kind of measurement: every point of every experiment of spec/scenarios/, on every
implementation of servers/ that builds and passes conformance, with each core budget."""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import replace

from arena.checks import reference
from arena.context import Context
from arena.engines.interface import LoadEngine
from arena.engines.locust.engine import Locust
from arena.frame import servers
from arena.frame.starts import Starts, start_settings
from arena.impls import catalog
from arena.kind import COMMANDS, REST, Batch, Kind, Task
from arena.measured.measurement import Measurement
from arena.measured.store import Run
from arena.report import features
from arena.report.tables import Report
from arena.rest import measure, scenarios, tables
from arena.rest.order import nominal_rps
from arena.rest.plan import RestPlan, add_arguments, estimate, planned
from arena.rest.result import MAIN_METRICS

USERS_ROWS = 100_000


class RestKind(Kind):
    name = REST
    plans = RestPlan
    command = COMMANDS[REST]
    help = "the main job: install, build, verify, measure, report"
    suited = True
    arguments = staticmethod(add_arguments)

    def plan(self, options: argparse.Namespace) -> RestPlan:
        return planned(options)

    def engines(self, plan: RestPlan, context: Context) -> dict[str, LoadEngine]:
        """The plan's engines by name."""
        chosen = plan.engine
        made: dict[str, LoadEngine] = {}
        if chosen in ("loadgen", "both"):
            made[context.engine.name] = context.engine
        if chosen in ("locust", "both"):
            made["locust"] = Locust(plan.workers, plan.remote_workers, plan.host)
        return made

    def headline(self, plan: RestPlan) -> str:
        engine = plan.engine
        workers = f" with {plan.workers} {'remote ' if plan.remote_workers else ''}worker(s)" if plan.workers else ""
        return f"suite {plan.suite}, cpus {plan.cpus}, {plan.repeat} repetition(s), engine {engine}{workers}"

    def prepare(self, plan: RestPlan, stored: list[Measurement], context: Context) -> Batch:
        chosen = [s for s in scenarios.load(plan.scenario) if not s.pending]
        engines = self.engines(plan, context)
        toolchains = servers.engines_built(engines.values(), context.console)
        users = reference.users_file(USERS_ROWS) if any(s.users_csv for s in chosen) else None
        points = []
        for scenario in chosen:
            for point in scenarios.points(scenario, plan.suite, plan.point):
                for name, engine in engines.items():
                    if name == "locust" and not Locust.runs(point.model()):
                        continue  # --engine both: Locust measures what it can
                    # The engine validates every document it will be given, and says how long it
                    # lasts (which no budget changes).
                    planned = [engine.check(point.engine_scenario(1, cpus, users, None)) for cpus in plan.cpus]
                    points.append(replace(point, planned_s=planned[0], engine=name))

        # Each experiment on its study's setups (the blog's Node.js on node:http, the honours
        # report's on one Express process), unless the command line named rows.
        named = catalog.rows(plan.impl, catalog.load, context.console.warn)
        setups = {s.id: named if plan.impl else catalog.for_seed(named, s.seed) for s in chosen}
        rows = [m for m in named if any(m in wanted for wanted in setups.values())]
        # The database lives as long as the batch: conformance's /record checks and the record
        # scenarios use it; the batch's close stops the server of the last start, then it.
        prepared = servers.ready_for(plan, context, toolchains, rows)
        tasks = []
        for repetition in range(plan.repeat):
            for manifest, cpus in prepared.ready:
                # One start a repetition serves its points, the busiest load first (rest/order.py).
                mine = [p for p in points if manifest in setups[p.scenario.id]]
                ordered = sorted(mine, key=lambda p: -nominal_rps(p, cpus))
                tasks += [
                    Task(self.name, manifest, point, cpus, repetition, estimate(point, cpus, i == 0))
                    for i, point in enumerate(ordered)
                ]
        db = prepared.db
        starts = prepared.stack.enter_context(contextlib.closing(Starts(start_settings(points), db, plan.host)))
        return prepared.batch(
            tasks, lambda task, phase: measure.measure(task, engines[task.point.engine], users, starts, db, phase)
        )

    def outcome(self, m: Measurement) -> str:
        return measure.outcome(m)

    def experiments(self, plan: RestPlan) -> list[str]:
        return [s.id for s in scenarios.load(plan.scenario) if not s.pending]

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        return dict(MAIN_METRICS)

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        made = tables.report(title, scenarios.load(RestPlan.of(run.plan).scenario), measurements, skipped)
        manifests, _ = catalog.load()  # as checked out now: the features compared are the code's, not the run's
        made.appendix.append(features.section(manifests))
        return made
