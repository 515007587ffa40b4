"""The search for the edge (spec/capacity.md, "The search"): bracket the highest rate that passes
by growing (as far as a passing probe predicts) or shrinking, then bisect until the lowest failing
rate is within the precision above it. It knows nothing of servers: `probe(rate)` says whether a
rate passed, so the tests drive it with servers of known capacity made of arithmetic."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


class Verdict(Protocol):
    """What the search needs of a probe."""

    @property
    def rate(self) -> float: ...

    @property
    def passed(self) -> bool: ...  # False too when the engine was saturated: it did not offer the rate

    @property
    def engine_bound(self) -> bool: ...  # the engine, not the server, may have limited it

    @property
    def predicted(self) -> float | None: ...  # a rate the probe suggests the server reaches, if it can tell

    @property
    def ceiling(self) -> float | None: ...  # what its server still answered while behind, if it fell behind


@dataclass(frozen=True)
class Limits:
    start_rate: float
    min_rate: float
    max_rate: float
    growth: float = 2.0
    precision: float = 0.03
    max_probes: int = 24
    max_jump: float = 16.0  # the most a passing probe's prediction may multiply the rate by
    first_growth: float | None = None  # the first step from the start rate, when not `growth`
    resolution: float = 0.0  # the least difference two probes can have (1 for connections held)
    saturated: float | None = None  # what the start answered with work always waiting, when measured


# What a server that fell behind answered is near the most it can: its edge under an objective is
# usually a little below, sometimes above (a server whose throughput sags as its queue grows).
AIM = 1.1

# How a search ended: the edge was bracketed within the precision, or one of its bounds stopped it.
FOUND = "found"
BELOW_MIN = "below min_rate"  # no rate down to min_rate passed
AT_MAX = "at max_rate"  # max_rate passed: the edge is beyond what the search may ask
ENGINE_BOUND = "engine-bound"  # the engine saturated just above it: the edge is at least the highest passing rate
UNFINISHED = "unfinished"  # max_probes ran out before the bracket was narrow enough


@dataclass
class Search:
    probes: list = field(default_factory=list)  # every probe's verdict, in the order they ran
    ended: str = UNFINISHED

    def _best(self) -> int | None:
        """The index of the probe that passed at the highest rate (the latest of equals)."""
        passed = [i for i, p in enumerate(self.probes) if p.passed]
        return max(passed, key=lambda i: (self.probes[i].rate, i)) if passed else None

    def _counting(self) -> list[int]:
        """The indices of the failed probes above the edge that still count: a failure that a later
        probe at the same or a higher rate passed is void (the server got faster, or the failure
        was chance)."""
        best = self._best()
        edge = self.probes[best].rate if best is not None else 0.0
        return [
            i
            for i, p in enumerate(self.probes)
            if not p.passed and p.rate > edge and not any(q.passed and q.rate >= p.rate for q in self.probes[i + 1 :])
        ]

    def _top(self) -> int | None:
        """The index of the counting failure at the lowest rate: the bracket's top."""
        counting = self._counting()
        return min(counting, key=lambda i: (self.probes[i].rate, -i)) if counting else None

    @property
    def passing(self) -> float | None:
        """The highest rate that passed: the edge, when the search found it."""
        best = self._best()
        return self.probes[best].rate if best is not None else None

    def bisected_top(self, limits: Limits) -> float:
        """The top of the bracket to bisect: the lowest counting failure, or less when a failure fell
        behind and answered less than that: AIM times what it answered, and at least two precisions
        above the edge so that the bisection moves. What a failure answered below the edge is stale
        (the server has got faster since, a JIT compiled) and is left out."""
        passing, high = self.passing or 0.0, self.failing
        told = [c for c in (self.probes[i].ceiling for i in self._counting()) if c is not None and c > passing]
        if not told:
            return high
        return min(high, max(AIM * min(told), passing * (1 + limits.precision) ** 2))

    @property
    def failing(self) -> float | None:
        """The lowest rate above the edge that failed (the bracket's top), None if none did."""
        top = self._top()
        return self.probes[top].rate if top is not None else None


def next_rate(rate: float, predicted: float | None, growth: float, limits: Limits) -> float:
    """The next rate while probes pass: `growth` times this one, or, when the probe predicts the
    server reaches further, 90% of its prediction (at most `max_jump` times this rate), so that a
    fast server is not climbed to by doubling from a slow start. Below AIM times what the start
    answered saturated, no further than that (at least one precision up): the edge is seldom above
    what the server answers with work always waiting, and a bracket that ends near it is narrow."""
    grown = rate * growth
    if predicted is not None and growth > 1 + limits.precision:
        grown = min(max(grown, 0.9 * predicted), rate * limits.max_jump)
    if limits.saturated and rate < AIM * limits.saturated:
        return max(min(grown, AIM * limits.saturated), rate * (1 + limits.precision))
    return grown


def next_below(rate: float, ceiling: float | None, step: float, limits: Limits) -> tuple[float, float]:
    """The next rate while probes fail, and the step after it: `step` below this one, the step
    cubed (up to `growth`); or, when the server fell behind and answered less than that, what it
    answered less the precision, and steps from there as from a hint: a start far above a slow
    server's edge is not halved down from, nor halved past."""
    stepped = rate / step
    if ceiling is not None and ceiling / (1 + limits.precision) < stepped:
        return ceiling / (1 + limits.precision), 1 + limits.precision
    return stepped, widened(step, limits)


def widened(step: float, limits: Limits) -> float:
    """The step after `step` while probes keep passing (or failing): cubed, up to `growth` (1.03,
    1.09, 1.3, 2): a few percent at first, where a hint or a saturated start is usually right, and
    soon as wide as a first search's."""
    return min(step**3, limits.growth)


def find_edge(probe: Callable[[float], Verdict], limits: Limits, hint: float | None = None) -> Search:
    """Searches from `limits.start_rate`, or from `hint` (a rate near the edge, from earlier
    starts): the first step goes `first_growth` up or down, and each later one cubes the step,
    up to `growth` (1.03, 1.09, 1.3, 2: an edge a few percent from the hint is
    bracketed a few percent wide, one far from it as fast as from a start), or goes as far as a
    passing probe predicts; once a failure brackets the edge, the bracket is bisected."""
    search = Search()

    def tried(rate: float) -> Verdict | None:
        """The probe at `rate`, or None when the search is out of probes. A probe the engine bound
        counts as failed: the rate was not offered, and the edge is searched for below it."""
        if len(search.probes) >= limits.max_probes:
            search.ended = UNFINISHED
            return None
        verdict = probe(rate)
        search.probes.append(verdict)
        return verdict

    rate = min(max(hint or limits.start_rate, limits.min_rate), limits.max_rate)
    step = limits.first_growth or limits.growth
    verdict = tried(rate)
    while verdict is not None and not verdict.passed:  # shrink until a probe passes
        if rate <= limits.min_rate:
            search.ended = BELOW_MIN
            return search
        rate, step = next_below(rate, verdict.ceiling, step, limits)
        rate = max(rate, limits.min_rate)
        verdict = tried(rate)
    while verdict is not None:
        low, high, best = search.passing, search.failing, search.probes[search._best()]
        if high is None:  # nothing above the best rate has failed: climb
            if low >= limits.max_rate:
                search.ended = AT_MAX
                return search
            verdict = tried(min(next_rate(low, best.predicted, step, limits), limits.max_rate))
            step = widened(step, limits)
        elif high <= low * (1 + limits.precision) or high - low <= limits.resolution:
            top = search.probes[search._top()]
            once = sum(p.rate == high for p in search.probes) == 1
            if once and not top.engine_bound:
                # A failure closes the bracket only once it fails again: one stall of the machine,
                # a collection or a JIT compiling in its window fails a probe near the edge as
                # surely as the edge does, and would set the edge for the whole start.
                verdict = tried(high)
                continue
            # Bracketed; by the server, or by an engine that could not offer the rate above it.
            search.ended = ENGINE_BOUND if top.engine_bound else FOUND
            return search
        else:
            verdict = tried(math.sqrt(low * search.bisected_top(limits)))
    return search
