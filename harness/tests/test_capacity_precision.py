"""How sure a capacity cell is: each start's edge known only to its search's precision, and how
many starts a cell takes before its interval is within the bound (spec/capacity.md, "Starts by
precision")."""

import math

import pytest

from arena.capacity.precision import another_start, confirmed, edges
from arena.capacity.result import CapacitySearch
from arena.capacity.search import ENGINE_BOUND, FOUND
from arena.capacity.tables import non_monotone
from arena.capacity.workloads import StartRule

RULE = StartRule(least=2, most=6, within=0.05)


def probe(rate: float, passed: bool) -> dict:
    measured = dict.fromkeys(("window_s", "ok_rps", "p50_ms", "p99_ms", "p999_ms", "max_ms", "warmup_s"), 1.0)
    counts = dict.fromkeys(("offered", "ok_requests", "requests", "errors", "dropped", "server_peak_rss_kb"), 0)
    usage = dict.fromkeys(("engine_busy", "engine_cpu_s", "server_cpu_s"), 0.1)
    given = {"rate": rate, "passed": passed, "reasons": [], "engine_bound": False, "steady": True, "tries": 1}
    return given | measured | counts | usage


def search(edge: float, ended: str = FOUND, probes: list[tuple[float, bool]] = ()) -> CapacitySearch:
    made = [probe(rate, passed) for rate, passed in probes]
    return CapacitySearch(ended, edge, edge * 1.03, {"p99_ms": 10}, 1, None, made, 0.1, None)


def test_starts_that_confirm_one_edge_agree_within_its_bracket_not_exactly():
    confirming = [search(1000.0)] * 3
    summary = edges(confirming)
    assert confirmed(confirming) and summary.cov == 0.0
    assert (summary.ci_low, summary.ci_high) == (1000.0, pytest.approx(1030.0))  # the bracket, not nothing
    apart = [search(900.0), search(1000.0), search(1100.0)]
    spread = edges(apart)
    half = 4.303 * 100 / math.sqrt(3)  # Student's t of two degrees of freedom
    assert not confirmed(apart) and spread.cov == pytest.approx(0.1)
    assert (spread.ci_low, spread.ci_high) == (pytest.approx(1000 - half), pytest.approx(1000 + half))


@pytest.mark.parametrize(
    ("found", "failed", "needed"),
    [
        ([1000.0], 0, True),  # fewer than the least
        ([1000.0, 1000.0], 0, False),  # two that confirm one bracket: ±1.5%
        ([1000.0, 1030.0], 0, True),  # two brackets apart: ±19%, Student's t of one degree of freedom
        ([1000.0, 1030.0, 1000.0], 0, False),  # ±4.2%
        ([900.0, 1000.0, 1100.0], 0, True),  # ±25%
        ([1000.0, 1000.0, 1000.0], 1, True),  # a start that failed says nothing of the edge
        ([900.0, 1000.0, 1100.0, 950.0, 1050.0, 1000.0], 0, False),  # the most
    ],
)
def test_a_cell_takes_starts_until_its_interval_is_within_the_bound(found, failed, needed):
    why = another_start([search(e) for e in found], failed, RULE)
    assert (why is None) == needed, why


def test_a_cell_with_a_bound_takes_the_least_starts():
    bound = [search(1000.0), search(5000.0, ENGINE_BOUND)]
    assert "engine-bound" in another_start(bound, 0, RULE)
    assert another_start(bound[1:], 0, RULE) is None  # one start: the least is two


def test_a_start_that_failed_below_a_rate_it_passed_is_non_monotone():
    assert not non_monotone(search(1000.0, probes=[(900.0, True), (1000.0, True), (1030.0, False)]))
    assert non_monotone(search(1000.0, probes=[(800.0, False), (700.0, True), (1000.0, True), (1030.0, False)]))
    assert not non_monotone(search(1000.0, probes=[(1030.0, False), (1000.0, True), (1030.0, False)]))
