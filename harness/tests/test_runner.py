"""A real measurement: the fake server under the real load engine, stored, and not repeated on resume."""

import pytest

from arena import engine, runner
from arena.scenarios import Point, Scenario
from arena.store import Store

pytestmark = pytest.mark.skipif(not engine.BINARY.exists(), reason="the load engine is built by ./arena test first")


def fixed_point(requests: int) -> Point:
    scenario = Scenario(
        id="fake-root",
        seed="test",
        source="test",
        title="GET / on the fake server",
        reported_as="req/s",
        steps=[{"name": "root", "method": "GET", "path": "/", "expect": [200]}],
        profiles={"quick": {"model": {"kind": "fixed", "concurrency": 2, "keep_alive": False}, "warmup": 5}},
    )
    return Point(scenario, "quick", 0, {"requests": requests})


def test_measure_records_engine_server_and_provenance(fake):
    m = runner.measure(runner.Task(fake, fixed_point(300), 1, 0), None)
    assert "failure" not in m.metrics, m.metrics
    assert m.metrics["requests"] == 300
    assert m.metrics["ok_requests"] == 300
    assert m.metrics["rps"] > 0
    assert m.histograms["*"].startswith("HISTF")
    assert m.server_cpu_s is not None and m.server_cpu_s > 0
    assert m.server_peak_rss_kb > 1000
    assert m.engine_cpu_s > 0
    assert m.versions["engine"].startswith("arena-loadgen")
    assert m.parameters["server_cores"] != m.parameters["engine_cores"]
    assert "errors" not in m.flags and "crashed" not in m.flags


def test_a_server_that_fails_to_start_is_recorded_as_crashed(tmp_path):
    from arena import catalog
    from conftest import write_manifest

    crashing = catalog.parse(write_manifest(tmp_path, "crash", extra_env=', FAKE_CRASH = "1"'))
    m = runner.measure(runner.Task(crashing, fixed_point(10), 1, 0), None)
    assert "crashed" in m.flags
    assert "exited with status 3" in m.metrics["failure"]


def test_resume_repeats_nothing(fake, tmp_path, capsys):
    db = Store(tmp_path / "r.sqlite")
    run_id = db.start_run("r", "quick", {}, {}, "x", False)
    tasks = [runner.Task(fake, fixed_point(50), 1, rep) for rep in range(2)]
    runner.execute(db, run_id, tasks[:1], None)
    assert len(db.measurements(run_id)) == 1
    runner.execute(db, run_id, tasks, None)
    assert "1 of 2 measurements already stored" in capsys.readouterr().out
    assert sorted(m.repetition for m in db.measurements(run_id)) == [0, 1]
