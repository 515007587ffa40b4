"""The measured side of a verdict: each implementation's value of a metric at one point and budget,
over the repetitions that count, with its 95% interval widened to the metric's resolution and the
share of its point's ceiling it reached, from the stored runs read; and two implementations' ratio
by the repetitions that measured both in the same minutes."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.impls import setups
from arena.measured.export import UNCOUNTED, counted_values, engine_bound, values_of
from arena.measured.measurement import MICRO, Measurement
from arena.measured.stats import (
    NO_INTERVAL,
    SMALLEST_CHANGE,
    Ratio,
    p_two_sided,
    summarize,
    t95,
)

# The metrics a point's ceiling bounds (rest/ceiling.py): the requests it answered, and their rate.
CEILED = {"ok_requests", "requests", "rps", "ok_rps"}
# A side that reached this share of its point's ceiling was held there by the load (rest/ceiling.py).
AT_CEILING = 0.95


@dataclass(frozen=True)
class Value:
    """A metric over repetitions: its median and its 95% interval (value_of). Where the load
    engine was the limit (`bounded`), the number says only that the server did at least as well:
    the interval is open on that side."""

    median: float
    low: float
    high: float
    n: int
    bounded: bool = False
    # The share within which the metric cannot tell two values apart: a count's one request in
    # ten, a search's bracket (`NAME_resolution` in a payload's exported values). 0: none known.
    resolution: float = 0.0
    # How much of its point's ceiling it reached (REST throughput: the think time, the offered
    # rate, the hashes the cores allow; rest/ceiling.py), the median over repetitions, and why.
    ceiling: float | None = None
    ceiling_why: str = ""
    ceiling_rps: float | None = None  # the ceiling itself: the same for every side the load bounds
    ceiling_own: bool = False  # the server's own work (its cores' hashes), not the load's: it reached it itself

    @property
    def held(self) -> bool:
        """Whether the load held it: at AT_CEILING or more of a ceiling that is not the server's own work."""
        return self.ceiling is not None and self.ceiling >= AT_CEILING and not self.ceiling_own

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


def value_of(
    numbers: list[float], bounded: bool, higher_is_better: bool, resolution: float = 0.0, metric: str = ""
) -> Value:
    """The numbers' median and 95% interval, as every table and export gives them (stats.summarize:
    a positive number's is the geometric mean's, never narrower than `resolution` either side of
    the median — repetitions that all count ten requests say ten give or take one, not exactly
    ten); the mean's, cut at zero, for a `metric` whose zero is an outcome
    (stats.can_be_zero); open on the claimed side where the engine bounded the number."""
    summary = summarize(numbers, resolution, metric)
    # One repetition has no interval; a rule takes it only as an engine's bound (rules.Case.value),
    # whose open side is the claim: at least the value measured.
    low = summary.ci_low if summary.ci_low is not None else summary.median
    high = summary.ci_high if summary.ci_high is not None else summary.median
    if bounded:  # engine-bound: the server's own number is beyond what was measured
        at_least, at_most = summary.bound(higher_is_better)
        low, high = (at_least, math.inf) if higher_is_better else (-math.inf, at_most)
    return Value(summary.median, low, high, summary.n, bounded, resolution)


def separated(a: Value, b: Value, higher_is_better: bool, least: float = SMALLEST_CHANGE) -> int:
    """+1 when A is better than B beyond both intervals and by at least `least` (a share of the
    smaller median: the smallest change that counts), -1 when B is, 0 otherwise."""
    apart = abs(a.median - b.median) >= least * min(abs(a.median), abs(b.median))
    if a.low > b.high and apart:
        return 1 if higher_is_better else -1
    if b.low > a.high and apart:
        return -1 if higher_is_better else 1
    return 0


def beyond(r: Ratio, higher_is_better: bool, least: float = SMALLEST_CHANGE) -> int:
    """`separated` for B's value over A's where their repetitions were paired: +1 when A is better,
    its interval clear of 1 and the ratio at least `least` from it, -1 when B is, 0 otherwise."""
    side = above(r, least)
    return -side if higher_is_better else side


def above(r: Ratio, least: float = SMALLEST_CHANGE) -> int:
    """+1 where a ratio lies above 1, its interval clear of 1 and its value at least `least` from
    it; -1 where it lies so below 1; 0 otherwise."""
    if r.low is None or r.high is None:
        return 0
    if r.low > 1 and r.value >= 1 + least:
        return 1
    if r.high < 1 and 1 / r.value >= 1 + least:
        return -1
    return 0


def p_of(low: float, high: float, dof: float, null: float = 1.0) -> float:
    """The two-sided p that an estimate whose 95% interval at `dof` degrees of freedom is [low,
    high] lies at `null`: its distance from the interval's centre in standard errors (the
    half-width over t95), on the logarithms where the interval is above zero, as the rules compare
    ratios, else as it is. An end open to infinity (an engine's bound) is taken as far as the other."""
    on_logs = low > 0 and null > 0
    a, b, at = (math.log(low), math.log(high), math.log(null)) if on_logs else (low, high, null)
    if not math.isfinite(a) and not math.isfinite(b):
        return 1.0
    centre = (a + b) / 2 if math.isfinite(a) and math.isfinite(b) else (a if math.isfinite(a) else b)
    half = (b - a) / 2 if math.isfinite(a) and math.isfinite(b) else math.inf
    if not math.isfinite(half):
        # One end open: the value is beyond its finite end, and certain of nothing past it.
        return 1.0 if (at > a if math.isfinite(a) else at < b) else 0.0
    if half <= 0:
        return 1.0 if centre == at else 0.0
    return p_two_sided((centre - at) / (half / t95(max(1, round(dof)))), max(1.0, dof))


def p_band(low: float, high: float, dof: float, band_low: float, band_high: float) -> float:
    """`p_of` against the band's end nearest the interval's centre: small where the interval lies
    clear of that end, inside the band or outside it."""
    if low > 0 and band_low > 0:
        centre = math.sqrt(low * high) if math.isfinite(high) else low
        nearest = band_low if abs(math.log(centre / band_low)) < abs(math.log(band_high / centre)) else band_high
    else:
        centre = (low + high) / 2
        nearest = band_low if abs(centre - band_low) < abs(band_high - centre) else band_high
    return p_of(low, high, dof, nearest)


def p_apart(a: Value, b: Value) -> float:
    """The two-sided p that two values of repetitions not paired are the same: the distance between
    their intervals' centres over their standard errors together (each its half-width over t95),
    on the logarithms where both lie above zero, at the fewer side's degrees of freedom. A bound
    (engine-bound) has no error to rank: as certain as `separated` says, or not at all."""
    if a.bounded or b.bounded:
        return 0.0 if separated(a, b, True, 0.0) else 1.0
    on_logs = a.low > 0 and b.low > 0
    ends = [(math.log(v.low), math.log(v.high)) if on_logs else (v.low, v.high) for v in (a, b)]
    errors = [(high - low) / 2 / t95(max(1, v.n - 1)) for (low, high), v in zip(ends, (a, b), strict=True)]
    spread = math.hypot(*errors)
    gap = sum(ends[0]) / 2 - sum(ends[1]) / 2
    if spread == 0:
        return 1.0 if gap == 0 else 0.0
    return p_two_sided(gap / spread, max(1, min(a.n, b.n) - 1))


def lost_to_engine(values: dict, cpus: int) -> float | None:
    """The share of its budget's cores' time that a REST repetition's server may have lost to a load
    engine sharing them: the engine's share of that time, while the server wanted it (the product
    of the two shares: a core the engine holds delays the server only when it needs one). None
    where it is not known."""
    elapsed, engine, server = values.get("elapsed_s"), values.get("engine_cpu_s"), values.get("server_cpu_s")
    if not isinstance(elapsed, int | float) or elapsed <= 0 or engine is None or server is None:
        return None
    return (engine / (elapsed * cpus)) * min(1.0, server / (elapsed * cpus))


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
    lost_to_engine: float | None = None  # the most of its cores' time a repetition may have lost to the engine (REST)
    # The metric of each repetition that counts, as measured, by its run and repetition.
    by_repetition: dict[tuple, float] = field(default_factory=dict)
    failures: tuple[str, ...] = ()  # why its repetitions failed, each reason once
    looks: int = 1  # how many times its run's numbers were read for a verdict (Store.extend_run)

    @property
    def numbers(self) -> tuple[float, ...]:
        return tuple(self.by_repetition.values())


def together(a: Cell, b: Cell) -> list[tuple[float, float]]:
    """The two cells' numbers of each repetition of one run that measured both."""
    both = sorted(a.by_repetition.keys() & b.by_repetition.keys(), key=str)
    return [(a.by_repetition[k], b.by_repetition[k]) for k in both]


def paired(a: Cell, b: Cell) -> Ratio | None:
    """B's value over A's by the repetitions of one run that measured both: the geometric mean of
    each repetition's ratio, with its 95% interval (Student's t on the logarithms: `_by_repetition`),
    never narrower than the two sides' resolutions together. A run measures the sides of
    a repetition within minutes of each other (a micro run each implementation at a point in turn, a
    REST run each in turn within a repetition), so a repetition's ratio cancels what the machine did
    in those minutes, which the sides' own intervals each carry (spec/findings.md, "Pairs"). None
    where fewer than two repetitions measured both, a side's number is not above zero or only a
    bound (engine-bound), or the ratios do not vary: then the sides' own intervals are compared."""
    return _by_repetition([a, b], lambda x, y: y / x)


def growths(a_from: Cell, a_to: Cell, b_from: Cell, b_to: Cell) -> Ratio | None:
    """A's growth from one point to another over B's, by the repetitions of one run that measured
    all four (a REST run measures each implementation's points on one start, a micro run every
    implementation at a point before the next): each repetition's two growths share its minutes,
    as `paired`'s two values do. None where `paired` would be."""
    return _by_repetition([a_from, a_to, b_from, b_to], lambda af, at, bf, bt: (at / af) / (bt / bf))


def _by_repetition(cells: list[Cell], ratio: Callable[..., float]) -> Ratio | None:
    """The geometric mean of `ratio` of the cells' numbers in each repetition that measured them
    all, with its 95% interval (t on the logarithms of those repetitions alone), never narrower than
    their resolutions.

    The same ratio at the experiment's other points is no measure of this one's scatter: pooled
    with them where Bartlett's test found them alike, A/A draws of one ratio decided 7.4% of
    comparisons at 95% where this point's own scatter decides 5.2% (spec/findings.md, "Scatter")."""
    if any(c.value is None or c.value.bounded for c in cells):
        return None
    logs = _logs(cells, ratio)
    if logs is None:
        return None
    dof = len(logs) - 1
    floor = math.sqrt(sum(math.log1p(c.value.resolution) ** 2 for c in cells))
    half = max(t95(dof) * statistics.stdev(logs) / math.sqrt(len(logs)), floor)
    if half == 0:
        return None
    centre = statistics.fmean(logs)
    return Ratio(math.exp(centre), math.exp(centre - half), math.exp(centre + half), dof)


def _logs(cells: list[Cell], ratio: Callable[..., float]) -> list[float] | None:
    """The logarithm of `ratio` in each repetition that measured every cell; None under two."""
    common = sorted(set.intersection(*(set(c.by_repetition) for c in cells)), key=str)
    numbers = [[c.by_repetition[k] for c in cells] for k in common]
    if len(numbers) < 2 or min(min(n) for n in numbers) <= 0:
        return None
    return [math.log(ratio(*n)) for n in numbers]


class Index:
    """Every stored measurement of the runs read, by kind and experiment, then by implementation,
    point and budget. A server's row is named as the findings name it: by its setup where its
    implementation has several (`node:express-cluster`, stored as `node`: impls/setups.py), so
    that each verdict says which setup it was measured on."""

    def __init__(self, measurements: list[Measurement], looks: dict[int, int] | None = None) -> None:
        self.looks = looks or {}  # by run id: how many times its numbers were read (1 unless extended)
        self.groups: dict[tuple, dict[tuple, list[Measurement]]] = defaultdict(lambda: defaultdict(list))
        self.kinds: set[str] = set()
        known = setups.known()
        for m in measurements:
            self.kinds.add(m.kind)
            impl = m.impl if m.kind == MICRO else known.canonical(m.impl)
            self.groups[(m.kind, m.experiment)][(impl, m.point, m.cpus)].append(m)

    def cells(self, kind: str, experiment: str, metric: str, higher_is_better: bool) -> list[Cell]:
        """Every implementation, point and budget of one experiment, with its value of `metric`."""
        found = []
        for (impl, point, cpus), group in sorted(self.groups.get((kind, experiment), {}).items()):
            by_repetition = {(m.run, m.repetition): v for m in group for v in counted_values([m], metric)}
            numbers = list(by_repetition.values())
            flags = frozenset(flag for m in group for flag in m.flags)
            resolution = max(counted_values(group, f"{metric}_resolution"), default=0.0)
            # Bounded as the export's summary is (measured/export.py): where the engine bounded this
            # number in a repetition that counts.
            bounded = any(engine_bound(m, metric) for m in group if m.measured and not UNCOUNTED & set(m.flags))
            value = value_of(numbers, bounded, higher_is_better, resolution, metric) if numbers else None
            exported = [values_of(m) for m in group]
            if value is not None and metric in CEILED and (shares := counted_values(group, "ceiling_share")):
                why = next((str(v["ceiling_why"]) for v in exported if v.get("ceiling_why")), "")
                limits = counted_values(group, "ceiling_rps")
                limit = statistics.median(limits) if limits else None
                own = any(v.get("ceiling_own") for v in exported)
                value = dataclasses.replace(
                    value, ceiling=statistics.median(shares), ceiling_why=why, ceiling_rps=limit, ceiling_own=own
                )
            failed = sum(1 for m in group if not m.measured)
            lost = max((share for v in exported if (share := lost_to_engine(v, cpus)) is not None), default=None)
            failures = tuple(dict.fromkeys(m.reason for m in group if not m.measured and m.reason))
            looks = max((self.looks.get(m.run, 1) for m in group if m.run is not None), default=1)
            cell = Cell(
                impl, json.loads(point), cpus, value, len(group), failed, flags, lost, by_repetition, failures, looks
            )
            found.append(cell)
        return found
