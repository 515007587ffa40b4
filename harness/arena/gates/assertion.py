"""`--assert "blog-ab:p99_ms<2100"`: a bound on a run's own numbers, judged when it ends.

An assertion names an experiment (a scenario, a bench or a workload), a metric of its measurements'
exported values (spec/export.md) and a bound. It holds when, at every implementation, point and core
budget of that experiment the run measured, the median over the repetitions that count is within
the bound. A point without a value of the metric breaches it: a typo in a metric's name must fail
a CI job, never pass it.
"""

from __future__ import annotations

import math
import operator
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass

from arena.compare.model import point_label
from arena.errors import UsageError
from arena.gates.junit import Case
from arena.measured.export import counted_values
from arena.measured.measurement import Measurement
from arena.report.tables import Cell, Column, Row, Table

OPERATORS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt}
FORM = re.compile(
    r"^\s*([\w.-]+)\s*:\s*([\w.]+)\s*(<=|>=|<|>)\s*([-+]?[0-9][0-9_]*(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*$"
)
EXAMPLE = '"blog-ab:p99_ms<2100" (EXPERIMENT:METRIC then <, <=, > or >= and a number)'


@dataclass(frozen=True)
class Assertion:
    experiment: str
    metric: str
    op: str
    bound: float

    def __str__(self) -> str:
        return f"{self.experiment}:{self.metric}{self.op}{self.bound:g}"

    def holds(self, value: float) -> bool:
        return OPERATORS[self.op](value, self.bound)


@dataclass(frozen=True)
class Judged:
    """One assertion at one implementation, point and budget (or at none, when the run has none)."""

    assertion: Assertion
    where: str
    value: float | None
    ok: bool
    detail: str


def parse(text: str) -> Assertion:
    found = FORM.match(text)
    if not found:
        raise UsageError(f"--assert {text!r}: write it as {EXAMPLE}")
    experiment, metric, op, bound = found.groups()
    value = float(bound.replace("_", ""))
    if not math.isfinite(value):
        raise UsageError(f"--assert {text!r}: the bound must be a finite number")
    return Assertion(experiment, metric, op, value)


def parse_all(texts: list[str], experiments: list[str]) -> list[Assertion]:
    """Every `--assert`, refused before anything is measured when malformed or about an experiment
    the run does not measure."""
    made = [parse(text) for text in texts]
    for a in made:
        if a.experiment not in experiments:
            raise UsageError(
                f"--assert {a}: this run does not measure {a.experiment}; it measures {', '.join(experiments)}"
            )
    return made


def judge(assertion: Assertion, measurements: list[Measurement]) -> list[Judged]:
    groups: dict[tuple, list[Measurement]] = defaultdict(list)
    for m in measurements:
        if m.experiment == assertion.experiment:
            groups[(m.kind, m.impl, m.point, m.cpus)].append(m)
    if not groups:
        return [Judged(assertion, assertion.experiment, None, False, "the run stored no measurement of it")]
    judged = []
    for (kind, impl, point, cpus), group in sorted(groups.items()):
        where = point_label(assertion.experiment, point, cpus, impl, kind)
        values = counted_values(group, assertion.metric)
        if not values:
            judged.append(Judged(assertion, where, None, False, f"no {assertion.metric} measured here"))
            continue
        median = statistics.median(values)
        ok = assertion.holds(median)
        detail = f"median {median:g} of {len(values)}: {'within' if ok else 'beyond'} {assertion.op}{assertion.bound:g}"
        judged.append(Judged(assertion, where, median, ok, detail))
    return judged


def table(judged: list[Judged]) -> Table:
    rows = [
        Row(
            [
                Cell(str(j.assertion)),
                Cell(j.where),
                Cell("held" if j.ok else "BREACHED", tone="good" if j.ok else "bad"),
                Cell(j.detail),
            ]
        )
        for j in judged
    ]
    return Table([Column("assertion"), Column("where"), Column("outcome"), Column("why")], rows, flags=False)


def cases(judged: list[Judged]) -> list[Case]:
    return [Case(str(j.assertion), j.where, "" if j.ok else j.detail) for j in judged]
