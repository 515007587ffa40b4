"""`arena soak`'s kind of measurement: every implementation that builds and passes conformance,
held for minutes or hours at a share of its capacity on the soak's workload, one fresh server
start a repetition (spec/soak.md)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from arena.capacity.data import data_file
from arena.capacity.probe import Runner
from arena.capacity.saturation import saturate
from arena.capacity.workloads import SearchParameters, Workload, chosen
from arena.capacity.workloads import load as capacity_parameters
from arena.context import Context
from arena.engines.interface import LoadEngine
from arena.frame import servers
from arena.frame.attempt import FAILURES, Attempt
from arena.host.database import Database
from arena.host.process import ServerError, free_port, running
from arena.impls import catalog
from arena.kind import COMMANDS, Batch, Cut, Kind, Task
from arena.kind import SOAK as KIND
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.measured.store import Run
from arena.report.tables import Report
from arena.soak import tables
from arena.soak.parameters import Parameters, load
from arena.soak.periods import Held, hold
from arena.soak.plan import Point, SoakPlan, add_arguments, planned, rate_key
from arena.soak.result import Soak

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
        parameters, search, console, engine = load(), capacity_parameters()[0], context.console, context.engine
        (workload,) = chosen([parameters.workload])
        manifests = catalog.rows(plan.impl, catalog.load, console.warn)
        toolchains = servers.engines_built([engine], console)
        prepared = servers.ready(toolchains, context.db_url, manifests, plan.cpus, console)
        with prepared.closing_on_error():
            data = data_file(workload, prepared.db)
        point = Point(plan.minutes, plan.share, plan.rate)
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
            console.line(f"  {line}")
        return Batch(
            tasks,
            lambda task, phase: self.measure(
                task, plan, engine, parameters, search, workload, data, prepared.db, phase
            ),
            prepared.skipped + missing,
            prepared.stack.close,
        )

    def measure(
        self,
        task: Task,
        plan: SoakPlan,
        engine: LoadEngine,
        parameters: Parameters,
        search: SearchParameters,
        workload: Workload,
        data: Path | None,
        db: Database,
        phase: Callable[[str], None],
    ) -> Measurement:
        """One soak on a fresh start of the task's implementation, the database on the engine's cores."""
        attempt = Attempt(task)
        server_cores, engine_cores = attempt.server_cores, attempt.engine_cores
        given = plan.rates.get(rate_key(task.manifest.name, task.cpus), {})
        rate = plan.rate or given["rate"]
        attempt.parameters |= {"settings": workload.settings, "db_cores": engine_cores, "workload": workload.id}
        held = Held()
        settings = {**workload.settings, "ARENA_DB_URL": db.url}
        periods = parameters.periods(plan.minutes)

        def measured(cut_short: bool, ready_s: float) -> Measurement:
            soak = Soak.of(held, rate, given, plan.share, len(workload.steps), parameters, ready_s, cut_short)
            attempt.versions["engine"] = held.version
            attempt.flags += ([Flag.CUT_SHORT] if cut_short else []) + tables.trend_flags(soak, parameters)
            return attempt.measured(soak)

        db.reset()
        db.pin(engine_cores)
        ready_s = 0.0
        try:
            with running(task.manifest, task.cpus, free_port(), settings, server_cores) as server:
                ready_s = server.ready_s
                # Warmed as the capacity search warmed the start whose edge sets the rate (its JIT's
                # warm_s included): the rate is a share of a warm start's capacity.
                phase(f"saturating with {search.saturation_clients} clients")
                runner = Runner(engine, server, engine_cores, workload, data)
                saturate(runner, search, task.manifest.warm_s)
                hold(runner, rate, search, parameters, periods, phase, held)
        except KeyboardInterrupt:
            if held.periods:
                raise Cut(measured(True, ready_s)) from None
            raise
        except FAILURES as err:
            return attempt.failed(err, crashed=isinstance(err, ServerError))
        return measured(False, ready_s)

    def outcome(self, m: Measurement) -> str:
        return tables.outcome(m)

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
        return tables.report(title, measurements, skipped, load())

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        return {"memory_slope_mib_h": False, "p99_drift": False, "p99_ms": False}
