"""The measured side of a verdict: each implementation's value of a metric at one point and budget,
over the repetitions that count, with its 95% interval, from the stored runs read."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass

from arena.measured.export import counted_values
from arena.measured.measurement import Measurement
from arena.measured.stats import NO_INTERVAL, summarize


@dataclass(frozen=True)
class Value:
    """A metric over repetitions: its median and the 95% interval of its mean. Where the load
    engine was the limit (`bounded`), the number says only that the server did at least as well:
    the interval is open on that side."""

    median: float
    low: float
    high: float
    n: int
    bounded: bool = False

    def show(self) -> str:
        shown = _number(self.median)
        if self.bounded:
            return f"{shown} (engine-bound)"
        if self.n < 2:
            return f"{shown} ({NO_INTERVAL})"
        return f"{shown} [{_number(self.low)}, {_number(self.high)}]"


def _number(x: float) -> str:
    if not math.isfinite(x):
        return "∞" if x > 0 else "-∞"
    if x == 0 or abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:.3g}"


def value_of(numbers: list[float], bounded: bool, higher_is_better: bool) -> Value:
    summary = summarize(numbers)
    # One repetition has no interval; a rule takes it only as an engine's bound (rules.Case.value),
    # whose open side is the claim: at least the value measured.
    low = summary.ci_low if summary.ci_low is not None else summary.median
    high = summary.ci_high if summary.ci_high is not None else summary.median
    if bounded:  # engine-bound: the server's own number is beyond what was measured
        low, high = (low, math.inf) if higher_is_better else (-math.inf, high)
    return Value(summary.median, low, high, summary.n, bounded)


def separated(a: Value, b: Value, higher_is_better: bool) -> int:
    """+1 when A is better than B beyond both intervals, -1 when B is, 0 when they overlap."""
    if a.low > b.high:
        return 1 if higher_is_better else -1
    if b.low > a.high:
        return -1 if higher_is_better else 1
    return 0


@dataclass(frozen=True)
class Cell:
    """One implementation at one point and budget: its value, or why it has none."""

    impl: str
    point: dict
    cpus: int
    value: Value | None  # None: no repetition counted
    repetitions: int
    failed: int  # repetitions that produced no measurement: failed, or not run after a smaller point failed
    flags: frozenset[str]


class Index:
    """Every stored measurement of the runs read, by kind and experiment, then by implementation,
    point and budget."""

    def __init__(self, measurements: list[Measurement]) -> None:
        self.groups: dict[tuple, dict[tuple, list[Measurement]]] = defaultdict(lambda: defaultdict(list))
        self.kinds: set[str] = set()
        for m in measurements:
            self.kinds.add(m.kind)
            self.groups[(m.kind, m.experiment)][(m.impl, m.point, m.cpus)].append(m)

    def cells(self, kind: str, experiment: str, metric: str, higher_is_better: bool) -> list[Cell]:
        """Every implementation, point and budget of one experiment, with its value of `metric`."""
        found = []
        for (impl, point, cpus), group in sorted(self.groups.get((kind, experiment), {}).items()):
            numbers = counted_values(group, metric)
            flags = frozenset(flag for m in group for flag in m.flags)
            value = value_of(numbers, "engine-bound" in flags, higher_is_better) if numbers else None
            failed = sum(1 for m in group if not m.measured)
            found.append(Cell(impl, json.loads(point), cpus, value, len(group), failed, flags))
        return found
