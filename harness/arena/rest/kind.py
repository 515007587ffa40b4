"""`arena run`'s kind of measurement: every point of every experiment of spec/scenarios/, on every
implementation of servers/ that builds and passes conformance, with each core budget."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
from dataclasses import replace

from arena import catalog, cores, features, reference, verify
from arena.catalog import RESULTS
from arena.console import Console
from arena.database import database
from arena.engine import LoadEngine
from arena.kind import Batch, Task, repetitions
from arena.measurement import Measurement
from arena.prepare import prepare
from arena.rest import measure, scenarios, tables
from arena.rest.starts import Starts, nominal_rps, start_settings
from arena.store import Run
from arena.tables import Report
from arena.toolchain import Toolchains

USERS_ROWS = 100_000
START_S = 3  # starting and stopping a server, for the ETA (once per repetition: rest/starts.py)


def users_file() -> os.PathLike:
    path = RESULTS / "data" / f"users-{USERS_ROWS}.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(reference.users_csv(USERS_ROWS), encoding="ascii")
    return path


def _estimate(point: scenarios.Point, cpus: int, first: bool) -> float:
    """The start (for a repetition's first point), a warm-up that is steady at once, the measured
    run: as the engine plans it, or a fixed count's requests at the most its load allows."""
    rule = point.warmup()
    length = measure.run_length(point)
    if point.planned_s is None and math.isfinite(rate := nominal_rps(point, cpus)):
        length = point.model()["requests"] * len(point.scenario.steps) / rate
    return START_S * first + rule.window * rule.slice_s + length


class RestKind:
    name = measure.KIND
    command = "run"

    def __init__(self, engine: LoadEngine) -> None:
        self.engine = engine
        self.db_url: str | None = None  # the user's database; not in the plan, which is stored

    def plan(self, options: argparse.Namespace) -> dict:
        self.db_url = options.db_url
        scenarios.load(options.scenario)
        catalog.rows(options.impl, catalog.load, lambda _: None)  # unknown names fail here; warnings come later
        return {
            "suite": options.suite,
            "impl": options.impl,
            "scenario": options.scenario,
            "cpus": cores.measured_budgets(options.cpus),
            "repeat": repetitions(options.repeat),
        }

    def check(self, plan: dict) -> None:
        for cpus in plan["cpus"]:
            cores.check_budget(cpus)

    def headline(self, plan: dict) -> str:
        return f"suite {plan['suite']}, cpus {plan['cpus']}, {plan['repeat']} repetition(s)"

    def prepare(self, plan: dict, stored: list[Measurement], console: Console) -> Batch:
        chosen = [s for s in scenarios.load(plan["scenario"]) if not s.pending]
        manifests = catalog.rows(plan["impl"], catalog.load, console.warn)
        toolchains = Toolchains(say=console.line)
        with console.working("building the load engine"):
            self.engine.ensure(toolchains)
        users = users_file() if any(s.users_csv for s in chosen) else None
        points = []
        for scenario in chosen:
            for point in scenarios.points(scenario, plan["suite"]):
                # The engine validates every document it will be given, and says how long it lasts
                # (which no budget changes).
                planned = [self.engine.check(point.engine_scenario(1, cpus, users, None)) for cpus in plan["cpus"]]
                points.append(replace(point, planned_s=planned[0]))

        # The database lives as long as the batch: conformance's /record checks and the record
        # scenarios use it; the batch's close stops the server of the last start, then it.
        stack = contextlib.ExitStack()
        try:
            db = stack.enter_context(database(self.db_url))
            console.line(f"preparing and verifying; /record uses {db.described}")
            ready, skipped = [], []
            for manifest in manifests:
                prepared = prepare(manifest, toolchains, console)
                if not prepared.ok:
                    skipped.append(f"skipped {manifest.name}: {prepared.reason}")
                    continue
                for cpus in plan["cpus"]:
                    verdict = verify.passed_before(manifest, cpus, db, console)
                    if verdict.status == "passed":
                        ready.append((manifest, cpus))
                    else:
                        skipped.append(f"skipped {manifest.name} cpus={cpus}: conformance {verdict.detail}")
        except BaseException:
            stack.close()
            raise
        for line in skipped:
            console.line(f"  {line}")
        tasks = []
        for repetition in range(plan["repeat"]):
            for manifest, cpus in ready:
                # One start a repetition serves its points, the busiest load first (rest/starts.py).
                ordered = sorted(points, key=lambda p: -nominal_rps(p, cpus))
                tasks += [
                    Task(self.name, manifest, point, cpus, repetition, _estimate(point, cpus, i == 0))
                    for i, point in enumerate(ordered)
                ]
        starts = stack.enter_context(contextlib.closing(Starts(start_settings(points), db)))
        return Batch(
            tasks,
            lambda task, phase: measure.measure(task, self.engine, users, starts, db, phase),
            skipped,
            stack.close,
        )

    def outcome(self, m: Measurement) -> str:
        return measure.outcome(m)

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        made = tables.report(title, scenarios.load(run.plan["scenario"]), measurements, skipped)
        manifests, _ = catalog.load()  # as checked out now: the features compared are the code's, not the run's
        made.appendix.append(features.section(manifests))
        return made
