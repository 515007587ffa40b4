"""How sure a cell's edge is (spec/capacity.md, "Starts by precision"): the median of its starts'
edges with a 95% interval in which each edge is known only to its search's precision, and whether
the cell needs another start."""

from __future__ import annotations

import math
import statistics

from arena.capacity.result import CapacitySearch
from arena.capacity.search import FOUND
from arena.capacity.workloads import StartRule
from arena.measured.stats import Summary, t95


def edges(searches: list[CapacitySearch], precision: float) -> Summary | None:
    """The edges of the searches that found one: their median, and the interval of their mean with
    a spread of at least what the search's precision allows. A search knows its start's edge to
    lie in [edge, edge * (1 + precision)), a spread of edge * precision / sqrt(12) (uniform): starts that
    each confirm the same bracket agree that far, not exactly, and a cell of such starts shows that
    spread rather than none. None without a found edge."""
    found = [s.edge for s in searches if s.ended == FOUND and s.edge is not None]
    if not found:
        return None
    n, mean, median = len(found), statistics.fmean(found), statistics.median(found)
    if n < 2:
        return Summary(n, median, mean, None, None, None)
    spread = max(statistics.stdev(found), mean * precision / math.sqrt(12))
    half = t95(n - 1) * spread / math.sqrt(n)
    return Summary(n, median, mean, mean - half, mean + half, spread / mean)


def resolved(summary: Summary, precision: float) -> bool:
    """Whether a cell's spread is no more than its search's precision allows: its starts agreed
    within the bracket each search closes (the CV shown is then a bound)."""
    return summary.cov is not None and summary.cov <= precision / math.sqrt(12) * (1 + 1e-9)


def another_start(searches: list[CapacitySearch], failed: int, starts: StartRule, precision: float) -> str | None:
    """Why the cell needs no start beyond the `len(searches) + failed` it had, or None when it
    needs one: at least `least` starts; then a cell whose every start found its edge stops once
    its interval is within `within` of the median; one where a start gave only a bound (the engine,
    max_rate, min_rate, out of probes) is reported as that bound, which another start cannot
    narrow; `most` ends every cell."""
    had = len(searches) + failed
    if had < starts.least:
        return None
    if had >= starts.most:
        return f"{had} starts, the most a cell takes"
    if bound := next((s.ended for s in searches if s.ended != FOUND), None):
        return f"{had} starts, one ending {bound}: the cell is a bound, which another start cannot narrow"
    summary = edges(searches, precision)
    if failed or summary is None or len(searches) != summary.n or summary.ci_high is None:
        return None
    half = (summary.ci_high - summary.ci_low) / 2 / summary.median
    return f"{had} starts, interval ±{half:.1%}" if half <= starts.within else None
