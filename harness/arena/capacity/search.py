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


@dataclass(frozen=True)
class Limits:
    start_rate: float
    min_rate: float
    max_rate: float
    growth: float = 2.0
    precision: float = 0.03
    max_probes: int = 24
    max_jump: float = 16.0  # the most a passing probe's prediction may multiply the rate by


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

    @property
    def passing(self) -> float | None:
        """The highest rate that passed: the edge, when the search found it."""
        rates = [p.rate for p in self.probes if p.passed]
        return max(rates) if rates else None

    @property
    def failing(self) -> float | None:
        """The lowest rate above the edge that failed (the bracket's top), None if none did."""
        edge = self.passing or 0.0
        rates = [p.rate for p in self.probes if not p.passed and p.rate > edge]
        return min(rates) if rates else None


def next_rate(rate: float, predicted: float | None, limits: Limits) -> float:
    """The next rate while probes pass: `growth` times this one, or, when the probe predicts the
    server reaches further, 90% of its prediction (at most `max_jump` times this rate), so that a
    fast server is not climbed to by doubling from a slow start."""
    grown = rate * limits.growth
    if predicted is None or limits.growth <= 1 + limits.precision:
        return grown
    return min(max(grown, 0.9 * predicted), rate * limits.max_jump)


def find_edge(probe: Callable[[float], Verdict], limits: Limits, hint: float | None = None) -> Search:
    """Searches from `limits.start_rate`, or from `hint` (a rate near the edge, from earlier
    starts) with the same steps: `limits.growth` says how far each step of the bracketing goes."""
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
    first = tried(rate)
    if first is None:
        return search
    if first.passed:  # grow until a probe fails
        verdict = first
        while True:
            if rate >= limits.max_rate:
                search.ended = AT_MAX
                return search
            rate = min(next_rate(rate, verdict.predicted, limits), limits.max_rate)
            verdict = tried(rate)
            if verdict is None:
                return search
            if not verdict.passed:
                break
    else:  # shrink until a probe passes
        while True:
            if rate <= limits.min_rate:
                search.ended = BELOW_MIN
                return search
            rate = max(rate / limits.growth, limits.min_rate)
            verdict = tried(rate)
            if verdict is None:
                return search
            if verdict.passed:
                break
    while (low := search.passing) is not None and (high := search.failing) is not None:
        if high <= low * (1 + limits.precision):
            # Bracketed; by the server, or by an engine that could not offer the rate above it.
            top = next(p for p in search.probes if p.rate == high and not p.passed)
            search.ended = ENGINE_BOUND if top.engine_bound else FOUND
            return search
        if tried(math.sqrt(low * high)) is None:
            return search
    return search
