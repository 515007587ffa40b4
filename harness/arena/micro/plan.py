"""A micro run's options and plan, and the measurements it makes: every point of every bench asked for, on every
runtime and core budget that measures something of its own."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from arena import options
from arena.errors import UsageError
from arena.host import cores
from arena.impls import catalog
from arena.impls.catalog import Manifest
from arena.kind import FINDINGS, Plan, Task, repetitions
from arena.kind import MICRO as KIND
from arena.micro import benchmarks
from arena.micro.benchmarks import Bench, BenchPoint

START_S = 1.5  # starting and stopping a program, for the ETA
SEARCH_S = 30.0  # a spawn search, for the ETA


@dataclass(frozen=True)
class MicroPlan(Plan):
    suite: str = "quick"
    bench: list[str] = field(default_factory=list)  # none named: every bench
    point: list[int] = field(default_factory=list)  # only these points of its profile, by number


def plan_tasks(rows: list[Manifest], benches: list[Bench], plan: MicroPlan) -> tuple[list[Task], list[str]]:
    """The measurements of a plan, and the (runtime, budget) pairs skipped with the reason: a
    runtime that uses fewer cores than a budget would repeat its smaller budget's numbers, except
    in the findings profile, where the seeds gave every runtime the whole machine, and how much of
    it one uses is what some findings ask (spec/micro.md, "Core budget and memory")."""
    machine = len(cores.machine_cores())
    budgets = {bench.id: plan.cpus or benchmarks.budgets(bench, plan.suite, machine) for bench in benches}
    whole = plan.suite == FINDINGS
    tasks = [
        Task(KIND, manifest, point, cpus, repetition, _estimate(point))
        for repetition in range(plan.repeat)
        for bench in benches
        for point in benchmarks.points(bench, plan.suite, plan.point)
        if repetition == 0 or not point.is_max  # the search is long and its answer a single number
        for manifest in rows
        for cpus in budgets[bench.id]
        if manifest.cpus_for(cpus) == cpus or whole
    ]
    skipped = [
        f"skipped {manifest.name} cpus={cpus}: uses at most {manifest.max_cpus} core(s)"
        for bench in benches
        for manifest in rows
        for cpus in budgets[bench.id]
        if manifest.cpus_for(cpus) != cpus and not whole
    ]
    return tasks, list(dict.fromkeys(skipped))


def _estimate(point: BenchPoint) -> float:
    return SEARCH_S if point.is_max else float(point.params.get("seconds", 0)) + START_S


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options: the shared ones of options.py and its own."""
    options.impls(parser, "runtimes of micro/")
    parser.add_argument("--bench", nargs="*", default=[], help="pingping pingpong spawn throughput ring (default: all)")
    options.points(parser, "the bench")
    options.budgets(parser, "each bench's own, spec/micro.toml")


def planned(options: argparse.Namespace) -> MicroPlan:
    """The plan of the command line's options; unknown benches, suites and runtimes fail here."""
    if options.point and len(options.bench) != 1:
        raise UsageError("--point numbers the points of one bench's profile: name that one with --bench")
    for bench in benchmarks.load(options.bench):
        benchmarks.points(bench, options.suite, options.point)  # unknown points fail here
    benchmarks.limits(options.suite)
    catalog.rows(options.impl, catalog.load_micro, lambda _: None)  # unknown names fail here
    return MicroPlan(
        suite=options.suite,
        impl=options.impl,
        cpus=cores.parse_budgets(options.cpus) if options.cpus else None,
        repeat=repetitions(options.repeat),
        bench=options.bench,
        point=options.point,
    )
