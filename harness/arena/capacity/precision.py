"""How sure a cell's edge is (spec/capacity.md, "Starts where the order is open"): the median of its
starts' edges with a 95% interval that is never narrower than the bracket each search closes, and
whether the cell needs another start."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from arena.capacity.order import Step
from arena.capacity.result import CapacitySearch
from arena.capacity.search import FOUND
from arena.capacity.workloads import StartRule
from arena.measured.stats import Summary, summarize


def edges(searches: list[CapacitySearch]) -> Summary | None:
    """The edges of the searches that found one: their median and 95% interval (stats.summarize),
    never narrower than the widest bracket a search closed. A search knows only that its start's
    edge lies between the rate it sustained and the one that failed just above it: starts that
    each confirm the same bracket report the same rate, and agree within it, not exactly. None
    without a found edge."""
    found = [s for s in searches if s.ended == FOUND and s.edge is not None]
    if not found:
        return None
    return summarize([s.edge for s in found], max(s.resolution() or 0.0 for s in found))


def confirmed(searches: list[CapacitySearch]) -> bool:
    """Whether the starts all sustained the same rate and failed just above it: every later start
    confirmed the first one's bracket, so their spread is somewhere within it, and unknown."""
    found = [s.edge for s in searches if s.ended == FOUND and s.edge is not None]
    return len(found) > 1 and len(set(found)) == 1


def saturations_disagree(searches: list[CapacitySearch], noisy: float) -> bool:
    """Whether the starts' saturations vary by more than the workload's `noisy` bound (CV), none of
    them at the engine's limit: for a cell alone in its workload, a third start then gives it a
    median that is one start's own rather than the mean of two far apart (spec/capacity.md, "Starts
    where the order is open")."""
    levels = [s.saturation() for s in searches]
    rates = [level.throughput for level in levels if level is not None and not level.engine_bound]
    if len(rates) < 2 or len(rates) < len(searches):
        return False
    return statistics.stdev(rates) / statistics.fmean(rates) > noisy


def another_start(
    searches: list[CapacitySearch],
    failed: int,
    starts: StartRule,
    noisy: float,
    beside: Callable[[], Step | None] | None = None,
) -> str | None:
    """Why the cell needs no start beyond the `len(searches) + failed` it had, or None when it
    needs one: at least `least` starts; `most` ends every cell. Between them, a cell in a workload's
    order takes starts while a step `beside` it is open (capacity/order.py): the answer is the
    order, which weighs the spread its starts show, and a cell far from its neighbours needs no more;
    one where a start gave only a bound (the engine, broke, max_rate, min_rate, out of probes) takes
    them only while its lead over the cell below may still show, and is otherwise reported as that
    bound, which another start cannot narrow. A cell alone in its workload (`beside` None) takes
    starts until it has `noisy_after` while its starts' saturations disagree, and stops once its
    interval is within `within` of the median, or once `noisy_after` starts vary by more than `noisy`
    (CV), a spread that the most starts could not narrow to `within`."""
    had = len(searches) + failed
    if had < starts.least:
        return None
    if had >= starts.most:
        return f"{had} starts, the most a cell takes"
    bound = next((s.ended for s in searches if s.ended != FOUND), None)
    # A bound's step is open only where it stands above (capacity/order.py), and each start's bound
    # is at least its own edge: another start can only show its lead more surely.
    if beside is not None and beside():
        return None
    if bound is not None:
        return f"{had} starts, one ending {bound}: the cell is a bound, which another start cannot narrow"
    if beside is not None:
        return f"{had} starts: its place in its workload's order is decided"
    if had < starts.noisy_after and saturations_disagree(searches, noisy):
        return None
    summary = edges(searches)
    if failed or summary is None or summary.ci_low is None or summary.ci_high is None:
        return None
    half = (summary.ci_high - summary.ci_low) / 2 / statistics.fmean([summary.ci_low, summary.ci_high])
    if half <= starts.within:
        return f"{had} starts, interval ±{half:.1%}"
    if had >= starts.noisy_after and summary.noisy(noisy):
        most = f"{starts.most} starts would not narrow it to ±{starts.within:.0%}"
        return f"{had} starts, CV {summary.cov:.1%}: noisy, {most}"
    return None
