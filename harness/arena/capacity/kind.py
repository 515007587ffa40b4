"""`arena capacity`'s kind of measurement: for every implementation of servers/ that builds and
passes conformance, every workload of spec/capacity.toml and every core budget, a search for the
edge on independent server starts, as many as the cell's precision needs (spec/capacity.md)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from arena import options
from arena.capacity import held, precision, sweep, tables
from arena.capacity.probe import Prober, Runner
from arena.capacity.result import CapacitySearch, ClientSweep
from arena.capacity.saturation import saturate
from arena.capacity.search import ENGINE_BOUND, FOUND, Limits, find_edge
from arena.capacity.workloads import Point, StartRule, Workload, chosen, load, objective_of, parse_slo, unit_of
from arena.checks import reference
from arena.console import Console
from arena.engines.interface import EngineError
from arena.frame import servers
from arena.frame.attempt import FAILURES, Attempt
from arena.frame.starts import Starts, start_settings
from arena.host import cores
from arena.host.database import Database
from arena.host.process import ServerError
from arena.impls import catalog
from arena.kind import CAPACITY as KIND
from arena.kind import COMMANDS, Batch, Plan, Task, repetitions
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.measured.stats import NOISY_COV
from arena.measured.store import Run
from arena.paths import RESULTS
from arena.report.tables import Report

SETUP_CONCURRENCY = 8
SETUP_MAX_S = 120
# For the ETA, as measured here (spec/capacity.md, "Time"): starting, saturating and stopping a
# server (beyond its own warm_s); saturating it again for a later workload; a probe, its warm-up and
# window and the wait for the server to idle; the probes of a first start's search and its curve,
# and of a later one's.
START_S = 5
SATURATE_S = 3
PROBE_S = 3
FIRST_PROBES, HINTED_PROBES = 8, 7  # the medians of run 20261128-004214 (spec/capacity.md, "Time")
# How likely a start beyond the least a cell takes is needed, and each one after it by as much
# again: 45 of that run's 54 cells took a third start.
LIKELY_MORE = 0.8


@dataclass(frozen=True)
class CapacityPlan(Plan):
    workload: list[str] = field(default_factory=list)  # none named: every default workload
    slo: dict = field(default_factory=dict)  # an objective for every workload instead of its own
    scaling: bool = False  # a sweep of clients after the searches


class CapacityKind(servers.LoadsServers):
    name = KIND
    plans = CapacityPlan
    command = COMMANDS[KIND]
    help = "where each runtime breaks: the highest rate under a latency objective"
    repeat, suited = None, False
    repeat_help = (
        "the most independent server starts a cell takes (default 6: fewer once its 95%% interval is within ±5%%, at "
        "least 2; spec/capacity.toml)"
    )

    @staticmethod
    def arguments(parser: argparse.ArgumentParser) -> None:
        options.impls(parser)
        parser.add_argument(
            "--workload",
            nargs="*",
            default=[],
            help="plaintext json bcrypt compute database longpoll mix: the workloads of spec/capacity.toml "
            "(default: all but the soak's mix)",
        )
        options.budgets(parser)
        parser.add_argument(
            "--slo", help="an objective for every workload instead of its own, e.g. p99=50ms or p99=50ms,p999=200ms"
        )
        parser.add_argument(
            "--scaling",
            action="store_true",
            help="also sweep 1, 2, 4, … 64 clients without think time after the searches; fit the USL",
        )
        options.db_url(parser)

    def plan(self, options: argparse.Namespace) -> CapacityPlan:
        self.db_url = options.db_url
        chosen(options.workload)  # unknown names fail here
        catalog.rows(options.impl, catalog.load, lambda _: None)
        return CapacityPlan(
            suite=KIND,
            impl=options.impl,
            cpus=cores.measured_budgets(options.cpus),
            # The most starts a cell takes: fewer once it is precise enough (capacity/precision.py).
            repeat=repetitions(options.repeat) if options.repeat is not None else load()[0].starts.most,
            workload=options.workload,
            slo=parse_slo(options.slo) if options.slo else {},
            scaling=options.scaling,
        )

    def headline(self, plan: CapacityPlan) -> str:
        slo = f", objective {plan.slo}" if plan.slo else ""
        scaling = ", and a sweep of clients" if plan.scaling else ""
        least = min(load()[0].starts.least, plan.repeat)
        starts = f"{least} to {plan.repeat}" if least < plan.repeat else str(least)
        within = load()[0].starts.within
        return f"cpus {plan.cpus}, {starts} independent start(s) a cell, until ±{within:.0%}{scaling}{slo}"

    def prepare(self, plan: CapacityPlan, stored: list[Measurement], console: Console) -> Batch:
        workloads = chosen(plan.workload)
        manifests = catalog.rows(plan.impl, catalog.load, console.warn)
        toolchains = servers.engines_built([self.engine], console)
        prepared = servers.ready(toolchains, self.db_url, manifests, plan.cpus, console)
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
            Task(self.name, manifest, point, cpus, rep, _estimate(manifest, point, rep, i == 0, rule.least))
            for rep in range(plan.repeat)
            for manifest, cpus in prepared.ready
            for i, point in enumerate(points)
        ]
        cells = _Cells(stored, rule)
        db = prepared.db if any(w.database for w in workloads) else None
        starts = prepared.stack.enter_context(contextlib.closing(Starts(start_settings(points), db)))
        return Batch(
            tasks,
            lambda task, phase: self.measure(task, data, prepared.db, starts, cells, phase),
            prepared.skipped,
            prepared.stack.close,
            cells.needless,
        )

    def measure(
        self, task: Task, data: dict[str, Path | None], db: Database, starts: Starts, cells: _Cells, phase
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
            runner = Runner(self.engine, server, attempt.engine_cores, workload, data[workload.id], sampled_db)
            setup_s = None
            if workload.setup:
                phase("setup")
                setup_s = _set_up(runner)
            if point.clients:
                levels = sweep.sweep(runner, load()[0], phase)
                result = ClientSweep(
                    [dataclasses.asdict(level) for level in levels], len(workload.steps), server.ready_s, setup_s
                )
                attempt.flags += [Flag.ENGINE_BOUND] if any(level.engine_bound for level in levels) else []
            else:
                result = self._search(task, runner, cells, attempt.parameters, setup_s, phase)
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

    def _search(
        self, task: Task, runner: Runner, cells: _Cells, parameters: dict, setup_s: float | None, phase
    ) -> CapacitySearch:
        """The search for the edge on a warmed start, from just below what it answered saturated, or
        from the median edge of the starts before it when that is lower (spec/capacity.md, "Where a
        search begins"); on the first start, probes below the edge after it, for the curves."""
        point: Point = task.point
        workload, search_parameters = point.workload, load()[0]
        hint = cells.hint(task)
        prober, unit = Prober(runner, point.objective, search_parameters), unit_of(workload.held)
        saturated = None
        if workload.held:
            warm_rate = max((hint or workload.start_rate) * search_parameters.warm_share, workload.min_rate)
            phase(f"warm-up at {warm_rate:,.0f}{unit}")
            warmed_s, start = prober.warm(warm_rate), hint
        else:
            phase(f"saturating with {search_parameters.saturation_clients} clients")
            # A JIT runtime's warm_s is owed by every workload, on a shared start too: its own code
            # path compiles under its own load (spec/capacity.md, "One start, every workload").
            saturated, warmed_s = saturate(runner, search_parameters, task.manifest.warm_s)
            start = first_rate(hint, saturated, search_parameters.saturation_share)
        limits = Limits(
            workload.start_rate,
            workload.min_rate,
            held.most_connections(workload.max_rate) if workload.held else workload.max_rate,
            search_parameters.growth,
            search_parameters.precision,
            search_parameters.max_probes,
            search_parameters.max_jump,
            first_growth=search_parameters.hinted_growth if start else None,
            resolution=1.0 if workload.held else 0.0,
            saturated=saturated.throughput if saturated and not saturated.engine_bound else None,
        )
        parameters["limits"] = dataclasses.asdict(limits)
        phase(f"search from {start:,.0f}{unit}" if start else "search")
        found = find_edge(prober, limits, start)
        below = []
        if task.repetition == 0 and found.ended == FOUND:
            for share in search_parameters.curve_shares:
                phase(f"below the edge: {share:.0%} of it")
                below.append(prober(max(found.passing * share, limits.min_rate)))
        return CapacitySearch(
            ended=found.ended,
            edge=found.passing,
            failing=found.failing,
            objective=point.objective.document(),
            steps=len(workload.steps),
            hint=hint,
            probes=[dataclasses.asdict(probe) for probe in found.probes],
            ready_s=runner.server.ready_s,
            setup_s=setup_s,
            held_ms=workload.held.wait_ms if workload.held else None,
            warmed_s=warmed_s,
            saturated=dataclasses.asdict(saturated) if saturated else None,
            below=[dataclasses.asdict(probe) for probe in below],
        )

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
        return {"edge": True}


class _Cells:
    """The searches of each cell so far (implementation, workload, objective and budget): a later
    start's search begins at the median of their edges, and a cell takes another start only while
    it is not precise enough (capacity/precision.py)."""

    def __init__(self, stored: list[Measurement], rule: StartRule) -> None:
        self.rule = rule
        self.searches: dict[tuple, list[CapacitySearch]] = defaultdict(list)
        self.failed: dict[tuple, int] = defaultdict(int)
        for m in stored:
            self.add(m)

    @staticmethod
    def _key(impl: str, experiment: str, point: str, cpus: int) -> tuple:
        return (impl, experiment, point, cpus)

    def _of(self, task: Task) -> tuple:
        return self._key(task.manifest.name, task.point.experiment, task.point.key, task.cpus)

    def add(self, m: Measurement) -> None:
        key = self._key(m.impl, m.experiment, m.point, m.cpus)
        if m.measured and isinstance(m.payload, CapacitySearch):
            self.searches[key].append(m.payload)
        elif not m.measured:
            self.failed[key] += 1

    def hint(self, task: Task) -> float | None:
        """Only a search that found its edge hints: an engine-bound or unfinished one gives a
        lower bound, which a later start must climb from as a first start does."""
        edges = [s.edge for s in self.searches[self._of(task)] if s.ended == FOUND and s.edge is not None]
        return statistics.median(edges) if edges else None

    def needless(self, task: Task) -> str | None:
        """Why the task's start is not needed: its cell is precise enough (a sweep of clients runs on
        the least starts a cell takes)."""
        if task.point.clients:
            sweeps = task.repetition < self.rule.least
            return None if sweeps else f"a sweep runs on the first {self.rule.least} start(s)"
        key = self._of(task)
        return precision.another_start(self.searches[key], self.failed[key], self.rule, task.point.workload.noisy)


def first_rate(hint: float | None, saturated: sweep.Level, share: float) -> float | None:
    """Where a start's search begins: the median edge of the starts before it, unless this start
    answered less than that saturated, then what it answered (the edge is below it); without
    earlier starts, `share` of what it answered (near the edge for a server its CPU limits, above
    it for one whose p99 breaks first). A saturation the engine bound says only that the server
    answers more: the hint then, when there is one."""
    most = saturated.throughput if saturated.throughput > 0 else None
    if most is None or (saturated.engine_bound and hint):
        return hint
    return min(most, hint) if hint else share * most


def data_file(workload: Workload, db: Database) -> Path | None:
    """The rows that fill a workload's templates, as a file the engine reads."""
    if workload.data is None:
        return None
    if workload.data["kind"] == "users":
        return reference.users_file(workload.data["rows"])
    names = [row[0] for row in db.query("SELECT name FROM record ORDER BY name")]
    path = RESULTS / "data" / "records.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("name\n" + "\n".join(names) + "\n", encoding="ascii")
    return path


def _set_up(runner: Runner) -> float:
    """Runs the workload's setup steps once over every data row; returns how long it took. A setup
    that fails any request is an EngineError: the search would measure a server without its data."""
    workload = runner.workload
    rows = workload.data["rows"] if workload.data and "rows" in workload.data else 1
    model = {"kind": "fixed", "requests": rows, "concurrency": SETUP_CONCURRENCY}
    began = time.monotonic()
    ran = runner.run(runner.document(model, workload.setup, SETUP_MAX_S), f"the setup of {workload.id}")
    requests = ran.result["requests"]
    if requests["ok"] != rows:
        raise EngineError(
            f"setup of {workload.id}: {requests['ok']} of {rows} requests succeeded ({requests['errors']})"
        )
    return time.monotonic() - began


def _estimate(manifest: catalog.Manifest, point: Point, repetition: int, first: bool, least: int) -> float:
    """Seconds a measurement takes, for the ETA: its start's when it is the first on it, else its
    saturation, each with a JIT's warm_s; and a first search, a hinted one or a sweep; a start
    beyond the least a cell takes, by how likely it is needed."""
    start_s = (START_S if first else SATURATE_S) + manifest.warm_s
    if point.clients:
        return start_s + len(point.clients) * PROBE_S
    likely = LIKELY_MORE ** max(repetition - least + 1, 0)
    return likely * (start_s + PROBE_S * (HINTED_PROBES if repetition else FIRST_PROBES))
