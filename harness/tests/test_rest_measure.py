"""REST measurements: the fake server under the real load engine — warm-ups that settle, one that
never does, a slow cold start — and under fake engines that report what a real one might (a
saturated engine, a failed run)."""

import time
from dataclasses import dataclass

import pytest

from arena.engines import loadgen
from arena.engines.interface import EngineError, EngineRun
from arena.frame.starts import Starts, start_settings
from arena.host.process import free_port, running
from arena.impls import catalog
from arena.kind import Task
from arena.measured.export import counted_values
from arena.measured.measurement import Outcome
from arena.rest import measure
from arena.rest.result import RestResult, counted
from arena.rest.scenarios import Scenario, ScenarioPoint
from conftest import needs_engine, write_manifest


def fixed_point(
    requests: int,
    max_s: float = 4,
    slice_s: float = 0.4,
    rps_tolerance: float = 0.05,
    path: str = "/work",
    count_unsteady: bool = False,
    own_start: bool = False,
    keep_alive: bool = False,
) -> ScenarioPoint:
    scenario = Scenario(
        id="fake-work",
        seed="test",
        source="test",
        title=f"GET {path} on the fake server",
        reported_as="req/s",
        steps=[{"name": "work", "method": "GET", "path": path, "expect": [200]}],
        profiles={
            "quick": {
                "model": {"kind": "fixed", "concurrency": 2, "keep_alive": keep_alive},
                # Three slices must agree: this server's batches are a few tens of ms, noisy enough
                # that two agree by chance before it is fast.
                "warmup": {"slice_s": slice_s, "max_s": max_s, "window": 3, "rps_tolerance": rps_tolerance},
                "count_unsteady": count_unsteady,
                "own_start": own_start,
            }
        },
    )
    return ScenarioPoint(scenario, "quick", 0, {"requests": requests})


def task(
    manifest,
    requests: int = 300,
    max_s: float = 4,
    slice_s: float = 0.4,
    repetition: int = 0,
    rps_tolerance=0.05,
    path: str = "/work",
    keep_alive: bool = False,
) -> Task:
    point = fixed_point(requests, max_s, slice_s, rps_tolerance, path, keep_alive=keep_alive)
    return Task("rest", manifest, point, 1, repetition, 1.0)


def measured(task: Task, engine, starts: Starts | None = None):
    """One measurement on a start of its own, or on `starts` (left running for the next)."""
    if starts is not None:
        return measure.measure(task, engine, None, starts)
    own = Starts(start_settings([task.point]))
    try:
        return measure.measure(task, engine, None, own)
    finally:
        own.close()


@needs_engine
def test_measure_records_engine_server_and_provenance(fake):
    m = measured(task(fake), loadgen.Loadgen())
    assert m.outcome is Outcome.MEASURED, m.reason
    result: RestResult = m.payload
    assert result.metrics["requests"] == 300
    assert result.metrics["ok_requests"] == 300
    assert result.metrics["rps"] > 0
    assert result.histograms["*"].startswith("HISTF")
    assert result.server_cpu_s > 0
    assert result.server_peak_rss_kb > 1000
    assert result.engine_cpu_s > 0
    assert m.versions["engine"].startswith("arena-loadgen")
    assert m.parameters["server_cores"] != m.parameters["engine_cores"]
    assert "errors" not in m.flags and "crashed" not in m.flags and "unsteady" not in m.flags
    assert result.warmup["steady_s"] is not None and len(result.warmup["slices"]) >= 3
    assert 0 < result.ready_s < 5


@needs_engine
def test_a_server_that_warms_up_is_measured_once_fast(tmp_path):
    """Slow (20 ms an answer) for its first second, then fast. A slice of 0.6 s: the first is all
    slow, the second mostly fast, so the first window cannot pass for steady. The band is wide
    (25%): slow and fast differ a hundredfold, while a fast Python server's batches on a busy
    machine differ by more than 5%."""
    warming = catalog.parse(write_manifest(tmp_path, "warming", extra_env=', FAKE_SLOW_FOR_S = "1.0"'))
    m = measured(task(warming, slice_s=0.6, rps_tolerance=0.25), loadgen.Loadgen())
    warm = m.payload.warmup
    assert warm["classification"] == "warm-up" and warm["steady_at"] >= 1, warm
    assert warm["slices"][0]["p50_ms"] >= 20 and warm["steady_s"] >= 0.5
    assert m.payload.metrics["p50_ms"] < 10  # measured after the slow phase, not during it
    assert "unsteady" not in m.flags


@needs_engine
def test_a_server_that_never_settles_is_flagged_unsteady(tmp_path):
    drifting = catalog.parse(write_manifest(tmp_path, "drifting", extra_env=', FAKE_DRIFT = "1"'))
    # Few requests: past the warm-up each takes 200 ms (100 of them made this test last 13 s).
    m = measured(task(drifting, 10, max_s=2), loadgen.Loadgen())
    assert m.measured and "unsteady" in m.flags
    assert m.payload.warmup["classification"] == "no steady state" and m.payload.warmup["steady_s"] is None
    # Bounded: no batch of the warm-up starts past max_s (an ever slower server makes each one
    # longer than the last, so the last may end later).
    assert m.payload.warmup["slices"][-1]["seconds"] <= 2


@needs_engine
def test_a_point_that_counts_unsteady_repetitions_flags_them_never_steady_and_counts_them(tmp_path):
    drifting = catalog.parse(write_manifest(tmp_path, "drifting", extra_env=', FAKE_DRIFT = "1"'))
    point = fixed_point(10, max_s=2, count_unsteady=True)
    m = measured(Task("rest", drifting, point, 1, 0, 1.0), loadgen.Loadgen())
    assert m.measured and m.flags == ["never-steady"], m.flags
    assert m.payload.warmup["classification"] == "no steady state"
    assert counted(m) and counted_values([m], "rps") == [m.payload.metrics["rps"]]


def test_the_cold_start_of_a_slow_starter_is_timed_within_a_tenth_of_a_second(tmp_path):
    """The first correct answer is polled every 10 ms; the interpreter's own start (~50 ms here)
    is part of the cold start, so the tolerance is 0.1 s on top of the 1 s sleep."""
    slow = catalog.parse(write_manifest(tmp_path, "slow_start", extra_env=', FAKE_START_SLEEP = "1.0"'))
    with running(slow, 1, free_port()) as server:
        assert 1.0 <= server.ready_s <= 1.1 + 0.15, server.ready_s


@needs_engine
def test_the_engine_validates_scenarios_and_plans_their_length(tmp_path):
    engine = loadgen.Loadgen()
    point = fixed_point(10)
    assert engine.check(point.engine_scenario(1, 1, None, None)) is None  # a fixed count: only the run tells
    document = point.engine_scenario(1, 1, None, None)
    document["model"] = {"kind": "open", "rate": 2, "iterations": 50}
    assert engine.check(document) == 25.0
    document["model"] = {"kind": "sideways"}
    with pytest.raises(EngineError, match=r"the engine refuses the scenario: .*sideways"):
        engine.check(document)


def canned(requests: int, cpu_s: float, wall_s: float = 1.0) -> EngineRun:
    """What an engine reports for `requests` answered GET / within a second."""
    latency = {"min": 100, "mean": 200.0, "stdev": 10.0, "max": 900}
    latency |= {f"p{p}": 200 for p in (50, 66, 75, 80, 90, 95, 98, 99, 999)}
    errors = {"connect": 0, "timeout": 0, "reset": 0, "status": 0, "content": 0, "other": 0}
    step = {"name": "root", "count": requests, "ok": requests, "latency_us": latency, "histogram": "HISTFAKE"}
    result = {
        "elapsed_s": 1.0,
        "requests": {"total": requests, "ok": requests, "errors": errors},
        "throughput_rps": float(requests),
        "ok_rps": float(requests),
        "iterations": {"started": requests, "completed": requests, "dropped": 0, "cancelled": 0},
        "steps": [step],
        "all": step,
        "series": [{"t": 0, "completed": requests, "ok": requests, "errors": 0, "p50_us": 200, "p99_us": 200}],
        "first_last_us": None,
        "scenario": {"model": {"kind": "fixed", "requests": requests, "concurrency": 2}},
        "achieved_arrival_rate": None,
        "started_unix_ms": round(time.time() * 1000) - 1000,
        "warmup": {
            "slice_s": 0.1,
            "seconds": 0.3,
            "steady_at": 0,
            "measured_from_s": 0.3,
            "slices": [
                {"t_s": t / 10, "ok_rps": 10.0, "p50_ms": 0.2, "p99_ms": 0.2, "error_ratio": 0.0} for t in range(3)
            ],
        },
    }
    return EngineRun(result, cpu_s, wall_s, "fake 1")


@dataclass
class FakeEngine:
    """An engine that answers with a canned run, or fails."""

    run_result: EngineRun | None
    name: str = "fake"

    def ensure(self, toolchains) -> None:
        pass

    def check(self, scenario: dict) -> float | None:
        return None

    def run(self, scenario: dict, cores: list[int], timeout: float) -> EngineRun:
        if self.run_result is None:
            raise EngineError("the engine exited 1: fake failure")
        return self.run_result or canned(50, 0.1)


def test_a_saturated_engine_flags_the_point_engine_bound(fake):
    m = measured(task(fake), FakeEngine(canned(5000, cpu_s=0.95)))
    assert m.measured and "engine-bound" in m.flags
    assert m.versions["engine"] == "fake 1" and m.payload.metrics["rps"] == 5000
    relaxed = measured(task(fake), FakeEngine(canned(5000, cpu_s=0.3)))
    assert "engine-bound" not in relaxed.flags


def test_an_engine_failure_is_a_failed_point_with_the_reason(fake):
    m = measured(task(fake), FakeEngine(None))
    assert m.outcome is Outcome.FAILED and m.payload is None
    assert m.reason == "the engine exited 1: fake failure"


def test_a_server_that_fails_to_start_is_recorded_as_crashed(tmp_path):
    crashing = catalog.parse(write_manifest(tmp_path, "crash", extra_env=', FAKE_CRASH = "1"'))
    m = measured(task(crashing, 10), FakeEngine(canned(10, 0.1)))
    assert m.outcome is Outcome.FAILED and "crashed" in m.flags
    assert "exited with status 3" in m.reason
    assert measure.outcome(m).startswith("FAILED: ")


def test_a_repetition_shares_one_start_and_a_failure_or_the_next_repetition_starts_anew(fake):
    starts = Starts(start_settings([fixed_point(10)]))
    try:
        first = measured(task(fake, 10), FakeEngine(canned(10, 0.1)), starts)
        pid = starts.current.server.process.pid
        second = measured(task(fake, 10), FakeEngine(canned(10, 0.1)), starts)
        assert starts.current.server.process.pid == pid  # the same process served both points
        assert (first.payload.points_before, second.payload.points_before) == (0, 1)
        assert second.payload.process_age_s > first.payload.process_age_s >= first.payload.ready_s
        assert second.parameters["start"]["points_before"] == 1
        failed = measured(task(fake, 10), FakeEngine(None), starts)
        assert failed.outcome is Outcome.FAILED and starts.current is None  # stopped, not reused
        again = measured(task(fake, 10), FakeEngine(canned(10, 0.1)), starts)
        assert again.payload.points_before == 0 and starts.current.server.process.pid != pid
        pid = starts.current.server.process.pid
        nxt = measured(task(fake, 10, repetition=1), FakeEngine(canned(10, 0.1)), starts)
        assert nxt.payload.points_before == 0 and starts.current.server.process.pid != pid
    finally:
        starts.close()
    assert starts.current is None


@pytest.mark.parametrize("own_start", [False, True])
def test_a_point_that_asks_for_its_own_start_shares_none(fake, own_start):
    busiest, lighter = fixed_point(20, own_start=own_start), fixed_point(10, own_start=own_start)
    starts = Starts(start_settings([busiest, lighter]))
    try:
        pids = []
        for point in (busiest, lighter):
            m = measured(Task("rest", fake, point, 1, 0, 1.0), FakeEngine(canned(10, 0.1)), starts)
            assert m.measured, m.reason
            pids.append(starts.current.server.process.pid)
        assert m.payload.points_before == (0 if own_start else 1)
        assert (pids[0] != pids[1]) is own_start
    finally:
        starts.close()


def test_points_of_one_start_get_every_setting_unless_their_values_differ():
    def point(name: str, settings: dict) -> ScenarioPoint:
        scenario = Scenario(name, "t", "t", "t", "t", [], {"quick": {"model": {}, "settings": settings}})
        return ScenarioPoint(scenario, "quick", 0, {})

    a, b, c = point("a", {"X": "1"}), point("b", {"Y": "2", "Z": "1"}), point("c", {"Y": "3"})
    settings = start_settings([a, b, c])
    assert settings[("a", "{}")] == {"X": "1", "Z": "1"}  # Y differs between b and c: a gets neither
    assert settings[("b", "{}")] == {"X": "1", "Y": "2", "Z": "1"}
    assert settings[("c", "{}")] == {"X": "1", "Y": "3", "Z": "1"}
