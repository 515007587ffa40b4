import json
import sqlite3

from arena.measured.measurement import Measurement, Outcome
from arena.measured.store import SCHEMA_VERSION, Store
from arena.micro.result import ProgramRun, SpawnSearch
from arena.rest.result import RestResult


def measurement(rep: int) -> Measurement:
    result = RestResult({"rps": 10.0 + rep}, {"*": "HIST"}, [{"t": 0}], 1.0, 1000, 0.5)
    return Measurement(
        kind="rest",
        impl="go",
        experiment="blog-ab",
        point='{"requests": 10}',
        cpus=1,
        repetition=rep,
        outcome=Outcome.MEASURED,
        versions={"runtime": "x"},
        payload=result,
    )


def test_measurements_survive_and_name_what_is_done(tmp_path):
    db = Store(tmp_path / "a.sqlite")
    run = db.start_run("r1", "quick", {"repeat": 2}, {"cores": 2}, "abc", False)
    db.add(run.id, measurement(0))
    failed = Measurement("rest", "go", "blog-ab", '{"requests": 10}', 1, 1, Outcome.FAILED, "gone", flags=["crashed"])
    db.add(run.id, failed)
    db.close()

    again = Store(tmp_path / "a.sqlite")
    assert again.last_unfinished("rest").name == "r1"
    assert again.done_keys(run.id) == {m.key for m in (measurement(0), failed)}
    assert again.measurements(run.id) == [measurement(0), failed]
    again.finish_run(run.id)
    assert again.last_unfinished("rest") is None


OLD_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, started REAL NOT NULL, finished REAL,
    suite TEXT NOT NULL, plan TEXT NOT NULL, host TEXT NOT NULL, git_commit TEXT NOT NULL, git_dirty INTEGER NOT NULL);
CREATE TABLE measurements (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, kind TEXT NOT NULL, impl TEXT NOT NULL,
    experiment TEXT NOT NULL, point TEXT NOT NULL, cpus INTEGER NOT NULL, repetition INTEGER NOT NULL,
    created REAL NOT NULL, versions TEXT NOT NULL, parameters TEXT NOT NULL, metrics TEXT NOT NULL,
    histograms TEXT NOT NULL, series TEXT NOT NULL, server_cpu_s REAL, server_peak_rss_kb INTEGER, engine_cpu_s REAL,
    flags TEXT NOT NULL, UNIQUE (run_id, kind, impl, experiment, point, cpus, repetition));
CREATE TABLE notes (run_id INTEGER NOT NULL, text TEXT NOT NULL, UNIQUE (run_id, text));
"""


def test_a_store_from_before_typed_outcomes_is_upgraded(tmp_path):
    """Schema 0 said how a measurement ended by sentinel keys in `metrics`; each becomes an outcome."""
    path = tmp_path / "old.sqlite"
    old = sqlite3.connect(path)
    old.executescript(OLD_SCHEMA)
    old.execute("INSERT INTO runs VALUES (1, 'r0', 0, 1, 'quick', '{\"kind\": \"micro\"}', '{}', 'abc', 0)")
    rows = [
        ("http", {"rps": 5.0}, [], {"*": "HISTF"}, 2.0, 3000, 0.4, []),
        ("http", {"failure": "server exited"}, [], {}, None, None, None, ["crashed"]),
        (
            "micro",
            {"us_per_hop": 0.2, "elapsed_s": 0.1, "wall_s": 0.3, "check": {"laps": 3}},
            [],
            {},
            0.1,
            900,
            None,
            [],
        ),
        ("micro", {"failure": "exited with status 1: no", "log": "x.log"}, [], {}, 0.1, 900, None, ["failed"]),
        ("micro", {"failure": "not run: failed at procs=10000", "not_run": True}, [], {}, None, None, None, ["failed"]),
        (
            "micro",
            {
                "max_procs": 4000,
                "budget_mb": 150,
                "stopped_by": "8,000 processes: over",
                "us_per_spawn": 2.0,
                "bytes_per_process": 20000,
            },
            [{"procs": 1000}],
            {},
            None,
            None,
            None,
            [],
        ),
    ]
    for i, (kind, metrics, series, histograms, cpu, rss, engine, flags) in enumerate(rows):
        old.execute(
            "INSERT INTO measurements VALUES (?, 1, ?, 'go', 'e', ?, 1, 0, 0, '{}', '{\"mode\": \"idiomatic\"}', "
            "?, ?, ?, ?, ?, ?, ?)",
            (
                i + 1,
                kind,
                str(i),
                json.dumps(metrics),
                json.dumps(histograms),
                json.dumps(series),
                cpu,
                rss,
                engine,
                json.dumps(flags),
            ),
        )
    old.commit()
    old.close()

    upgraded = Store(path)
    http, crashed, ran, failed, not_run, search = upgraded.measurements(1)
    assert http.measured and http.payload == RestResult({"rps": 5.0}, {"*": "HISTF"}, [], 2.0, 3000, 0.4)
    assert http.kind == "rest"  # named "http" then
    assert crashed.outcome is Outcome.FAILED and crashed.reason == "server exited" and crashed.flags == ["crashed"]
    assert ran.payload == ProgramRun({"us_per_hop": 0.2}, {"laps": 3}, 0.1, 0.3, 0.1, 900, "")
    assert failed.outcome is Outcome.FAILED and failed.flags == [] and failed.payload.log == "x.log"
    assert not_run.outcome is Outcome.NOT_RUN and not_run.reason == "failed at procs=10000"
    assert search.payload == SpawnSearch(4000, 150, "8,000 processes: over", 2.0, 20000, [{"procs": 1000}])
    assert upgraded.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert upgraded.last_run().finished == 1 and upgraded.last_run().interrupted is None
    upgraded.close()
    assert len(Store(path).measurements(1)) == 6  # opening it again changes nothing


def test_a_store_from_before_runs_recorded_an_interruption_is_upgraded(tmp_path):
    """Schema 1 had no `interrupted` column: its runs read as never interrupted, and can be marked."""
    path = tmp_path / "v1.sqlite"
    db = Store(path)
    run = db.start_run("r1", "quick", {"kind": "rest"}, {}, "abc", False)
    db.db.executescript("ALTER TABLE runs DROP COLUMN interrupted; PRAGMA user_version = 1;")
    db.close()

    upgraded = Store(path)
    assert upgraded.run_by_name("r1").interrupted is None
    upgraded.interrupt_run(run.id)
    assert upgraded.run_by_name("r1").interrupted is not None
    assert upgraded.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    upgraded.close()


def test_a_store_from_before_runs_counted_their_stops_is_upgraded(tmp_path):
    """Schema 2 had no `paused` column: its runs read as never stopped."""
    path = tmp_path / "v2.sqlite"
    db = Store(path)
    db.start_run("r1", "quick", {"kind": "rest"}, {}, "abc", False)
    db.db.executescript("ALTER TABLE runs DROP COLUMN paused; PRAGMA user_version = 2;")
    db.close()
    upgraded = Store(path)
    assert upgraded.run_by_name("r1").paused == 0.0
    assert upgraded.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    upgraded.close()


def test_a_store_from_while_the_rest_kind_was_named_http_reads_it_by_its_name_now(tmp_path):
    """Schema 3 stored the REST scenarios as kind `http`, their payload as `HttpResult`: both read
    as `rest` and `RestResult`, a run that named no kind is a REST run, and the other kinds stay."""
    path = tmp_path / "v3.sqlite"
    db = Store(path)
    http = db.start_run("h", "quick", {"kind": "rest", "scenario": ["blog-ab"]}, {}, "abc", False)
    db.add(http.id, measurement(0))
    db.start_run("m", "quick", {"kind": "micro"}, {}, "abc", False)
    with db.db:
        db.db.execute("UPDATE runs SET plan = json_set(plan, '$.kind', 'http') WHERE id = ?", (http.id,))
        db.db.execute("UPDATE measurements SET kind = 'http', payload = replace(payload, 'RestResult', 'HttpResult')")
        given = "INSERT INTO runs (name, started, suite, plan, host, git_commit, git_dirty) VALUES (?,?,?,?,?,?,?)"
        db.db.execute(given, ("old", 0, "quick", "{}", "{}", "abc", 0))
        db.db.execute("PRAGMA user_version = 3")
    db.close()
    upgraded = Store(path)
    assert [r.kind for r in (upgraded.run_by_name(name) for name in ("h", "m", "old"))] == ["rest", "micro", "rest"]
    (m,) = upgraded.measurements(http.id)
    assert m == measurement(0)
    assert upgraded.last_unfinished("rest").name == "old"  # the newest, and a REST run
    upgraded.close()


def test_a_store_from_while_capacity_named_its_kind_as_its_suite_leaves_that_suite_empty(tmp_path):
    """Schema 4 stored a capacity or soak run's kind as its suite: that suite (in the run and in its
    plan) is empty once upgraded, and the profiles of REST and micro runs stay."""
    path = tmp_path / "v4.sqlite"
    db = Store(path)
    db.start_run("c", "capacity", {"kind": "capacity", "suite": "capacity", "workload": []}, {}, "abc", False)
    db.start_run("s", "soak", {"kind": "soak", "suite": "soak"}, {}, "abc", False)
    db.start_run("r", "findings", {"kind": "rest", "suite": "findings"}, {}, "abc", False)
    db.start_run("m", "quick", {"kind": "micro", "suite": "quick"}, {}, "abc", False)
    with db.db:
        db.db.execute("PRAGMA user_version = 4")
    db.close()
    upgraded = Store(path)
    runs = [upgraded.run_by_name(name) for name in ("c", "s", "r", "m")]
    assert [(r.suite, r.plan["suite"]) for r in runs] == [("", ""), ("", ""), ("findings",) * 2, ("quick",) * 2]
    assert runs[0].plan["workload"] == [] and runs[0].kind == "capacity"
    upgraded.close()


def test_a_resumed_run_leaves_the_time_it_stood_stopped_out_of_its_measuring(tmp_path):
    """A machine that restarts records no signal: the stop is counted from the run's last sign of
    life (here its start, an hour ago) to the resume, and its measuring time leaves it out."""
    db = Store(tmp_path / "s.sqlite")
    run = db.start_run("r1", "quick", {"kind": "rest"}, {}, "abc", False)
    with db.db:
        db.db.execute("UPDATE runs SET started = started - 3600 WHERE id = ?", (run.id,))
    resumed = db.resume_run(run.id)
    assert 3600 <= resumed.paused < 3660 and resumed.measuring_s is None
    finished = db.finish_run(run.id)
    assert 0 <= finished.measuring_s < 60
    # A stop recorded by its signal counts from then: the time before it was measuring.
    with db.db:
        db.db.execute("UPDATE runs SET finished = NULL, interrupted = started + 1800 WHERE id = ?", (run.id,))
    assert 3600 + 1800 - 60 < db.resume_run(run.id).paused < 3660 + 1800
    db.close()


def test_only_one_process_measures_at_a_time(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    import arena
    from arena.measured.store import StoreBusy

    path = tmp_path / "a.sqlite"
    code = (
        "import pathlib, time\n"
        "from arena.measured.store import Store\n"
        f"store = Store(pathlib.Path({str(path)!r}))\n"
        "store.claim()\n"
        "print('held', flush=True)\n"
        "time.sleep(30)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(arena.__file__).parents[1])}
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreBusy, match=f"pid {holder.pid}"):
            Store(path).claim()
    finally:
        holder.kill()
        holder.wait()
    Store(path).claim()  # free again once the holder is gone
