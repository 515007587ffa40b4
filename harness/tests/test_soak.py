"""`arena soak` finds a leak and leaves a flat server alone: a throw-away server that keeps a few
hundred bytes a request is flagged, its slope within 20% of the one planted; one that keeps nothing
is not; and the trends' arithmetic, table-driven."""

from __future__ import annotations

import dataclasses
import math
import random
import sys

import pytest

from arena.capacity.kind import CapacityKind
from arena.capacity.probe import Runner
from arena.capacity.result import CapacitySearch
from arena.capacity.workloads import Objective, Workload, search_parameters
from arena.cli import main as cli
from arena.engines import loadgen
from arena.host.process import free_port, running
from arena.impls import catalog
from arena.measured.measurement import Measurement, Outcome
from arena.measured.store import Store
from arena.report.render import markdown
from arena.soak import edges, tables, trend
from arena.soak import measure as soak_measure
from arena.soak import plan as soak_plan
from arena.soak.parameters import load
from arena.soak.periods import Period, hold
from arena.soak.result import Soak
from conftest import needs_engine, write_impl
from test_capacity import asyncio_server

# Writes KEEP_BYTES of every request into a mapping of untouched memory, one after another: exactly
# that much more resident memory a request, where objects would cost their headers and the
# allocator's rounding and copies besides.
KEEPING = asyncio_server(
    """
    global written
    if path == b"/keep":
        kept[written : written + KEEP] = b"k" * KEEP
        written += KEEP
    elif path == b"/longPoll":
        await asyncio.sleep(0.2)
    """,
    setup="import mmap\nkept = mmap.mmap(-1, 1 << 30)\nwritten = 0\nKEEP = int(os.environ['KEEP_BYTES'])",
)

KEEP = Workload(
    id="keep",
    title="each request kept, or not",
    objective=Objective(p99_ms=50),
    start_rate=100,
    min_rate=1,
    max_rate=1000,
    steps=[{"name": "keep", "method": "GET", "path": "/keep", "expect": [200]}],
)
RATE = 250.0  # requests a second
BYTES = 500  # kept a request by the leaking server
# Short periods and bins, so that a test holds the server for seconds: what changes with minutes is
# the interval's width, not the slope.
PARAMETERS = dataclasses.replace(
    load(), period_s=4.0, warmup_periods=1, pollers=4, bin_s=1.0, poll={**load().poll, "path": "/longPoll"}
)
PERIODS = 5


def manifest(folder, kept: int) -> catalog.Manifest:
    text = f"""
        env = {{ KEEP_BYTES = "{kept}" }}
        ready_timeout = 10
        [[toolchain]]
        name = "python"
        check = ["{sys.executable}", "--version"]
        [build]
        steps = [["true"]]
        [cores]
        max = 1
        how = "one thread"
    """
    return catalog.parse(write_impl(folder, f"keeps{kept}", ("server.py", KEEPING), text))


def soaked(folder, kept: int) -> Soak:
    with running(manifest(folder, kept), 1, free_port(), {}, [0]) as server:
        shape = search_parameters()
        held = hold(
            Runner(loadgen.Loadgen(), server, [1], KEEP, None), RATE, shape, PARAMETERS, PERIODS, lambda _: None
        )
    return Soak(
        rate=RATE,
        edge=None,
        edge_run=None,
        share=None,
        steps=1,
        pollers=PARAMETERS.pollers,
        period_s=PARAMETERS.period_s,
        periods=[dataclasses.asdict(p) for p in held.periods],
        memory=[list(point) for point in held.memory],
        p99s=[list(point) for point in held.p99s],
        bin_s=PARAMETERS.bin_s,
        ready_s=server.ready_s,
    )


@needs_engine
def test_a_server_that_keeps_bytes_of_every_request_is_flagged_with_the_slope_planted(tmp_path):
    soak = soaked(tmp_path, BYTES)
    measured = soak.measured()
    assert len(measured) == PERIODS - PARAMETERS.warmup_periods
    answered = sum(p.ok for p in measured) / sum(p.seconds for p in measured)
    assert answered == pytest.approx(RATE, rel=0.05)
    assert all(p.polls > 0 and p.poll_p99_ms >= 200 for p in measured), "the long-polls were held beside"
    planted = BYTES * answered * 3600 / 2**20  # MiB an hour
    found = soak.memory_trend()
    assert found.past(PARAMETERS.memory_bound_mib_h)
    assert found.value == pytest.approx(planted, rel=0.2)


@needs_engine
def test_a_server_that_keeps_nothing_is_not_flagged(tmp_path):
    soak = soaked(tmp_path, 0)
    found = soak.memory_trend()
    assert found is not None and not found.past(PARAMETERS.memory_bound_mib_h)
    assert soak.drift() is not None  # what it is depends on the machine's other work in these seconds


NOISE = random.Random(26)


@pytest.mark.parametrize(
    ("per_hour", "noise", "flagged"),
    [
        (0.0, 0.5, False),  # flat, noisy
        (100.0, 0.5, True),  # a leak well past the bound
        (-50.0, 0.5, False),  # shrinking: never flagged
        (25.0, 20.0, False),  # past the bound, but the noise hides it: the interval says so
    ],
)
def test_a_memory_slope_is_flagged_only_when_its_interval_lies_past_the_bound(per_hour, noise, flagged):
    samples = [(t, 500 + per_hour * t / 3600 + NOISE.gauss(0, noise)) for t in range(0, 600, 2)]
    found = trend.memory(samples, bin_s=10)
    assert found.low <= found.value <= found.high
    assert found.past(20) is flagged
    if flagged:
        assert found.value == pytest.approx(per_hour, rel=0.1)


@pytest.mark.parametrize(
    ("grows", "flagged"),
    [(1.0, True), (0.1, False), (-0.5, False), (0.0, False)],  # doubles, +10%, halves, flat
)
def test_p99_drift_is_its_change_over_the_span_fitted_on_its_logarithm(grows, flagged):
    # Over half an hour, with a collector's pauses (x10) now and then: the slope ignores them.
    span = 1800
    points = [(t, 5 * (1 + grows) ** (t / span) * (10 if t % 97 == 0 else 1)) for t in range(span + 1)]
    found = trend.drift(points, bin_s=10)
    assert found.value == pytest.approx(grows, abs=0.05)
    assert found.past(0.25) is flagged


def test_too_few_points_give_no_trend_and_seconds_without_answers_are_left_out():
    assert trend.memory([(0, 1), (10, 2), (20, 3)], bin_s=10) is None
    assert trend.drift([(t, 0.0) for t in range(100)], bin_s=10) is None
    assert trend.binned([(0, 1), (1, 3), (10, 5)], bin_s=10) == [(5.0, 2), (15.0, 5)]
    assert math.isclose(trend.drift([(t, 10.0) for t in range(100)], bin_s=10).value, 0.0, abs_tol=1e-9)


def synthetic(impl: str, leak_mib_h: float, cut_short: bool = False, errors: int = 5, dropped: int = 0) -> Measurement:
    """A stored soak of four one-minute periods, the first a warm-up, whose memory grows as given,
    with `errors` of each period's 6,000 requests failed and `dropped` of its arrivals not sent."""
    periods = [
        Period(
            i,
            60.0 * i,
            60.0,
            i == 0,
            6000,
            6000 - errors,
            errors,
            dropped,
            99.8,
            1.0,
            4.0 + i,
            9.0,
            6000,
            0,
            505.0,
            12.0,
            100.0,
            0.4,
        )
        for i in range(4)
    ]
    soak = Soak(
        rate=20.0,
        edge=28.6,
        edge_run="20261127-000000",
        share=0.7,
        steps=5,
        pollers=100,
        period_s=60.0,
        periods=[dataclasses.asdict(p) for p in periods],
        memory=[[t, 100 + leak_mib_h * t / 3600] for t in range(0, 240, 2)],
        p99s=[[t, 4.0 * 1.75 ** ((t - 60) / 179)] for t in range(60, 240)],
        bin_s=10.0,
        ready_s=0.5,
        cut_short=cut_short,
    )
    flags = tables.trend_flags(soak, load())
    return Measurement("soak", impl, "soak", '{"share": 0.7}', 1, 0, Outcome.MEASURED, flags=flags, payload=soak)


def test_the_report_gives_each_runtime_its_trends_flags_and_timelines():
    leaking, flat = synthetic("leaky", 600.0), synthetic("flat", 0.0)
    made = tables.report("soak", [leaking, flat], [], load())
    (section,) = made.sections
    rows = {row.cells[0].text: row for row in section.table.rows}
    assert "memory-grows" in rows["leaky"].flags and "memory-grows" not in rows["flat"].flags
    # 4 ms → 7 ms over three minutes, +75%: past the bound of +25%, but not four times past it, in
    # fewer measured periods than a drift needs.
    assert "p99-drifts" not in rows["flat"].flags and rows["flat"].cells[12].text.endswith("too short to tell")
    longer = dataclasses.replace(parameters := load(), trend_periods=3)
    assert tables.trend_flags(flat.payload, longer) == ["p99-drifts"]
    assert tables.trend_flags(flat.payload, dataclasses.replace(parameters, far_beyond=2.5)) == ["p99-drifts"]
    assert rows["leaky"].cells[11].text.startswith("+600.0 [")
    assert [chart.title for chart in section.charts] == [
        "Resident memory of the server's processes",
        "The arrivals' p99 in each period",
    ]
    memory, p99 = section.charts
    assert all(series.dashed_before == 1.0 for series in memory.series)  # the warm-up's end
    assert all(series.dashed_before == 1.5 for series in p99.series)  # the first measured period's point
    assert p99.y_scale == "linear"  # 4 to 7 ms: within a decade
    assert "| leaky | 1 | 1 | 20 (70%) |" in markdown.report(made)
    values = leaking.payload.exported()
    assert values["memory_slope_mib_h"] == pytest.approx(600.0)
    assert values["p99_drift"] == pytest.approx(0.75, abs=0.02)
    assert values["measured_minutes"] == 3.0 and values["error_ratio"] == pytest.approx(5 / 6000)
    assert "errors" not in rows["leaky"].flags  # 0.08%: within the bound of 0.1%


def test_a_server_that_stops_answering_is_flagged_though_its_memory_and_p99_hold_still():
    """Java's acceptor thread died of OutOfMemoryError in a soak: every request after failed, its memory
    stayed flat and no answer gave a p99 that could drift."""
    stopped = synthetic("stopped", 0.0, errors=6000)
    assert "errors" in stopped.flags and "memory-grows" not in stopped.flags
    assert "no answer measured, errors 100.00%" in soak_measure.outcome(stopped)
    assert stopped.payload.exported()["p99_ms"] is None  # not a p99 of 0 ms
    behind = synthetic("behind", 0.0, errors=0, dropped=2)  # 10 of 6,000 requests never sent
    assert "errors" in behind.flags and behind.payload.error_ratio() == pytest.approx(10 / 6010)


def test_a_rate_is_a_share_of_what_the_newest_capacity_run_sustained_found_or_not():
    """A search that ran out of probes (a JVM still speeding up) sustained a rate as surely as one that
    found its edge: its soak takes a share of that lower bound, and says so; a start that sustained
    nothing gives no rate."""
    store = Store()

    def capacity(name: str, searches: dict[str, list[tuple[str, float | None]]]) -> None:
        run = store.start_run(name, "capacity", {"kind": "capacity"}, {"cores": 2}, "abc", False)
        for impl, starts in searches.items():
            for rep, (ended, edge) in enumerate(starts):
                search = CapacitySearch(ended, edge, None, {"p99_ms": 20}, 5, None, [], 0.1, None)
                store.add(run.id, Measurement("capacity", impl, "mix", "{}", 1, rep, Outcome.MEASURED, payload=search))

    capacity("older", {"java": [("found", 300.0)], "node": [("found", 250.0)]})
    capacity("newer", {"go": [("found", 1000.0), ("found", 1100.0), ("found", 900.0)], "java": [("unfinished", 908.0)]})
    capacity("newest", {"node": [("below min_rate", None)]})
    found = edges.stored(store, "mix")
    store.close()
    assert found[("go", 1)] == edges.Edge(1000.0, "newer", "found")
    assert found[("java", 1)] == edges.Edge(908.0, "newer", "unfinished")
    assert found[("node", 1)] == edges.Edge(250.0, "older", "found")  # the newest run's start sustained nothing
    java = dataclasses.replace(synthetic("java", 0.0).payload, edge=908.0, edge_ended="unfinished")
    held = Measurement("soak", "java", "soak", "{}", 1, 0, Outcome.MEASURED, payload=java)
    (section,) = tables.report("soak", [held], [], load()).sections
    assert "java cpus=1: its edge's search ended unfinished" in " ".join(section.notes)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["soak", "--minutes", "1"], "--minutes 1: at least 2 (a warm-up period and one measured)"),
        (["soak", "--rate", "0"], "--rate 0: give arrivals a second above 0"),
        (["soak", "--share", "1.5"], "--share 1.5: give a share of the edge in (0, 1]"),
        (["soak", "--cpus", "99"], "--cpus 99: this machine gives Arena"),
        (["soak", "--assert", "soak:p99_ms"], "--assert"),
    ],
)
def test_bad_options_are_refused_in_one_line_before_anything_is_measured(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "measuring it first" not in err


def test_the_capacity_run_a_soak_needs_first_is_the_plan_its_own_command_would_make():
    """Where no edge is stored, `arena soak` runs capacity first: one start of the soak's workload on
    the soak's budgets, built as a value, the same plan as the command a person would type."""
    workload = load().workload
    first = soak_plan.edges_first(["go"], workload, cli.parser().parse_args(["soak", "--cpus", "1"]))
    typed = ["capacity", "--impl", "go", "--workload", workload, "--cpus", "1", "--repeat", "1"]
    assert first == CapacityKind().plan(cli.parser().parse_args(typed))
