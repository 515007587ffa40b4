"""How sure a capacity cell is: each start's edge known only to its search's precision, and how
many starts a cell takes before its interval is within the bound (spec/capacity.md, "Starts by
precision"), and what a row shows of them, a start's stalls of the host among them."""

import dataclasses
import math
from types import SimpleNamespace

import pytest

from arena.capacity import tables
from arena.capacity.precision import another_start, confirmed, edges
from arena.capacity.probe import Probe, Prober
from arena.capacity.result import CapacitySearch
from arena.capacity.search import ENGINE_BOUND, FOUND
from arena.capacity.sweep import Level
from arena.capacity.tables import non_monotone
from arena.capacity.workloads import Objective, StartRule, search_parameters
from arena.measured.measurement import Measurement, Outcome

RULE = StartRule(least=2, most=6, within=0.05, noisy_after=3)
NOISY = 0.10


def probe(rate: float, passed: bool, p50_ms: float = 1.0, reasons: tuple[str, ...] = ()) -> dict:
    measured = dict.fromkeys(("window_s", "ok_rps", "p99_ms", "p999_ms", "max_ms", "warmup_s"), 1.0)
    counts = dict.fromkeys(("offered", "ok_requests", "requests", "errors", "dropped", "server_peak_rss_kb"), 0)
    usage = dict.fromkeys(("engine_busy", "engine_cpu_s", "server_cpu_s"), 0.1)
    given = {"rate": rate, "passed": passed, "reasons": list(reasons), "engine_bound": False, "steady": True}
    return given | {"tries": 1, "p50_ms": p50_ms} | measured | counts | usage


def saturation(throughput: float, engine_bound: bool = False) -> dict:
    """What a start answered from 64 clients before its search, as a search stores it."""
    return dataclasses.asdict(Level(64, throughput, throughput, 1.0, 3.0, 0.0, True, engine_bound, 0.5, 1.0, 1000))


def search(edge: float, ended: str = FOUND, probes: list[tuple[float, bool]] = ()) -> CapacitySearch:
    made = [probe(rate, passed) for rate, passed in probes]
    return CapacitySearch(ended, edge, edge * 1.03, {"p99_ms": 10}, 1, None, made, 0.1, None)


def test_starts_that_confirm_one_edge_agree_within_its_bracket_not_exactly():
    confirming = [search(1000.0)] * 3
    summary = edges(confirming)
    assert confirmed(confirming) and summary.cov == 0.0
    # The bracket either side, as every interval is widened to its number's resolution, not nothing.
    assert (summary.ci_low, summary.ci_high) == (pytest.approx(1000 / 1.03), pytest.approx(1030.0))
    apart = [search(900.0), search(1000.0), search(1100.0)]
    spread = edges(apart)
    logs = [math.log(e) for e in (900.0, 1000.0, 1100.0)]
    centre = sum(logs) / 3
    half = 4.303 * math.sqrt(sum((x - centre) ** 2 for x in logs) / 2) / math.sqrt(3)  # t of two degrees
    assert not confirmed(apart) and spread.cov == pytest.approx(0.1)
    assert (spread.ci_low, spread.ci_high) == (
        pytest.approx(math.exp(centre - half)),
        pytest.approx(math.exp(centre + half)),
    )


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
        ([700.0, 1300.0], 0, True),  # two starts tell too little of the spread to give up on it
        ([850.0, 1000.0, 1150.0], 0, False),  # CV 15% after three: six would give ±16%, not ±5%
    ],
)
def test_a_cell_takes_starts_until_its_interval_is_within_the_bound(found, failed, needed):
    why = another_start([search(e) for e in found], failed, RULE, NOISY)
    assert (why is None) == needed, why


def test_a_noisy_cell_stops_after_three_starts_by_its_own_bound():
    spread = [search(e) for e in (940.0, 1000.0, 1060.0)]  # CV 6%: ±15% after three
    assert another_start(spread, 0, RULE, NOISY) is None  # under 10%: more starts may narrow it
    assert "noisy" in another_start(spread, 0, RULE, 0.05)  # compute's bound, 5%: they would not


def test_a_cell_alone_whose_two_starts_saturated_apart_takes_a_third_and_one_in_an_order_as_its_order_says():
    """Go's json in run 20261205-095443: one start saturated at 26,559/s, the next at 34,186/s, where
    the run before had 33,826 and 33,936. Alone, a third start gives it a median of its own; in an
    order, the order weighs that spread (capacity/order.py), and a decided step takes no more."""
    apart = [dataclasses.replace(search(26737), saturated=saturation(s)) for s in (26559, 34186)]
    assert another_start(apart, 0, RULE, NOISY) is None  # one bracket confirmed, two saturations apart
    assert another_start([*apart, apart[1]], 0, RULE, NOISY) is not None  # three: the median stands
    alike = [dataclasses.replace(search(26737), saturated=saturation(s)) for s in (33826, 33936)]
    assert another_start(alike, 0, RULE, NOISY) is not None  # and saturations alike: precise enough
    at_the_engine = [dataclasses.replace(apart[0], saturated=saturation(26559, engine_bound=True)), apart[1]]
    assert another_start(at_the_engine, 0, RULE, NOISY) is not None  # the engine's number, not the server's

    def decided() -> None:  # its neighbours far away: the order stops it
        return None

    assert "decided" in another_start(apart, 0, RULE, NOISY, decided)


def test_a_cell_with_a_bound_takes_the_least_starts():
    bound = [search(1000.0), search(5000.0, ENGINE_BOUND)]
    assert "engine-bound" in another_start(bound, 0, RULE, NOISY)
    assert another_start(bound[1:], 0, RULE, NOISY) is None  # one start: the least is two


def test_a_start_that_failed_below_a_rate_it_passed_is_non_monotone():
    assert not non_monotone(search(1000.0, probes=[(900.0, True), (1000.0, True), (1030.0, False)]))
    assert non_monotone(search(1000.0, probes=[(800.0, False), (700.0, True), (1000.0, True), (1030.0, False)]))
    assert not non_monotone(search(1000.0, probes=[(1030.0, False), (1000.0, True), (1030.0, False)]))


def test_an_edge_whose_failure_above_had_no_queue_is_pause_bound():
    def closed_by(p50_ms: float, reasons: tuple[str, ...]) -> CapacitySearch:
        above = probe(1030.0, False, p50_ms, reasons)
        return CapacitySearch(FOUND, 1000.0, 1030.0, {"p99_ms": 10}, 1, None, [probe(1000.0, True), above], 0.1, None)

    assert closed_by(0.3, ("p99 13.0 ms > 10 ms",)).pause_bound()  # the median of an idle server
    assert not closed_by(4.0, ("p99 13.0 ms > 10 ms",)).pause_bound()  # a queue stood: the edge is its
    assert not closed_by(0.3, ("p99 13.0 ms > 10 ms", "answered 91.0% < 99%")).pause_bound()  # fell behind
    held = CapacitySearch(FOUND, 1000.0, 1030.0, {"p99_ms": 100}, 1, None, [probe(1030.0, False, 1.0)], 0.1, None)
    assert not dataclasses.replace(held, held_ms=500.0).pause_bound()  # a poll's median is its wait


def test_a_row_shows_what_its_starts_answered_saturated_and_only_a_bound_past_the_engine():
    def row(*saturations: tuple[float, bool]) -> dict[str, str]:
        made = []
        for rep, (throughput, engine_bound) in enumerate(saturations):
            found = dataclasses.replace(
                search(1000.0 + rep * 300), saturated=saturation(throughput, engine_bound), warmed_s=2.0
            )
            made.append(
                Measurement("capacity", "go", "json", '{"p99_ms": 10}', 1, rep, Outcome.MEASURED, payload=found)
            )
        (section,) = tables.report("t", made, []).sections
        return {
            c.header: cell.show() for c, cell in zip(section.table.columns, section.table.rows[0].cells, strict=True)
        }

    steady = row((3000.0, False), (3030.0, False), (2970.0, False))
    assert steady["saturated /s"].startswith("3000 ±") and steady["CV sat."] == "1.0%"
    assert steady["CV"] == "23.1%"  # the edges of the same starts: 1,000, 1,300 and 1,600
    # Past the engine in one start: the median of what the starts answered, the server's own above it.
    bound = row((3000.0, False), (5000.0, True))
    assert (bound["saturated /s"], bound["CV sat."]) == ("≥ 4,000", "-")


def test_a_row_whose_edges_pauses_set_shows_their_range_not_a_median_that_looks_exact():
    def paused(edge: float, rep: int) -> Measurement:
        above = probe(edge * 1.03, False, 0.3, ("p99 13.0 ms > 10 ms",))
        found = CapacitySearch(FOUND, edge, edge * 1.03, {"p99_ms": 10}, 1, None, [probe(edge, True), above], 0.1, None)
        return Measurement("capacity", "node", "json", '{"p99_ms": 10}', 1, rep, Outcome.MEASURED, payload=found)

    (section,) = tables.report("t", [paused(e, rep) for rep, e in enumerate((1048.0, 1934.0, 1054.0))], []).sections
    assert section.table.rows[0].cells[2].show() == "1,048 to 1,934"


def test_a_held_connections_memory_comes_from_the_starts_climb_not_from_probes_after_a_larger_one():
    """The reference run's Scala `longpoll`: its heap stays grown after a probe that held more, so
    the edge's memory less the fewest's gave -25 to 1,298 KiB a connection over six starts. The
    climb (each probe holding more than any before it) gives the cost; a later start's few probes
    near its hint, no climb, give none."""

    def held(rates_and_kib: list[tuple[float, int]]) -> CapacitySearch:
        made = [probe(rate, True) | {"server_peak_rss_kb": kib} for rate, kib in rates_and_kib]
        return CapacitySearch(FOUND, 1500.0, 1545.0, {"p99_ms": 100}, 1, None, made, 0.1, None, held_ms=500)

    first = held([(1000, 400_000), (2000, 440_000), (1500, 600_000), (1545, 601_000)])
    assert first.kib_per_connection() == 40.0
    later = held([(1500, 600_000), (1545, 600_100), (1520, 600_200)])
    assert later.kib_per_connection() is None


def test_a_start_whose_top_failure_lost_its_cores_time_to_the_hypervisor_is_flagged_stolen():
    """The failure that bounds a start's edge, with 2% or more of its cores' time stolen, may be
    the host's stalls: the start says so, and the note gives the share; a pass under steal says
    nothing against the server, nor does a failure without it."""

    def bracket(stolen: float | None) -> CapacitySearch:
        top = probe(1030.0, False, reasons=("p99 12.0 ms > 10 ms",)) | {"stolen": stolen}
        below = probe(1000.0, True) | {"stolen": 0.3}
        return CapacitySearch(FOUND, 1000.0, 1030.0, {"p99_ms": 10}, 1, None, [below, top], 0.1, None)

    assert [bracket(stolen).stolen() for stolen in (0.05, 0.02, 0.019, None)] == [True, True, False, False]
    saturated = dataclasses.replace(bracket(None), saturated=saturation(2000.0) | {"stolen": 0.031}, warmed_s=2.0)
    shown = Measurement("capacity", "go", "json", '{"p99_ms": 10}', 1, 0, Outcome.MEASURED, payload=saturated)
    assert "2.0 s saturated at 2,000/s (3.1% of its cores' time stolen)" in tables._search_note("go", 1, shown, None)
    measured = Measurement("capacity", "go", "json", '{"p99_ms": 10}', 1, 0, Outcome.MEASURED, payload=bracket(0.05))
    assert "; at 1,030.0/s: p99 12.0 ms > 10 ms, 5.0% of its cores' time stolen" in tables._search_note(
        "go", 1, measured, None
    )


def test_a_failure_that_lost_its_cores_time_to_the_hypervisor_is_taken_once_more_and_the_retake_stands():
    """A probe failed with 2% or more of its cores' time stolen may have failed for the host's
    stalls: the prober takes it once more, and the retake stands, whatever it was stolen. A pass,
    or a failure with its cores to itself, is taken once."""

    def taken(*verdicts: tuple[bool, float | None]) -> tuple[list[int], Probe]:
        runs = iter(verdicts)
        tries: list[int] = []

        def once(rate: float, attempt: int, decisive: bool, window_s: float | None = None) -> Probe:
            tries.append(attempt)
            passed, stolen = next(runs)
            reasons = () if passed else ("p99 12.0 ms > 10 ms",)
            return Probe(**probe(rate, passed, reasons=reasons) | {"stolen": stolen, "tries": attempt})

        prober = Prober(SimpleNamespace(workload=SimpleNamespace(held=None)), Objective(10), search_parameters())
        prober._once = once
        return tries, prober(1000.0)

    retried, retake = taken((False, 0.05), (True, 0.05))
    assert retried == [1, 2] and retake.passed and retake.tries == 2
    assert taken((False, 0.05), (False, 0.04))[0] == [1, 2]
    assert [taken(first)[0] for first in ((True, 0.05), (False, 0.01), (False, None))] == [[1], [1], [1]]
