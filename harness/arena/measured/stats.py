"""Statistics over repetitions: the median, the one 95% interval every report gives a number
(`summarize`), the coefficient of variation, and the ratio of two such summaries with its own
interval."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

NOISY_COV = 0.10
# The smallest change that counts (spec/compare.md): `arena compare`'s default threshold, and the
# least difference by which a finding's order or best is told (spec/findings.md).
SMALLEST_CHANGE = 0.03
# What a value measured once says where an interval would be: one value has no spread to build one
# from, and an interval equal to the value would claim a certainty nothing measured.
NO_INTERVAL = "n=1: no interval"

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom; beyond that, the normal's.
_T95 = [
    12.706,
    4.303,
    3.182,
    2.776,
    2.571,
    2.447,
    2.365,
    2.306,
    2.262,
    2.228,
    2.201,
    2.179,
    2.160,
    2.145,
    2.131,
    2.120,
    2.110,
    2.101,
    2.093,
    2.086,
    2.080,
    2.074,
    2.069,
    2.064,
    2.060,
    2.056,
    2.052,
    2.048,
    2.045,
    2.042,
]


def t95(dof: int) -> float:
    return _T95[dof - 1] if dof <= len(_T95) else 1.960


def t_quantile(dof: float, level: float) -> float:
    """Student's t that a two-sided interval at `level` (0.95: t95's) spans either side, at `dof`
    degrees of freedom, fractional ones too (Welch's)."""
    from scipy.special import stdtrit  # imported here: scipy's import costs what most commands need not pay

    return float(stdtrit(dof, 1 - (1 - level) / 2))


def p_two_sided(t: float, dof: float) -> float:
    """The probability of a Student's t at `dof` degrees of freedom at least as far from zero as `t`."""
    from scipy.special import stdtr

    return float(2 * stdtr(dof, -abs(t)))


def f95(dof1: int, dof2: float) -> float:
    """The 95% quantile of F at `dof1` and `dof2` degrees of freedom (Welch's test gives `dof2` as a
    fraction), by Paulson's cube roots: within 2% of the table's from `dof2` = 4 on, and above it
    below that (2 and 2: 23.9 against 19.0), so that a test on few repetitions errs towards no."""
    a, b, z = 2 / (9 * dof1), 2 / (9 * dof2), 1.645
    # ((1 - b) x - (1 - a)) / sqrt(a + b x^2) = z, for x the quantile's cube root
    square, linear, constant = (1 - b) ** 2 - z * z * b, -2 * (1 - b) * (1 - a), (1 - a) ** 2 - z * z * a
    if square <= 0:
        return math.inf
    root = (-linear + math.sqrt(linear * linear - 4 * square * constant)) / (2 * square)
    return root**3


# How lopsided an interval may be around its median and still be shown as ± its wider side: past
# this share of its width between the two sides, it is shown as [low, high] (an interval of a
# geometric mean is wider above than below, and of a rate that varies by a factor, much wider).
LOPSIDED = 0.2


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    # Its 95% interval (`summarize`): None when n == 1 (NO_INTERVAL), and `ci_high` None above a
    # lower bound (an engine-bound rate: the server's own is beyond what was measured).
    ci_low: float | None
    ci_high: float | None
    cov: float | None  # stdev / mean; None when it cannot be computed (n < 2 or mean 0)

    def noisy(self, limit: float = NOISY_COV) -> bool:
        """Whether it varies by more than `limit` (CV): a capacity workload sets its own."""
        return self.cov is not None and self.cov > limit

    def bound(self, higher_is_better: bool) -> tuple[float | None, float | None]:
        """Its interval where the load engine bounded the number: the server's own lies beyond what
        was measured on the better side, so the interval is open there — at least its low end (a
        rate), at most its high end (a latency); the median's where it was measured once."""
        low = self.ci_low if self.ci_low is not None else self.median
        high = self.ci_high if self.ci_high is not None else self.median
        return (low, None) if higher_is_better else (None, high)

    def show_bound(self, higher_is_better: bool, scale: float = 1.0, digits: int = 0) -> str:
        """'≥ 1234' (a rate) or '≤ 56' (a latency): the median measured, which the server's own
        median is at least (at most), since every bounded repetition's own lies beyond what it
        measured; a table shows no interval beside it, the export and the findings `bound`."""
        return f"{'≥' if higher_is_better else '≤'} {self.median * scale:,.{digits}f}"

    def show(self, scale: float = 1.0, digits: int = 0, alone: bool = False) -> str:
        """'1234 ±56' where the interval lies about evenly either side of the median (± its wider
        side), '1234 [1100, 1500]' where it does not, or '1234 (n=1)' for one repetition, which a
        report's legend explains (NO_INTERVAL); '1234' where every value beside it is one too
        (`alone`: the table says so once)."""
        value = f"{self.median * scale:.{digits}f}"
        if self.ci_low is None or self.ci_high is None:
            return value if alone else f"{value} (n=1)"
        # Compared as shown: sides that differ by less than the last digit shown are even.
        below = round((self.median - self.ci_low) * scale, digits)
        above = round((self.ci_high - self.median) * scale, digits)
        if abs(above - below) <= LOPSIDED * (above + below):
            return f"{value} ±{max(below, above):.{digits}f}"
        return f"{value} [{self.ci_low * scale:.{digits}f}, {self.ci_high * scale:.{digits}f}]"


# Metrics whose zero is an outcome, not a limit they approach: events counted (errors, drops), the
# seconds a warm-up took where it may take none, the CPU a database spent where the point gave it
# nothing to do. They add up rather than vary by a factor, so their interval is the mean's, cut at
# zero, even where every repetition gave more than zero: Java's warm-ups of blog-ab in run
# 20261205-113017, 10.8 s, 8 µs and 2.1 s, gave a geometric mean's interval of [0.0, 12,377,370] s.
CAN_BE_ZERO = frozenset({"errors", "error_ratio", "dropped", "steady_s", "warmup_s", "db_cpu_s", "db_cpu_per_1k"})


def can_be_zero(metric: str) -> bool:
    """Whether the metric's zero is an outcome (`CAN_BE_ZERO`, and each kind of error counted apart)."""
    return metric in CAN_BE_ZERO or metric.startswith("errors.")


def summarize(values: list[float], resolution: float = 0.0, metric: str = "") -> Summary:
    """The median of repeated measurements of one number and the 95% interval of its centre, the one
    interval every table, export, comparison and verdict shows (spec/export.md, "Intervals"):
    - for values all above zero of a quantity that varies by a factor (rates, times, memory), the
      geometric mean's, Student's t on the logarithms (`log_interval`): never below zero;
    - for values of which some are zero and none below, or of a quantity whose zero is an outcome
      (the `metric` named, where `can_be_zero`: errors, drops, a warm-up), the mean's, cut at zero;
    - for values that may be negative (a slope, a drift), the mean's;
    each widened to hold the median, and to `resolution` (a share) either side of it: the least a
    number is known to — a count to one of it, a search's edge to its bracket, a latency to the
    histogram's three significant digits — so that values that agree within it are not made exact."""
    if not values:
        raise ValueError("no values to summarize")
    n = len(values)
    mean = statistics.fmean(values)
    median = statistics.median(values)
    if n < 2:
        return Summary(n, median, mean, None, None, None)
    stdev = statistics.stdev(values)
    cov = stdev / abs(mean) if mean else None
    found = None if can_be_zero(metric) else log_interval(values)
    if found is None:
        half = t95(n - 1) * stdev / math.sqrt(n)
        found = (max(mean - half, 0.0) if min(values) >= 0 else mean - half, mean + half)
    low, high = found
    # A positive number is known to a share of itself, as its logarithm is: the reach is a factor.
    near = (median / (1 + resolution), median * (1 + resolution)) if median > 0 else (median, median)
    return Summary(n, median, mean, min(low, near[0], median), max(high, near[1], median), cov)


def log_interval(values: list[float]) -> tuple[float, float] | None:
    """The 95% interval of the geometric mean (Student's t on the logarithms), for a quantity that
    is positive and varies by a factor, as times and rates do: its ends are positive however far
    apart the values are, where the mean's interval of 120, 280 and 530 ms reaches below zero.
    None for fewer than two values, or any value not above zero."""
    if len(values) < 2 or min(values) <= 0:
        return None
    logs = [math.log(x) for x in values]
    half = t95(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
    centre = statistics.fmean(logs)
    return math.exp(centre - half), math.exp(centre + half)


@dataclass(frozen=True)
class Ratio:
    value: float
    low: float | None  # None when either side has one repetition
    high: float | None
    dof: int | None = None  # the degrees of freedom of its interval's t, where known

    def show(self) -> str:
        shown = f"{self.value:.3f}"
        return shown if self.low is None else f"{shown} ±{(self.high - self.low) / 2:.3f}"


def ratio(a: Summary, b: Summary) -> Ratio | None:
    """B over A, medians, with a 95% interval; None when A is zero. Where both intervals are
    positive, the ratio's is on the logarithms (a ratio is a difference of logarithms, as in
    spec/compare.md): each side's half-width there, combined; else the delta method's."""
    if not a.median or not a.mean or not b.mean:
        return None
    value = b.median / a.median
    if a.n < 2 or b.n < 2 or a.ci_low is None or a.ci_high is None or b.ci_low is None or b.ci_high is None:
        return Ratio(value, None, None)
    if a.ci_low > 0 and b.ci_low > 0 and math.isfinite(a.ci_high) and math.isfinite(b.ci_high):
        spread = math.hypot(math.log(a.ci_high / a.ci_low) / 2, math.log(b.ci_high / b.ci_low) / 2)
        return Ratio(value, value * math.exp(-spread), value * math.exp(spread))
    relative = math.hypot((a.ci_high - a.ci_low) / 2 / a.mean, (b.ci_high - b.ci_low) / 2 / b.mean)
    return Ratio(value, value * (1 - relative), value * (1 + relative))
