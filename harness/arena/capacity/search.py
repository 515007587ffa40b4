"""The search for the edge (spec/capacity.md, "The search"): bracket the highest rate that passes
by growing (as far as a passing probe predicts) or shrinking, then bisect until the lowest failing
rate is within the precision above it, both sides judged on long windows. It knows nothing of
servers: `probe(rate, decisive)` says whether a rate passed, so the tests drive it with servers of
known capacity made of arithmetic."""

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

    @property
    def decisive(self) -> bool: ...  # judged on a window long enough to close the bracket

    @property
    def silent(self) -> bool: ...  # its server answered nothing with success while it was offered arrivals


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
BROKE = "broke"  # after an overload, it answered nothing below it: the edge is at least the highest passing rate


@dataclass
class Search:
    probes: list = field(default_factory=list)  # every probe's verdict, in the order they ran
    ended: str = UNFINISHED

    def _stands(self, i: int) -> bool:
        """Whether the verdict of probe `i` stands: a decisive probe overrules every other probe at
        its rate that is not decisive, and the latest decisive one the decisive ones before it;
        once one has overruled a quick probe, no quick probe stands."""
        p = self.probes[i]
        if not p.decisive and self.distrusts():
            return False
        return not any(
            q.rate == p.rate and q.decisive and (j > i or not p.decisive) for j, q in enumerate(self.probes) if j != i
        )

    def broke(self) -> bool:
        """Whether the latest probe found the server no longer serving: it answered nothing at all,
        on a start that had passed a rate, below a failure that no probe has passed since. A
        server behind its arrivals still answers what it can; one that answers nothing below the
        rate that overloaded it did not recover from that overload (a heap filled with the requests
        it held, say), and every probe after would only walk down to `min_rate` on it."""
        *before, latest = self.probes
        if not latest.silent or not any(p.passed for p in before):
            return False
        return any(
            not p.passed and p.rate > latest.rate and not any(q.passed for q in before[i + 1 :])
            for i, p in enumerate(before)
        )

    def distrusts(self) -> bool:
        """Whether a decisive probe overruled a quick one at its rate: from then on, only decisive
        probes stand."""
        return any(
            p.decisive and not q.decisive and p.rate == q.rate and p.passed != q.passed
            for p in self.probes
            for q in self.probes
        )

    def _best(self) -> int | None:
        """The index of the standing probe that passed at the highest rate (the latest of equals)."""
        passed = [i for i, p in enumerate(self.probes) if p.passed and self._stands(i)]
        return max(passed, key=lambda i: (self.probes[i].rate, i)) if passed else None

    def _counting(self) -> list[int]:
        """The indices of the standing failed probes above the edge that still count: a failure
        that a later standing probe at the same or a higher rate passed is void (the server got
        faster, or the failure was chance)."""
        best = self._best()
        edge = self.probes[best].rate if best is not None else 0.0
        standing = [i for i in range(len(self.probes)) if self._stands(i)]
        return [
            i
            for i in standing
            if not self.probes[i].passed
            and self.probes[i].rate > edge
            and not any(self.probes[j].passed and self.probes[j].rate >= self.probes[i].rate for j in standing if j > i)
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


def find_edge(
    probe: Callable[[float, bool], Verdict], limits: Limits, hint: float | None = None, confirming: bool = False
) -> Search:
    """Searches from `limits.start_rate`, or from `hint` (a rate near the edge, from earlier
    starts): the first step goes `first_growth` up or down, and each later one cubes the step,
    up to `growth` (1.03, 1.09, 1.3, 2: an edge a few percent from the hint is
    bracketed a few percent wide, one far from it as fast as from a start), or goes as far as a
    passing probe predicts; once a failure brackets the edge, the bracket is bisected, and its two
    sides are judged again, decisively, before they close it. A search `confirming` the edge that
    earlier starts found, from their `hint`, probes decisively from the first: near an edge a
    quick window's verdict is the one a decisive window overrules, and when the starts agree its
    two decisive probes are the whole search."""
    search = Search()

    def tried(rate: float, decisive: bool = False) -> Verdict | None:
        """The probe at `rate`, or None when the search is out of probes. A probe the engine bound
        counts as failed: the rate was not offered, and the edge is searched for below it."""
        if len(search.probes) >= limits.max_probes:
            search.ended = UNFINISHED
            return None
        verdict = probe(rate, decisive)
        search.probes.append(verdict)
        return verdict

    rate = min(max(hint or limits.start_rate, limits.min_rate), limits.max_rate)
    step = limits.first_growth or limits.growth
    verdict, distrusted = tried(rate, confirming), confirming
    while verdict is not None:
        if search.broke():
            search.ended = BROKE
            return search
        if search.distrusts() and not distrusted:
            # A decisive window overruled a quick one: this server's quick windows say little, and
            # the search goes on with decisive ones alone, from a step of the precision.
            distrusted, step = True, 1 + limits.precision
        low, high = search.passing, search.failing
        if low is None:  # nothing stands as passed: shrink from the lowest failure
            top = search.probes[search._top()]
            if top.rate <= limits.min_rate:
                search.ended = BELOW_MIN
                return search
            rate, step = next_below(top.rate, top.ceiling, step, limits)
            verdict = tried(max(rate, limits.min_rate), distrusted)
            continue
        best = search.probes[search._best()]
        if high is None:  # nothing above the best rate has failed: climb
            if low >= limits.max_rate:
                search.ended = AT_MAX
                return search
            verdict = tried(min(next_rate(low, best.predicted, step, limits), limits.max_rate), distrusted)
            step = widened(step, limits)
        elif high <= low * (1 + limits.precision) or high - low <= limits.resolution:
            # The bracket closes on decisive verdicts only: a window of 1,000 answers passes or
            # fails by whether a collection, a JIT compiling or a stall of the machine fell in it,
            # and a p99 of its ten slowest answers is one such pause; ten times the answers take
            # several to fill. A side that does not hold is overruled, and the search goes on.
            top = search.probes[search._top()]
            if not top.decisive and not top.engine_bound:
                verdict = tried(high, decisive=True)
            elif not best.decisive:
                verdict = tried(low, decisive=True)
            else:  # bracketed; by the server, or by an engine that could not offer the rate above it
                search.ended = ENGINE_BOUND if top.engine_bound else FOUND
                return search
        else:
            verdict = tried(math.sqrt(low * search.bisected_top(limits)), distrusted)
    return search
