"""A test's cases pooled into one estimate where, judged one by one, they left it undecided: none
against the claim, some whose intervals overlap (spec/findings.md, "Pooling"). Three repetitions a
case tell apart only large differences; a claim the seed makes across several conditions has the
repetitions of every case to tell a smaller one.

Each case gives the ratio its rule compares (how many times better the claimed side is; one side
over the other). The pool is the mean of their logarithms, each case counted once, with the interval
of Student's t at cases - 1 degrees of freedom from how the cases scatter about it: the cases are
the sample, as a two-level analysis of repeated experiments takes them, and never narrower than
the cases' own errors make their mean. Weighting each case by the
inverse of its own error (DerSimonian and Laird's random effects, or Hartung and Knapp's interval)
trusts errors measured on two degrees of freedom: a case whose three repetitions happened to lie
close weighs without measure. On A/A draws of V-Fig4b's four cases those pools decided 5.7% and
5.0% of draws at a level meant to spend 2.5%; the cases' own scatter, 0.9%
(findings/calibrate.py). Its interval is at `LEVEL`: the half of a finding's 5% that its cases,
corrected by Holm, leave.

A band asks how large the ratio is in each condition: cases that differ beyond their errors measure
no one ratio — Scala's actors 1 time Pekko's at one round-trip count and 3.3 times at another
average into a band neither lies in — and are not pooled. Whether they differ is Welch's test
(1951), not Cochran's Q against chi-square: Q takes each case's error as known, and an error from
three repetitions is not. With three cases of three repetitions and one true ratio, Q passes its
95% quantile in 20% of draws (10% at six repetitions); Welch's test, which counts each error's
degrees of freedom, in 3.6% (4.7%)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from arena.findings.verdict import ALPHA, Said, Verdict, banded, combined, telling
from arena.measured.stats import SMALLEST_CHANGE, Ratio, f95, t95, t_quantile

# The pooled estimate is a second chance to decide a test its cases left open: it spends half of what a
# finding may spend on deciding wrongly (verdict.ALPHA), so that the cases (Holm's correction over
# their comparisons) and the pool together stay within it (spec/findings.md, "Many cases").
LEVEL = 1 - ALPHA / 2


@dataclass(frozen=True)
class Estimate:
    """One case's ratio, and the repetitions of its less repeated side: its interval's Student's t
    came from them, less one, unless the ratio states its degrees of freedom."""

    ratio: Ratio | None
    n: int

    @property
    def dof(self) -> int:
        """The degrees of freedom of its interval's t (and so of its error)."""
        stated = self.ratio.dof if self.ratio is not None else None
        return stated or self.n - 1


@dataclass(frozen=True)
class Pooled:
    """A ratio over several cases: the mean of their logarithms and its half-width there (at
    `LEVEL`), and
    how far the cases lie from their fixed-effect mean (Cochran's Q: the squared distances in
    standard errors, summed; Welch's F from it, and F's 95% quantile)."""

    log: float
    half: float
    cases: int
    q: float
    f: float
    limit: float

    @property
    def value(self) -> float:
        return math.exp(self.log)

    @property
    def low(self) -> float:
        return math.exp(self.log - self.half)

    @property
    def high(self) -> float:
        return math.exp(self.log + self.half)

    @property
    def one_effect(self) -> bool:
        """Whether the cases' spread is what their errors allow, at 95% (`_welch`)."""
        return self.f <= self.limit

    def show(self, name: str) -> str:
        return f"{name} x{self.value:.2f} [{self.low:.2f}, {self.high:.2f}] over {self.cases} cases"


def pool(estimates: list[Estimate], looks: int = 1) -> Pooled | None:
    """The cases' ratios pooled, at `LEVEL`, or its share of it for each time their numbers were
    read for a verdict (`looks`); None unless two or more have an interval above zero and of some
    width (an interval of no width measured no spread, and decides nothing)."""
    level = 1 - (1 - LEVEL) / looks
    usable = [e for e in estimates if e.ratio is not None and e.n >= 2]
    usable = [e for e in usable if e.ratio.low and e.ratio.low > 0 and math.isfinite(e.ratio.high or math.inf)]
    logs = [math.log(e.ratio.value) for e in usable]
    # A delta-method interval is not symmetric on the logarithms: its wider side counts.
    errors = [max(math.log(e.ratio.value / e.ratio.low), math.log(e.ratio.high / e.ratio.value)) for e in usable]
    errors = [half / t95(e.dof) for half, e in zip(errors, usable, strict=True)]
    if len(usable) < 2 or min(errors) <= 0:
        return None
    mean = statistics.fmean(logs)
    between = t_quantile(len(logs) - 1, level) * statistics.stdev(logs) / math.sqrt(len(logs))
    # Never narrower than the cases' own errors make their mean: cases that happen to agree closely
    # have measured no less scatter for it.
    within = t_quantile(sum(e.dof for e in usable), level) * math.sqrt(sum(e**2 for e in errors)) / len(logs)
    half = max(between, within)
    # Whether the cases measure one ratio (a band needs it): Cochran's Q about the fixed-effect
    # mean, judged by Welch's F.
    fixed = [1 / e**2 for e in errors]
    centre = sum(w * x for w, x in zip(fixed, logs, strict=True)) / sum(fixed)
    q = sum(w * (x - centre) ** 2 for w, x in zip(fixed, logs, strict=True))
    f, limit = _welch(q, fixed, [e.dof for e in usable])
    return Pooled(mean, half, len(usable), q, f, limit)


def _welch(q: float, weights: list[float], dofs: list[int]) -> tuple[float, float]:
    """Welch's F for cases whose errors (`weights`: their inverse squares) came from `dofs` degrees
    of freedom, from Cochran's Q of the same cases, and its 95% quantile."""
    cases, total = len(weights), sum(weights)
    # How uncertain the weights are: each case's share of them, over the degrees of freedom its error had.
    uncertain = sum((1 - w / total) ** 2 / dof for w, dof in zip(weights, dofs, strict=True))
    f = q / (cases - 1) / (1 + 2 * (cases - 2) * uncertain / (cases**2 - 1))
    return f, f95(cases - 1, (cases**2 - 1) / (3 * uncertain))


def lead(pooled: Pooled) -> Verdict:
    """A pooled lead (above 1: the claimed side better) as an order's pair judges it: beyond its
    interval and by the smallest change that counts, for or against."""
    if pooled.low > 1 and pooled.value >= 1 + SMALLEST_CHANGE:
        return Verdict.AGREES
    if pooled.high < 1 and 1 / pooled.value >= 1 + SMALLEST_CHANGE:
        return Verdict.DISAGREES
    return Verdict.NO_DIFFERENCE


def band(low: float, high: float) -> Callable[[Pooled], Verdict]:
    """A pooled ratio against a band: inside it all, for; outside it all, against; cases that
    measure no one ratio, neither."""

    def judged(pooled: Pooled) -> Verdict:
        if not pooled.one_effect:
            return Verdict.NO_DIFFERENCE
        return banded(pooled.low, pooled.high, low, high)

    return judged


def said(named: list[tuple[str, Pooled | None]], judged: Callable[[Pooled], Verdict], claim: str) -> Said | None:
    """Each named ratio pooled and judged, combined as a case's are (verdict.combined), the ratio
    that tells the verdict its effect; None where a ratio has too few cases to pool."""
    if not named or any(p is None for _, p in named):
        return None
    each = []
    for name, p in named:
        apart = (
            "" if p.one_effect else f", the cases apart beyond their errors (Welch's F = {p.f:.1f} past {p.limit:.1f})"
        )
        each.append(Said(judged(p), p.show(name) + apart, p.show(name) + ", pooled", p.value))
    verdict = combined([s.verdict for s in each])
    deciding = telling(each, verdict)
    because = f"pooled: {'; '.join(s.because for s in each)} (claimed: {claim})"
    return Said(verdict, because, deciding.effect, deciding.margin)
