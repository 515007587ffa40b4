"""`arena soak`'s kind of measurement: every implementation that builds and passes conformance,
held for minutes or hours at a share of its capacity on the soak's workload, one fresh server
start a repetition (spec/soak.md)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from arena import options
from arena.capacity.data import data_file
from arena.capacity.probe import Runner
from arena.capacity.saturation import saturate
from arena.capacity.workloads import SearchParameters, Workload, chosen
from arena.capacity.workloads import load as capacity_parameters
from arena.console import Console
from arena.errors import UsageError
from arena.frame import servers
from arena.frame.attempt import FAILURES, Attempt
from arena.host import cores
from arena.host.database import Database
from arena.host.process import ServerError, free_port, running
from arena.impls import catalog
from arena.kind import COMMANDS, Batch, Cut, Plan, Task, repetitions
from arena.kind import SOAK as KIND
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.measured.stats import NOISY_COV
from arena.measured.store import Run, Store
from arena.report.tables import Report
from arena.soak import edges, tables
from arena.soak.parameters import Parameters, load
from arena.soak.periods import Held, hold
from arena.soak.result import Soak

START_S = 10  # a start and its first answer, for the ETA


@dataclass(frozen=True)
class Point:
    """The soak of an implementation: at a share of its edge, or at a rate given, for so long."""

    minutes: float
    share: float | None
    rate: float | None

    experiment = KIND

    @property
    def key(self) -> str:
        held = {"rate": self.rate} if self.rate else {"share": self.share}
        return json.dumps({**held, "minutes": self.minutes}, sort_keys=True)

    @property
    def label(self) -> str:
        held = f"{self.rate:g}/s" if self.rate else f"{self.share:.0%} of its edge"
        return f"{held} for {self.minutes:g} min"


def rate_key(impl: str, cpus: int) -> str:
    return f"{impl}@{cpus}"


def _stored_edges() -> dict[tuple[str, int], edges.Edge]:
    store = Store()
    try:
        return edges.stored(store, load().workload)
    finally:
        store.close()


@dataclass(frozen=True)
class SoakPlan(Plan):
    minutes: float = 0.0  # each soak's length, warm-up included
    share: float | None = None  # of each implementation's stored edge; None with a rate
    rate: float | None = None  # arrivals a second for every implementation, instead of a share
    rates: dict = field(default_factory=dict)  # each implementation's rate, fixed when the run began


def checked(options: argparse.Namespace) -> SoakPlan:
    """The command line's options, each checked (a UsageError names the bad one), before anything
    is measured: the soak's own, and, when it must measure edges first, capacity's."""
    parameters = load()
    minutes = options.minutes if options.minutes is not None else parameters.minutes
    least = (parameters.warmup_periods + 1) * parameters.period_s / 60
    if minutes < least:
        raise UsageError(f"--minutes {minutes:g}: at least {least:g} (a warm-up period and one measured)")
    if options.rate is not None and options.rate <= 0:
        raise UsageError(f"--rate {options.rate:g}: give arrivals a second above 0")
    share = options.share if options.share is not None else parameters.share
    if not 0 < share <= 1:
        raise UsageError(f"--share {share:g}: give a share of the edge in (0, 1]")
    return SoakPlan(
        suite=KIND,
        impl=options.impl,
        cpus=cores.measured_budgets(options.cpus),
        repeat=repetitions(options.repeat),
        minutes=minutes,
        share=None if options.rate else share,
        rate=options.rate,
    )


def without_edge(options: argparse.Namespace) -> list[str]:
    """The implementations the options name (all: none named) with no stored edge of the soak's
    workload at some budget: `arena soak` measures those first."""
    found = _stored_edges()
    budgets = checked(options).cpus
    names = [m.name for m in catalog.rows(options.impl, catalog.load, lambda _: None)]
    return [name for name in names if any((name, cpus) not in found for cpus in budgets)]


class SoakKind(servers.LoadsServers):
    name = KIND
    plans = SoakPlan
    command = COMMANDS[KIND]
    help = "each implementation held for minutes or hours: memory slope and p99 drift"
    repeat, repeat_help, suited = 1, "server starts of every implementation, each soaked in turn (default 1)", False

    @staticmethod
    def arguments(parser: argparse.ArgumentParser) -> None:
        options.impls(parser)
        options.budgets(parser)
        parser.add_argument(
            "--minutes", type=float, help="how long each soak lasts, warm-up included (default 4: quick)"
        )
        parser.add_argument("--share", type=float, help="of each implementation's stored edge (default 0.7)")
        parser.add_argument("--rate", type=float, help="arrivals a second for every implementation, instead of a share")
        options.db_url(parser)

    def plan(self, options: argparse.Namespace) -> SoakPlan:
        """The options, and each implementation's rate: given, or its share of the stored edge
        (looked up now, so that a resumed soak holds the rates it began with)."""
        self.db_url = options.db_url
        plan = checked(options)
        manifests = catalog.rows(options.impl, catalog.load, lambda _: None)
        rates = {} if plan.rate else self._rates(manifests, plan.cpus, plan.share)
        return dataclasses.replace(plan, rates=rates)

    @staticmethod
    def _rates(manifests: list[catalog.Manifest], budgets: list[int], share: float) -> dict:
        found = _stored_edges()
        return {
            rate_key(m.name, cpus): {"rate": share * edge.rate, "edge": edge.rate, "run": edge.run, "ended": edge.ended}
            for m in manifests
            for cpus in budgets
            if (edge := found.get((m.name, cpus)))
        }

    def headline(self, plan: SoakPlan) -> str:
        held = f"{plan.rate:g} arrivals/s" if plan.rate else f"{plan.share:.0%} of each edge"
        return f"{held} for {plan.minutes:g} min, cpus {plan.cpus}, {plan.repeat} start(s) each"

    def experiments(self, plan: SoakPlan) -> list[str]:
        return [KIND]

    def prepare(self, plan: SoakPlan, stored: list[Measurement], console: Console) -> Batch:
        parameters, search = load(), capacity_parameters()[0]
        (workload,) = chosen([parameters.workload])
        manifests = catalog.rows(plan.impl, catalog.load, console.warn)
        toolchains = servers.engines_built([self.engine], console)
        prepared = servers.ready(toolchains, self.db_url, manifests, plan.cpus, console)
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
            lambda task, phase: self.measure(task, plan, parameters, search, workload, data, prepared.db, phase),
            prepared.skipped + missing,
            prepared.stack.close,
        )

    def measure(
        self,
        task: Task,
        plan: SoakPlan,
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
            soak = Soak(
                rate=rate,
                edge=given.get("edge"),
                edge_run=given.get("run"),
                edge_ended=given.get("ended"),
                share=plan.share,
                steps=len(workload.steps),
                pollers=parameters.pollers,
                period_s=parameters.period_s,
                periods=[asdict(p) for p in held.periods],
                memory=[list(point) for point in held.memory],
                p99s=[list(point) for point in held.p99s],
                bin_s=parameters.bin_s,
                ready_s=ready_s,
                cut_short=cut_short,
            )
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
                runner = Runner(self.engine, server, engine_cores, workload, data)
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

    def noisy(self, m: Measurement) -> float:
        return NOISY_COV

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        return {"memory_slope_mib_h": False, "p99_drift": False, "p99_ms": False}
