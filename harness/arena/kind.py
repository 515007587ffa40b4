"""What a kind of measurement gives the run lifecycle (arena/lifecycle.py).

A kind — the REST scenarios of `arena run` (arena/rest/), the micro-benchmarks of `arena micro`
(arena/micro/), the capacity searches of `arena capacity` (arena/capacity/) and the soaks of
`arena soak` (arena/soak/) — turns the command line's options into a plan, prepares what the plan needs and
lists its tasks, measures one task at a time, and builds the tables of a stored run. The
lifecycle does the rest, the same for every kind: the lock, opening or resuming the run,
provenance, the progress loop, Ctrl-C, and the summary.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, Self, TypeVar

from arena.context import Context
from arena.errors import UsageError
from arena.host import cores
from arena.impls.catalog import Manifest
from arena.measured.measurement import CAPACITY, MICRO, REST, SOAK, Measurement, Outcome
from arena.measured.stats import NOISY_COV
from arena.measured.store import Run
from arena.report.tables import Report

MAX_REPEAT = 100
# The command that runs each kind: the REST scenarios (rest/) are run by `arena run`, the main job.
COMMANDS = {REST: "run", MICRO: "micro", CAPACITY: "capacity", SOAK: "soak"}
# The suites of the kinds whose experiments have profiles: `quick` and `paper` in every one, and
# `findings` — the points the seeds' findings need in the seeds' regime (spec/findings.md) — in
# those some finding needs.
FINDINGS = "findings"
SUITES = ("quick", "paper", FINDINGS)
T = TypeVar("T")


def repetitions(repeat: int) -> int:
    """`--repeat`, checked: every kind repeats each point this many times."""
    if not 1 <= repeat <= MAX_REPEAT:
        raise UsageError(f"--repeat {repeat}: choose 1..{MAX_REPEAT}")
    return repeat


def numbered(made: list[T], chosen: list[int] | None, profile: str, error: type[UsageError]) -> list[T]:
    """A profile's points `chosen` by number (1 the first: `--point`), or all where none is; a number
    the profile lacks is an `error` that says how many it has."""
    if unknown := [n for n in chosen or [] if not 1 <= n <= len(made)]:
        raise error(f"{profile}: no point {unknown[0]} (it has {len(made)})")
    return [point for number, point in enumerate(made, 1) if not chosen or number in chosen]


@dataclass(frozen=True)
class Plan:
    """What a run measures, as its kind read the command line: stored with the run as JSON
    (`document`) and read back (`of`), so that a resumed run measures what it began with. Each
    kind adds its own fields (rest.plan.RestPlan, ...)."""

    suite: str = ""  # the profile its points come from (SUITES); none for a kind without profiles
    impl: list[str] = field(default_factory=list)  # the implementations named (none: all available)
    cpus: list[int] | None = None  # the core budgets (micro's None: each bench's own)
    repeat: int = 3  # the repetitions of every point (capacity: the most starts a cell takes)

    def document(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def of(cls, document: dict) -> Self:
        """A stored plan: keys this version does not know are left out (the store's `kind`), and a
        field an older run did not store takes its default."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{key: value for key, value in document.items() if key in known})


class Point(Protocol):
    """One configuration of one experiment or bench."""

    @property
    def experiment(self) -> str: ...  # scenario or bench id

    @property
    def key(self) -> str: ...  # JSON of its parameters, unique within the experiment

    @property
    def label(self) -> str: ...  # its parameters as a person reads them


@dataclass(frozen=True)
class Task:
    """One measurement to make: an implementation at a point, a core budget and a repetition."""

    kind: str
    manifest: Manifest
    point: Point
    cpus: int
    repetition: int
    estimate_s: float  # for the ETA

    @property
    def key(self) -> tuple:
        """The same as the key of the measurement it makes (Measurement.key)."""
        return (self.kind, self.manifest.name, self.point.experiment, self.point.key, self.cpus, self.repetition)

    def measurement(self, outcome: Outcome, **fields) -> Measurement:
        """The measurement this task made: its envelope from the task, the rest from `fields`."""
        return Measurement(
            self.kind,
            self.manifest.name,
            self.point.experiment,
            self.point.key,
            self.cpus,
            self.repetition,
            outcome,
            **fields,
        )

    def describe(self) -> str:
        return (
            f"{self.manifest.shown:14} {self.point.experiment:16} {self.point.label:34} "
            f"cpus={self.cpus} rep {self.repetition + 1}"
        )


@dataclass
class Batch:
    """What a prepared plan gives: every task, how to measure one, what was skipped and why, and
    what to release once measuring ends, however it ends (servers kept between tasks). A kind that
    repeats a point until it is precise enough plans the most repetitions it may take and says, as
    each comes due, why it is not needed (`needless`: None when it is)."""

    tasks: list[Task]
    measure: Callable[[Task, Callable[[str], None]], Measurement]  # the task, and where to say its phase
    skipped: list[str] = field(default_factory=list)
    close: Callable[[], None] = lambda: None
    needless: Callable[[Task], str | None] = lambda _: None


class Cut(KeyboardInterrupt):
    """Ctrl-C during a long task (a soak of hours): what it measured until then, which the
    lifecycle stores before it stops, so that nothing finished is lost."""

    def __init__(self, measurement: Measurement) -> None:
        super().__init__()
        self.measurement = measurement


class Kind(Protocol):
    """Everything the command line and the lifecycle read of a kind. A kind subclasses it and takes
    the defaults most kinds agree on: three repetitions, stored budgets checked against this machine,
    no `--suite`, the usual bound on a main number's spread."""

    name: str  # stored with the run: one of REST, MICRO, CAPACITY, SOAK
    command: str  # the command that runs it, for resume hints: COMMANDS[name]
    help: str  # its command's line in `arena --help`
    plans: type[Plan]  # the kind's plan, to read a stored one back
    repeat: int | None = 3  # --repeat's default (None: the kind decides, as capacity's starts)
    repeat_help: str = "repetitions of every point (default 3)"
    suited: bool = False  # its experiments have profiles: --suite quick, paper or findings

    @staticmethod
    def arguments(parser: argparse.ArgumentParser) -> None:
        """Declares its command's own options."""
        ...

    def plan(self, options: argparse.Namespace) -> Plan:
        """The command line's options as a plan to store, and nothing else; raises UsageError on
        bad options."""
        ...

    def check(self, plan: Plan) -> None:
        """Raises UsageError when a stored plan cannot run on this machine (a resume elsewhere)."""
        for cpus in plan.cpus or []:
            cores.check_budget(cpus)

    def headline(self, plan: Plan) -> str: ...

    def experiments(self, plan: Plan) -> list[str]:
        """The experiments (scenarios, benches, workloads) the plan measures."""
        ...

    def prepare(self, plan: Plan, stored: list[Measurement], context: Context) -> Batch:
        """Installs, builds and verifies what the plan needs; `stored` is what a resumed run has."""
        ...

    def outcome(self, m: Measurement) -> str:
        """A measurement in one line, for the progress display."""
        ...

    def report(self, run: Run, title: str, measurements: list[Measurement], skipped: list[str]) -> Report: ...

    def main_metrics(self, m: Measurement) -> dict[str, bool]:
        """The numbers `arena compare` and `--assert` look at first: each metric of `m`'s
        `exported()` values, and whether higher is better."""
        ...

    def noisy(self, m: Measurement) -> float:
        """The coefficient of variation over repetitions above which the first of `m`'s main
        numbers is flagged noisy."""
        return NOISY_COV


def main_metrics(kinds: dict[str, Kind]) -> Callable[[Measurement], dict[str, bool]]:
    """Each measurement's main numbers, asked of its own kind (none for a kind not known here)."""
    return lambda m: kinds[m.kind].main_metrics(m) if m.kind in kinds else {}


def noisy(kinds: dict[str, Kind]) -> Callable[[Measurement], float]:
    """Each measurement's bound on its main number's spread, asked of its own kind."""
    return lambda m: kinds[m.kind].noisy(m) if m.kind in kinds else NOISY_COV
