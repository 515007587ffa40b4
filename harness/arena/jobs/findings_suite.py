"""`arena findings --measure` and `--plan`: the points the testable findings need, and nothing else
(spec/findings.md, "Measuring what the findings need"). The points of a scenario or bench's
`findings` profile that need the same core budgets and repetitions are one run of its kind, with
only the implementations their findings compare; the ledger is printed at the end. A run stopped
by Ctrl-C keeps what it measured, and `--resume` continues it, then measures what has no finished
findings run yet."""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.console import Console
from arena.errors import UsageError
from arena.findings import catalog, runs
from arena.findings.catalog import OPTION, PLANNED, Finding, Test
from arena.findings.verdict import Verdict
from arena.host import cores
from arena.impls import catalog as impls
from arena.kind import COMMANDS, FINDINGS, MICRO, REST
from arena.measured.store import Run, Store
from arena.micro import benchmarks as micro_benchmarks
from arena.micro import plan as micro_plan
from arena.micro.plan import MicroPlan
from arena.paths import SPEC
from arena.rest import plan as rest_plan
from arena.rest import scenarios
from arena.rest.plan import RestPlan

SUITED = (REST, MICRO)  # the kinds whose profiles have the findings' points
# How long each run of the suite took on the reference machine, for a machine that has not run it.
REFERENCE = SPEC / "findings-times.toml"
# What the suite may measure in all, the builds and checks before its runs aside (its reference
# times keep under it): more repetitions where a verdict is still open spend what the first pass left.
MEASURING_S = 110 * 60
# A run whose verdict is still open takes twice its repetitions, once, and at most this many: each
# reading of its numbers spends a share of the verdict's error (spec/findings.md, "Many cases").
MOST_REPEAT = 12
ON_REFERENCE = "as on the reference machine"
ESTIMATED = "estimated"


@dataclass(frozen=True)
class Item:
    """One run of the suite: a scenario or bench (for a scenario, the points of its profile by
    number), the implementations and budgets its findings compare, and its repetitions."""

    kind: str
    experiment: str
    impls: tuple[str, ...]
    cpus: tuple[int, ...]
    repeat: int
    findings: tuple[str, ...]
    points: tuple[int, ...] = ()  # none: every point of the profile

    def plan(self) -> RestPlan | MicroPlan:
        """Its run's plan, as `./arena` would read it from `argv`."""
        chosen = {"suite": FINDINGS, "impl": list(self.impls), "repeat": self.repeat, "point": list(self.points)}
        if self.kind == MICRO:
            return MicroPlan(**chosen, cpus=list(self.cpus), bench=[self.experiment])
        return RestPlan(**chosen, cpus=list(self.cpus), scenario=[self.experiment])

    def argv(self) -> list[str]:
        chosen = [OPTION[self.kind], self.experiment, *(["--point", *map(str, self.points)] if self.points else [])]
        chosen += ["--impl", *self.impls, "--cpus", ",".join(map(str, self.cpus))]
        return [COMMANDS[self.kind], "--suite", FINDINGS, *chosen, "--repeat", str(self.repeat)]

    def shown(self) -> str:
        return "./arena " + " ".join(self.argv())


# How the suite runs one of its items: the item, and the name of a stored run of it to continue.
RunItem = Callable[[Item, str | None], int]


@dataclass(frozen=True)
class Plan:
    items: list[Item]
    lacking: list[str]  # each test this machine cannot measure, and what it lacks


def plan(findings: list[Finding], machine: int, repeat: int = 3) -> Plan:
    """The runs the findings' tests need on a machine of `machine` cores, each point `repeat` times
    unless a test says how often it needs it (once for a count of events; more where a start's
    scatter hides the effect at three), and the tests the machine cannot give what
    they need. An experiment's points are grouped by what their tests need, so that a point one test
    needs once on one core is not measured three times on two."""
    needed: dict[tuple[str, str], list[tuple[Test, str]]] = {}
    lacking = []
    for finding in findings:
        if finding.untestable:
            continue
        if finding.not_here:
            lacking.append(f"{finding.id}: {finding.not_here}")
            continue
        before, elsewhere, suited = len(lacking), [], False
        for test in finding.tests:
            if test.not_here:
                lacking.append(f"{finding.id}: {test.not_here}")
            if test.not_here or test.kind not in SUITED:
                continue
            budgets = _budgets(test, machine)
            needed_cores = max(budgets) + test.engine_cores()
            if needed_cores > machine:
                lacking.append(f"{finding.id}: {test.experiment} needs {needed_cores} cores, {machine} here")
                continue
            if FINDINGS not in catalog.suites_measuring(test):
                elsewhere.append(test)
                continue
            sized = dataclasses.replace(test, cpus=budgets, repetitions=test.repetitions or repeat)
            needed.setdefault((test.kind, test.experiment), []).append((sized, finding.id))
            suited = True
        if elsewhere and len(lacking) == before and not suited:
            # Its points are another suite's, and not scaled into this one: said, not dropped.
            suites = " or ".join(catalog.suites_measuring(elsewhere[0])) or "no"
            lacking.append(f"{finding.id}: {elsewhere[0].experiment}'s points it reads are the {suites} suite's")
    items = []
    for (kind, experiment), tests in sorted(needed.items()):
        # The experiment's points, grouped by the budgets and repetitions their tests need: a point
        # one test needs five times is not measured five times with the others. A group measures
        # every implementation its points' tests compare: a run's start (builds checked, programs
        # verified) costs more than a few measurements more.
        profile = _points(kind, experiment)
        matched = [(test, [n for n, where in enumerate(profile, 1) if test.matches(where)], f) for test, f in tests]
        repeats = _repeats([(test, points) for test, points, _ in matched], len(profile))
        groups: dict[tuple, list[tuple[int, list[tuple[Test, str]]]]] = {}
        for number in range(1, len(profile) + 1):
            if mine := [(test, finding) for test, points, finding in matched if number in points]:
                groups.setdefault((_cpus(mine), repeats[number]), []).append((number, mine))
        for (_, repeat), alike in groups.items():
            chosen = _named(tuple(number for number, _ in alike), len(profile))
            items.append(_item(kind, experiment, [pair for _, mine in alike for pair in mine], repeat, chosen))
    return Plan(items, lacking)


def _points(kind: str, experiment: str) -> list[dict]:
    """What tells each point of the experiment's findings profile from the others, in its order."""
    if kind == MICRO:
        return [
            point.coordinates for point in micro_benchmarks.points(micro_benchmarks.load([experiment])[0], FINDINGS)
        ]
    return [point.params for point in scenarios.points(scenarios.load([experiment])[0], FINDINGS)]


def _repeats(series: list[tuple[Test, list[int]]], profile: int) -> dict[int, int]:
    """Each point's repetitions (by number, of `profile` points), from each test and the points it
    reads: the most a test of it needs; and every point of a series along an axis, whose points a
    test compares by repetition, its points' most, so that one run measures it."""
    repeats = dict.fromkeys(range(1, profile + 1), 1)
    for test, points in series:
        for n in points:
            repeats[n] = max(repeats[n], test.repetitions or 1)
    raised = True
    while raised:  # one series raised may share a point with another
        raised = False
        for test, points in series:
            most = max((repeats[n] for n in points), default=1)
            if test.rule.axis is not None and any(repeats[n] < most for n in points):
                repeats.update(dict.fromkeys(points, most))
                raised = True
    return repeats


def _named(chosen: tuple[int, ...], profile: int) -> tuple[int, ...]:
    """The points to name with --point: none where they are all the profile's."""
    return () if len(chosen) == profile else chosen


def _item(kind: str, experiment: str, tests: list[tuple[Test, str]], repeat: int, points: tuple[int, ...]) -> Item:
    """One run: the points, the implementations their tests compare, on the budgets they name."""
    impls = tuple(sorted({impl for test, _ in tests for impl in _impls(test)}))
    findings = tuple(dict.fromkeys(finding for _, finding in tests))
    return Item(kind, experiment, impls, _cpus(tests), repeat, findings, points)


def _cpus(tests: list[tuple[Test, str]]) -> tuple[int, ...]:
    return tuple(sorted({cpus for test, _ in tests for cpus in test.cpus or ()}))


def _budgets(test: Test, machine: int) -> tuple[int, ...]:
    """A test's budgets: those it names, or ("all") those its findings profile measures here."""
    if test.cpus is not None:
        return test.cpus
    if test.kind == MICRO:
        bench = micro_benchmarks.load([test.experiment])[0]
        return tuple(micro_benchmarks.budgets(bench, FINDINGS, machine))
    return (1,)


def _impls(test: Test) -> list[str]:
    """The implementations a test compares: its rule's, or those the seed published a value of."""
    return test.rule.impls() or [v["impl"] for p in test.published for v in p.values]


def estimate_s(item: Item) -> float:
    """How long the item's run measures, by its kind's own estimates (builds and checks aside)."""
    if item.kind == MICRO:
        rows = impls.rows(list(item.impls), impls.load_micro, lambda _: None)
        bench = micro_benchmarks.load([item.experiment])
        planned = micro_plan.MicroPlan(
            FINDINGS, list(item.impls), list(item.cpus), item.repeat, [item.experiment], list(item.points)
        )
        tasks, _ = micro_plan.plan_tasks(rows, bench, planned)
        return sum(task.estimate_s for task in tasks)
    scenario = scenarios.load([item.experiment])[0]
    chosen = scenarios.points(scenario, FINDINGS, list(item.points))
    points = [dataclasses.replace(p, planned_s=_window_s(p.model())) for p in chosen]
    each = sum(rest_plan.estimate(point, cpus, i == 0) for cpus in item.cpus for i, point in enumerate(points))
    return each * len(item.impls) * item.repeat


def expected_s(item: Item) -> tuple[float, str]:
    """How long the item's run takes, and how that is known: as long as its newest run of the same
    plan took here, its measuring from start to finish; else as long as it took on the
    reference machine (REFERENCE); else by the kinds' estimates, which know a window's length but
    not how long a queue drains or a thousand threads take to start."""
    asked = {"impl": list(item.impls), "cpus": list(item.cpus), "repeat": item.repeat}
    for run in _runs_of(item):
        extended = run.plan.get("looked")  # its time holds the runs measured before its extension
        if (
            run.finished is not None
            and not extended
            and all(run.plan.get(key) == value for key, value in asked.items())
        ):
            return run.measuring_s, f"as run {run.name} took here"
    minutes = reference_minutes().get(" ".join(item.argv()))
    if minutes is not None:
        return minutes * 60, ON_REFERENCE
    return estimate_s(item), ESTIMATED


def reference_minutes() -> dict[str, float]:
    """Each run's minutes on the reference machine, by its command line (REFERENCE)."""
    return _reference(REFERENCE)


@functools.cache
def _reference(path: Path) -> dict[str, float]:
    """Read once: the plan and the suite's ETA ask for every run."""
    try:
        minutes = tomllib.loads(path.read_text(encoding="utf-8"))["minutes"]
        return {str(argv): float(value) for argv, value in minutes.items()}
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError, AttributeError) as err:
        raise UsageError(f"{path.name}: {err}") from None


def _window_s(model: dict) -> float | None:
    """A closed model's window is its duration, an open one's its arrivals at their rate; a fixed
    count's (None) is its requests at the most its load allows (rest/plan.py)."""
    if "duration_s" in model:
        return model["duration_s"]
    return model["iterations"] / model["rate"] if model["kind"] == "open" else None


def show(made: Plan, console: Console) -> None:
    """The plan: each run with the findings it serves and its time, then what this machine lacks."""
    total, sources = 0.0, []
    for i, item in enumerate(made.items, 1):
        seconds, how = expected_s(item)
        total += seconds
        sources.append(how)
        console.line(f"[{i}/{len(made.items)}] {item.shown()}  (~{seconds / 60:.0f} min, {how})")
        console.line(f"        for {', '.join(item.findings)}")
    console.line(
        f"about {total / 60:.0f} min: {len(sources) - sources.count(ON_REFERENCE) - sources.count(ESTIMATED)} of "
        f"{len(made.items)} runs as long as they took here "
        f"last, {sources.count(ON_REFERENCE)} as on the reference machine (both their measuring; the builds and "
        "checks before each run take minutes more), "
        f"{sources.count(ESTIMATED)} estimated (builds and checks aside)"
    )
    console.line(
        f"then, where a deciding test is still undecided, its run takes twice its repetitions (at most "
        f"{MOST_REPEAT}), once, cheapest first, within what is left of {MEASURING_S // 60} min of measuring: "
        f"about {max(0.0, MEASURING_S - total) / 60:.0f} min here"
    )
    if made.lacking:
        console.line("\nnot measured by this suite on this machine:")
        for line in made.lacking:
            console.line(f"  {line}")


def measure(made: Plan, resume: bool, run: RunItem, console: Console) -> int:
    """Runs each item in turn (`run` takes the item and a stored run to resume, if any); with
    `resume`, continues an unfinished findings run of an item and skips an item that has a finished
    one. Stops at the first run that does not end well, and says how to continue. Each run shows its
    own progress; before it, what the suite has left (expected_s)."""
    left = [expected_s(item)[0] for item in made.items]
    for i, item in enumerate(made.items, 1):
        resumed = None
        if resume:
            newest = _newest(item)
            if newest is not None and newest.finished is not None:
                console.line(f"[{i}/{len(made.items)}] {item.experiment}: measured in run {newest.name}")
                continue
            resumed = newest.name if newest is not None else None
        shown = item.shown() + (f" --resume {resumed}" if resumed else "")
        console.line(f"\n[{i}/{len(made.items)}] {shown}  (for {', '.join(item.findings)})")
        console.line(f"        about {sum(left[i - 1 :]) / 60:.0f} min of the suite's measuring left")
        status = run(item, resumed)
        if status != 0:
            console.line(f"\nstopped at {item.experiment}: `./arena findings --measure --resume` continues")
            return status
    return _extend(made, run, console)


def _extend(made: Plan, run: RunItem, console: Console) -> int:
    """More repetitions where a verdict is still open: each run that measured a deciding test left
    "no difference measured" takes twice its repetitions (at most MOST_REPEAT), once, cheapest
    first, within what the first pass left of MEASURING_S; its numbers are then read twice, and
    its verdicts spend their error over both readings (verdict.corrected)."""
    store = Store()
    try:
        judgements, _ = runs.ledger(store, [])
        newest = [(item, _newest(item, store)) for item in made.items]
        spent = sum(r.measuring_s for _, r in newest if r is not None and r.measuring_s is not None)
        open_tests = {
            (j.finding.id, t.test.kind, t.test.experiment)
            for j in judgements
            if j.verdict is Verdict.NO_DIFFERENCE
            for t in j.tests
            if not t.test.beside and t.verdict is Verdict.NO_DIFFERENCE
        }
        chosen = []
        for item, measured in newest:
            serves = [f for f in item.findings if (f, item.kind, item.experiment) in open_tests]
            repeat = measured.plan.get("repeat", item.repeat) if measured else 0
            if not serves or measured is None or measured.finished is None or measured.plan.get("looked"):
                continue
            if repeat >= MOST_REPEAT:
                continue
            more = min(2 * repeat, MOST_REPEAT)
            cost = measured.measuring_s * (more - repeat) / repeat
            chosen.append((cost, item, measured, more, serves))
        chosen.sort(key=lambda c: c[0])
        left, extended = MEASURING_S - spent, []
        for cost, item, measured, more, serves in chosen:
            if cost <= left:
                left -= cost
                extended.append((item, store.extend_run(measured.id, more), more, serves))
    finally:
        store.close()
    if not extended:
        return 0
    console.line(
        f"\nmore repetitions where a verdict is still open ({len(extended)} run(s), within {MEASURING_S // 60} min):"
    )
    for i, (item, measured, more, serves) in enumerate(extended, 1):
        shown = f"{item.shown()} --resume {measured.name}"
        console.line(f"\n[+{i}/{len(extended)}] {shown}  ({more} repetitions, for {', '.join(serves)})")
        status = run(item, measured.name)
        if status != 0:
            console.line(f"\nstopped at {item.experiment}: `./arena findings --measure --resume` continues")
            return status
    return 0


def _newest(item: Item, store: Store | None = None) -> Run | None:
    """The newest findings run of the item's experiment (and points) alone, finished or not."""
    return next(iter(_runs_of(item, store)), None)


def _runs_of(item: Item, store: Store | None = None) -> list[Run]:
    """The findings runs of the item's experiment (and points) alone, newest first, finished or not;
    read from `store` where one is open, else from a store opened for it."""
    opened = store or Store()
    try:
        return [
            run
            for run, _, _ in opened.runs()
            if run.kind == item.kind
            and run.suite == FINDINGS
            and run.plan.get(PLANNED[item.kind]) == [item.experiment]
            and run.plan.get("point", []) == list(item.points)
        ]
    finally:
        if store is None:
            opened.close()


def machine() -> int:
    return len(cores.machine_cores())
