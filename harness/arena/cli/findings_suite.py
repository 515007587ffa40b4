"""`arena findings --measure` and `--plan`: the points the testable findings need, and nothing else
(spec/findings.md, "Measuring what the findings need"). Each scenario or bench a finding needs is
one run of its kind in its `findings` profile, with only the implementations and core budgets its
findings compare; the ledger is printed at the end. A run stopped by Ctrl-C keeps what it measured,
and `--resume` continues it, then measures what has no finished findings run yet."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from arena.console import Console
from arena.findings import catalog
from arena.findings.catalog import Finding, Test
from arena.host import cores
from arena.impls import catalog as impls
from arena.kind import FINDINGS
from arena.measured.store import Run, Store
from arena.micro import kind as micro_kind
from arena.micro import suite as micro_suite
from arena.rest import kind as rest_kind
from arena.rest import scenarios

COMMAND = {"http": "run", "micro": "micro"}
OPTION = {"http": "--scenario", "micro": "--bench"}
PLANNED = {"http": "scenario", "micro": "bench"}  # the plan's list of the experiments a run measures


@dataclass(frozen=True)
class Item:
    """One run of the suite: a scenario or bench, the implementations and budgets its findings need."""

    kind: str
    experiment: str
    impls: tuple[str, ...]
    cpus: tuple[int, ...]
    findings: tuple[str, ...]

    def argv(self, repeat: int) -> list[str]:
        budgets = ",".join(map(str, self.cpus))
        chosen = [OPTION[self.kind], self.experiment, "--impl", *self.impls, "--cpus", budgets]
        return [COMMAND[self.kind], "--suite", FINDINGS, *chosen, "--repeat", str(repeat)]

    def shown(self, repeat: int) -> str:
        return "./arena " + " ".join(self.argv(repeat))


@dataclass(frozen=True)
class Plan:
    items: list[Item]
    lacking: list[str]  # each test this machine cannot measure, and what it lacks


def plan(findings: list[Finding], machine: int) -> Plan:
    """The runs the findings' tests need on a machine of `machine` cores, and the tests it cannot
    give what they need."""
    needed: dict[tuple[str, str], list[tuple[Test, str]]] = {}
    lacking = []
    for finding in findings:
        if finding.untestable:
            continue
        if finding.not_here:
            lacking.append(f"{finding.id}: {finding.not_here}")
            continue
        for test in finding.tests:
            if test.not_here:
                lacking.append(f"{finding.id}: {test.not_here}")
            if test.not_here or test.kind not in COMMAND or FINDINGS not in catalog.suites_measuring(test):
                continue
            budgets = _budgets(test, machine)
            engine = 0 if test.kind == "micro" or test.shared_cores else 1
            if max(budgets) + engine > machine:
                lacking.append(f"{finding.id}: {test.experiment} needs {max(budgets) + engine} cores, {machine} here")
                continue
            needed.setdefault((test.kind, test.experiment), []).append(
                (dataclasses.replace(test, cpus=budgets), finding.id)
            )
    items = [
        Item(
            kind,
            experiment,
            tuple(sorted({impl for test, _ in tests for impl in _impls(test)})),
            tuple(sorted({cpus for test, _ in tests for cpus in test.cpus or ()})),
            tuple(dict.fromkeys(finding for _, finding in tests)),
        )
        for (kind, experiment), tests in sorted(needed.items())
    ]
    return Plan(items, lacking)


def _budgets(test: Test, machine: int) -> tuple[int, ...]:
    """A test's budgets: those it names, or ("all") those its findings profile measures here."""
    if test.cpus is not None:
        return test.cpus
    if test.kind == "micro":
        bench = micro_suite.load([test.experiment])[0]
        return tuple(micro_suite.budgets(bench, FINDINGS, machine))
    return (1,)


def _impls(test: Test) -> list[str]:
    """The implementations a test compares: its rule's, or those the seed published a value of."""
    return test.rule.impls() or [v["impl"] for p in test.published for v in p.values]


def estimate_s(item: Item, repeat: int) -> float:
    """How long the item's run measures, by its kind's own estimates (builds and checks aside)."""
    if item.kind == "micro":
        rows = impls.rows(list(item.impls), impls.load_micro, lambda _: None)
        bench = micro_suite.load([item.experiment])
        tasks, _ = micro_kind.plan_tasks(rows, bench, {"suite": FINDINGS, "cpus": list(item.cpus), "repeat": repeat})
        return sum(task.estimate_s for task in tasks)
    scenario = scenarios.load([item.experiment])[0]
    # A closed model's window is its duration; a fixed count's, its requests at the most its load allows.
    points = [
        dataclasses.replace(p, planned_s=p.model().get("duration_s")) for p in scenarios.points(scenario, FINDINGS)
    ]
    each = sum(rest_kind.estimate(point, cpus, i == 0) for cpus in item.cpus for i, point in enumerate(points))
    return each * len(item.impls) * repeat


def show(made: Plan, repeat: int, console: Console) -> None:
    """The plan: each run with the findings it serves and its time, then what this machine lacks."""
    total = 0.0
    for i, item in enumerate(made.items, 1):
        seconds = estimate_s(item, repeat)
        total += seconds
        console.line(f"[{i}/{len(made.items)}] {item.shown(repeat)}  (~{seconds / 60:.0f} min)")
        console.line(f"        for {', '.join(item.findings)}")
    console.line(f"about {total / 60:.0f} min of measuring, besides building and checking each implementation once")
    if made.lacking:
        console.line("\nnot measurable on this machine:")
        for line in made.lacking:
            console.line(f"  {line}")


def measure(made: Plan, repeat: int, resume: bool, run: Callable[[list[str]], int], console: Console) -> int:
    """Runs each item in turn (`run` takes a command line); with `resume`, continues an unfinished
    findings run of an item and skips an item that has a finished one. Stops at the first run that
    does not end well, and says how to continue."""
    for i, item in enumerate(made.items, 1):
        argv = item.argv(repeat)
        if resume:
            newest = _newest(item)
            if newest is not None and newest.finished is not None:
                console.line(f"[{i}/{len(made.items)}] {item.experiment}: measured in run {newest.name}")
                continue
            if newest is not None:
                argv += ["--resume", newest.name]
        console.line(f"\n[{i}/{len(made.items)}] ./arena {' '.join(argv)}  (for {', '.join(item.findings)})")
        status = run(argv)
        if status != 0:
            console.line(f"\nstopped at {item.experiment}: `./arena findings --measure --resume` continues")
            return status
    return 0


def _newest(item: Item) -> Run | None:
    """The newest findings run of the item's experiment alone, finished or not."""
    store = Store()
    try:
        return next(
            (
                run
                for run, _, _ in store.runs()
                if run.kind == item.kind
                and run.suite == FINDINGS
                and run.plan.get(PLANNED[item.kind]) == [item.experiment]
            ),
            None,
        )
    finally:
        store.close()


def add_options(parser: argparse.ArgumentParser) -> None:
    measuring = parser.add_mutually_exclusive_group()
    measuring.add_argument(
        "--measure", action="store_true", help="measure the points the testable findings need, then print the verdicts"
    )
    measuring.add_argument("--plan", action="store_true", help="print those points and their time, measure nothing")
    measuring.add_argument(
        "--changes", action="store_true", help="the verdicts that differ between the suite's last two measurements"
    )
    parser.add_argument("--resume", action="store_true", help="with --measure: continue where it stopped")
    parser.add_argument("--repeat", type=int, default=3, help="with --measure or --plan: repetitions (default 3)")


def machine() -> int:
    return len(cores.machine_cores())
