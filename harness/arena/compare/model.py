"""B compared with A: for every point both sides measured, each of its main numbers as a ratio B/A
with a 95% interval, and a verdict, by the test spec/compare.md states.

A side is a stored run, or one implementation of a run. Points are matched by kind, experiment,
point and core budget, and by implementation when two runs are compared. A point's repetitions that
count (as in the tables: not unsteady, not crashed) are its samples. The test is Welch's t-test on
the logarithms of the two sides' samples: the ratio is that of their geometric means, and its
interval comes from the same test, so the verdict and the interval never disagree. A point is
*faster* or *slower* (better or worse by the metric's own direction) when the test rejects equality
at `alpha` **and** the ratio moved by at least `threshold`; else *no difference*. With fewer than two
samples on a side, or a number that is only a bound (engine-bound), there is nothing to test:
*untested*, with why (a number may say for itself whether the engine bounded it: its
`NAME_engine_bound`). A number known only within a bracket (a capacity edge, whose start may lie
anywhere up to the rate that failed above it: its `NAME_resolution`) widens the interval to at
least the ratio's own bracket, and a difference needs that interval to exclude 1. This module is
the one comparison: the terminal, the dashboard and the JSON all show what it computes.
"""

from __future__ import annotations

import json
import math
import statistics
import warnings
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from arena.impls import setups
from arena.measured.export import counted_values, engine_bound
from arena.measured.measurement import MICRO, Measurement
from arena.measured.stats import NO_INTERVAL, SMALLEST_CHANGE, t_quantile

THRESHOLD = SMALLEST_CHANGE  # unless --threshold says otherwise
ALPHA = 0.05


class Verdict(StrEnum):
    FASTER = "faster"  # better by the metric's direction: more throughput, less latency
    SLOWER = "slower"
    SAME = "no difference"
    UNTESTED = "untested"


# What a kind's main numbers are for one of its measurements: metric -> whether higher is better.
MainMetrics = Callable[[Measurement], dict[str, bool]]


@dataclass(frozen=True)
class Side:
    label: str  # a run's name, or "RUN:impl"
    measurements: list[Measurement]
    impl: str | None = None  # one implementation of the run: then points are not matched by it


@dataclass(frozen=True)
class Change:
    """One main number of one point, on both sides."""

    kind: str
    experiment: str
    point: str  # JSON of its parameters
    cpus: int
    impl: str | None  # None when the sides are two implementations
    metric: str
    higher_is_better: bool
    a: list[float]
    b: list[float]
    ratio: float | None  # B/A of the geometric means; None when a side has no number
    low: float | None  # its 95% interval; None when untested
    high: float | None
    p: float | None
    verdict: Verdict
    why: str = ""  # what an untested point lacks
    flags: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        return point_label(self.experiment, self.point, self.cpus, self.impl, self.kind)

    @property
    def effect(self) -> float:
        """How far the ratio is from 1, either way, on a log scale: the order of the table."""
        return abs(math.log(self.ratio)) if self.ratio else 0.0


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    threshold: float
    alpha: float
    changes: list[Change]  # by effect, the largest first
    only_a: list[str] = field(default_factory=list)  # points one side has and the other has not
    only_b: list[str] = field(default_factory=list)

    def count(self, verdict: Verdict) -> int:
        return sum(c.verdict is verdict for c in self.changes)

    def document(self) -> dict:
        """The comparison as JSON (spec/compare.md)."""
        return {
            "schema": "arena.compare/1",
            "a": self.a,
            "b": self.b,
            "threshold": self.threshold,
            "alpha": self.alpha,
            "changes": [
                {
                    "kind": c.kind,
                    "experiment": c.experiment,
                    "point": json.loads(c.point),
                    "cpus": c.cpus,
                    "impl": c.impl,
                    "metric": c.metric,
                    "higher_is_better": c.higher_is_better,
                    "a": c.a,
                    "b": c.b,
                    "ratio": c.ratio,
                    "low": c.low,
                    "high": c.high,
                    "p": c.p,
                    "verdict": str(c.verdict),
                    "why": c.why,
                    "flags": list(c.flags),
                }
                for c in self.changes
            ],
            "only_a": self.only_a,
            "only_b": self.only_b,
        }


def point_label(experiment: str, point: str, cpus: int, impl: str | None, kind: str = "") -> str:
    """A point as a person reads it; a server's row of an implementation with several setups named
    by its setup (impls/setups.py), a micro-benchmark's as it is."""
    parameters = " ".join(f"{k}={v}" for k, v in json.loads(point).items())
    shown = impl if not impl or kind == MICRO else setups.known().canonical(impl)
    return " ".join(part for part in (shown or "", experiment, parameters, f"cpus={cpus}") if part)


def _groups(side: Side) -> dict[tuple, list[Measurement]]:
    found: dict[tuple, list[Measurement]] = defaultdict(list)
    for m in side.measurements:
        if side.impl is None or m.impl == side.impl:
            found[(m.kind, m.experiment, m.point, m.cpus, None if side.impl else m.impl)].append(m)
    return found


def welch(a: list[float], b: list[float], alpha: float) -> tuple[float, float, float, float]:
    """(ratio, low, high, p): B/A of the geometric means, its 1 - alpha interval and the p-value of
    Welch's t-test on the logarithms. Two sides without spread differ for certain or not at all."""
    from scipy import stats  # imported here: scipy takes tens of MiB every other command does without

    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    shift = sum(lb) / len(lb) - sum(la) / len(la)
    if max(la) == min(la) and max(lb) == min(lb):
        return math.exp(shift), math.exp(shift), math.exp(shift), 0.0 if shift else 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nearly equal samples: the test still answers
        tested = stats.ttest_ind(lb, la, equal_var=False)
        interval = tested.confidence_interval(1 - alpha)
    return math.exp(shift), math.exp(interval.low), math.exp(interval.high), float(tested.pvalue)


def judge(ratio: float, p: float, higher_is_better: bool, threshold: float, alpha: float) -> Verdict:
    if p >= alpha or abs(ratio - 1) < threshold:
        return Verdict.SAME
    return Verdict.FASTER if (ratio > 1) == higher_is_better else Verdict.SLOWER


def tested(
    a: list[float], b: list[float], resolution: float, higher: bool, threshold: float = THRESHOLD, alpha: float = ALPHA
) -> tuple[float, float, float, float, Verdict]:
    """(ratio, low, high, p, verdict) of two samples of a positive number, two or more values a
    side: Welch's test on their logarithms, its interval widened to the bracket a number is known
    within (`resolution`, a share: a capacity edge's), and the verdict those give."""
    ratio, low, high, p = welch(a, b, alpha)
    low, high = min(low, ratio / (1 + resolution)), max(high, ratio * (1 + resolution))
    # Neighbouring brackets touch: their edges may be equal, which rounding must not deny.
    touching = math.isclose(low, 1) or math.isclose(high, 1)
    verdict = Verdict.SAME if low <= 1 <= high or touching else judge(ratio, p, higher, threshold, alpha)
    return ratio, low, high, p, verdict


def separable(
    a: list[float], b: list[float], n: int, resolution: float, threshold: float = THRESHOLD, alpha: float = ALPHA
) -> bool:
    """Whether `tested` would tell B above A with `n` values a side, were their geometric means and
    their spreads (on the logarithms) what these two or more a side show: where more repetitions
    may still decide a difference, and where even `n` could not (capacity/order.py)."""
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    shift = statistics.fmean(lb) - statistics.fmean(la)
    if math.exp(shift) < 1 + threshold or shift <= math.log1p(resolution):
        return False  # within the smallest change, or within the bracket the numbers are known to
    va, vb = statistics.variance(la) / n, statistics.variance(lb) / n
    if va + vb == 0:
        return True
    dof = (va + vb) ** 2 / ((va**2 + vb**2) / (n - 1))
    return shift - t_quantile(dof, 1 - alpha) * math.sqrt(va + vb) > 0


def _change(key: tuple, metric: str, higher: bool, groups: tuple[list, list], threshold: float, alpha: float):
    kind, experiment, point, cpus, impl = key
    a, b = (counted_values(group, metric) for group in groups)
    flags = tuple(sorted({flag for group in groups for m in group for flag in m.flags}))
    made = {"kind": kind, "experiment": experiment, "point": point, "cpus": cpus, "impl": impl, "metric": metric}
    made |= {"higher_is_better": higher, "a": a, "b": b, "flags": flags}

    def untested(why: str, ratio: float | None = None) -> Change:
        return Change(**made, ratio=ratio, low=None, high=None, p=None, verdict=Verdict.UNTESTED, why=why)

    if not a or not b:
        return untested("no number on " + " and ".join(n for n, s in zip("AB", (a, b), strict=True) if not s))
    if min(a + b) <= 0:
        return untested("a number that is not positive has no ratio")
    geometric = math.exp(sum(map(math.log, b)) / len(b) - sum(map(math.log, a)) / len(a))
    once = [name for name, samples in zip("AB", (a, b), strict=True) if len(samples) < 2]
    if once:
        return untested(f"{NO_INTERVAL} on {' and '.join(once)}: nothing to test it by (--repeat 3)", geometric)
    resolution = max((r for group in groups for r in counted_values(group, f"{metric}_resolution")), default=0.0)
    ratio, low, high, p, verdict = tested(a, b, resolution, higher, threshold, alpha)
    # An engine-bound number is a lower bound of the server's: it can only widen a lead it already
    # has (B engine-bound and ahead stays ahead), never decide a verdict the other way.
    bound = [name for name, group in zip("AB", groups, strict=True) if any(engine_bound(m, metric) for m in group)]
    leader = {Verdict.FASTER: "B", Verdict.SLOWER: "A"}.get(verdict)
    if bound and not (higher and bound == [leader]):
        return untested(f"engine-bound on {' and '.join(bound)}: the server's own number is beyond it", geometric)
    return Change(**made, ratio=ratio, low=low, high=high, p=p, verdict=verdict)


def compare(
    a: Side, b: Side, main_metrics: MainMetrics, threshold: float = THRESHOLD, alpha: float = ALPHA
) -> Comparison:
    """Every point both sides measured, each main number judged; the points of one side listed."""
    ga, gb = _groups(a), _groups(b)
    changes = []
    for key in ga.keys() & gb.keys():
        metrics: dict[str, bool] = {}
        for m in ga[key] + gb[key]:
            if m.measured:
                metrics |= main_metrics(m)
        for metric, higher in metrics.items():
            changes.append(_change(key, metric, higher, (ga[key], gb[key]), threshold, alpha))
    changes.sort(key=lambda c: (c.verdict is Verdict.UNTESTED, -c.effect, c.where, c.metric))
    only_a = sorted(point_label(*key[1:], key[0]) for key in ga.keys() - gb.keys())
    only_b = sorted(point_label(*key[1:], key[0]) for key in gb.keys() - ga.keys())
    return Comparison(a.label, b.label, threshold, alpha, changes, only_a, only_b)
