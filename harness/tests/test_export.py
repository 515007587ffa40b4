"""`arena export`: a stored run as the JSON and CSV of spec/export.md, read back as a script would:
every measurement with its values, summaries over the repetitions that count, capacity rows with
the edge's median, interval and engine-bound flag."""

import csv
import io
import json

import pytest

from arena.capacity.result import CapacitySearch
from arena.cli import main as cli
from arena.measured import importing
from arena.measured import store as store_module
from arena.measured.measurement import Measurement, Outcome
from arena.measured.store import Store
from arena.micro.result import ProgramRun


def search(edge: float, ended: str = "found") -> CapacitySearch:
    probe = {
        "rate": edge,
        "passed": True,
        "reasons": [],
        "engine_bound": False,
        "steady": True,
        "tries": 1,
        "window_s": 2.0,
        "offered": round(edge * 2),
        "ok_requests": round(edge * 2),
        "requests": round(edge * 2),
        "errors": 0,
        "dropped": 0,
        "ok_rps": edge,
        "p50_ms": 0.4,
        "p99_ms": 3.0,
        "p999_ms": 5.0,
        "max_ms": 6.0,
        "warmup_s": 1.5,
        "engine_busy": 0.5,
        "engine_cpu_s": 1.0,
        "server_cpu_s": 1.0,
        "server_peak_rss_kb": 20480,
    }
    return CapacitySearch(ended, edge, edge * 1.02, {"p99_ms": 10}, 1, None, [probe], 0.1, None)


def stored(tmp_path, go: tuple[float, ...] = (1000.0, 1040.0, 980.0), workload: str = "plaintext") -> str:
    store = Store()
    run = store.start_run("r1", "", {"kind": "capacity", "suite": ""}, {"cores": 2}, "abc", False)
    point = json.dumps({"p99_ms": 10})
    for rep, edge in enumerate(go):
        store.add(
            run.id, Measurement("capacity", "go", workload, point, 1, rep, Outcome.MEASURED, payload=search(edge))
        )
    bound = search(5000.0, "engine-bound")
    store.add(
        run.id,
        Measurement(
            "capacity", "rust", "plaintext", point, 1, 0, Outcome.MEASURED, flags=["engine-bound"], payload=bound
        ),
    )
    store.add(run.id, Measurement("capacity", "java", "plaintext", point, 1, 0, Outcome.FAILED, reason="gone"))
    store.finish_run(run.id)
    store.close()
    return "r1"


def test_json_holds_every_measurement_and_a_summary_per_point(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    assert cli.main(["export", stored(tmp_path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schema"] == "arena.export/3" and document["run"]["name"] == "r1"
    assert document["run"]["finished"] is not None and document["run"]["kind"] == "capacity"
    assert len(document["measurements"]) == 5
    first = document["measurements"][0]
    assert first["point"] == {"p99_ms": 10} and first["values"]["edge"] == 1000.0
    assert first["values"]["cpu_s_per_1k_ok"] == 0.5 and first["payload"]["probes"][0]["rate"] == 1000.0
    summaries = {s["impl"]: s for s in document["summaries"]}
    go = summaries["go"]["values"]["edge"]
    assert go["median"] == 1000.0 and go["n"] == 3 and go["low"] < 1000.0 < go["high"]
    assert summaries["go"]["flags"] == []  # a CV of 3%
    rust = summaries["rust"]["values"]["edge"]
    assert summaries["rust"]["flags"] == ["engine-bound"] and rust["median"] == 5000
    # One start, past the engine: no interval, but at least what it sustained, as the table's "≥".
    assert (rust["n"], rust["low"], rust["high"], rust["bound"]) == (1, 5000.0, None, "at least")
    assert summaries["java"]["counted"] == 0 and summaries["java"]["values"] == {}


def test_a_summary_whose_main_number_varies_by_more_than_a_tenth_is_noisy(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    assert cli.main(["export", stored(tmp_path, go=(1000.0, 1400.0, 700.0))]) == 0
    summaries = {s["impl"]: s for s in json.loads(capsys.readouterr().out)["summaries"]}
    assert summaries["go"]["flags"] == ["noisy"] and summaries["go"]["values"]["edge"]["cov"] > 0.1


def test_work_the_cpu_bounds_is_noisy_past_its_own_bound(tmp_path, monkeypatch, capsys):
    """spec/capacity.toml holds compute to a CV of 5%: 7% flags it there and not on plaintext."""
    edges = (1000.0, 1080.0, 940.0)
    for workload, flags in (("plaintext", []), ("compute", ["noisy"])):
        monkeypatch.setattr(store_module, "RESULTS", tmp_path / workload)
        assert cli.main(["export", stored(tmp_path, edges, workload)]) == 0
        go = next(s for s in json.loads(capsys.readouterr().out)["summaries"] if s["impl"] == "go")
        assert 0.05 < go["values"]["edge"]["cov"] < 0.1 and go["flags"] == flags


def test_csv_rows_per_measurement_or_per_summary(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    name = stored(tmp_path)
    out = tmp_path / "r1.csv"
    assert cli.main(["export", name, "--format", "csv", "--out", str(out)]) == 0
    assert f"5 measurement(s) as csv in {out}" in capsys.readouterr().out
    rows = list(csv.DictReader(out.open()))
    assert [r["impl"] for r in rows] == ["go", "go", "go", "rust", "java"]
    assert rows[3]["flags"] == '["engine-bound"]' and rows[4]["outcome"] == "failed" and rows[4]["edge"] == ""
    assert cli.main(["export", name, "--format", "csv", "--rows", "summaries"]) == 0
    summary = {r["impl"]: r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert float(summary["go"]["edge.median"]) == 1000.0 and float(summary["go"]["edge.low"]) < 1000.0


def test_other_kinds_export_their_own_values(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    store = Store()
    run = store.start_run("m1", "quick", {"kind": "micro"}, {}, "abc", False)
    done = ProgramRun({"us_per_hop": 0.2}, {"laps": 3}, 0.1, 0.3, 0.1, 900, "", {"steady": True, "seconds": 0.5})
    store.add(run.id, Measurement("micro", "go", "ring", '{"procs": 1000}', 1, 0, Outcome.MEASURED, payload=done))
    store.close()
    assert cli.main(["export", "m1"]) == 0
    (m,) = json.loads(capsys.readouterr().out)["measurements"]
    assert m["values"] == {
        "us_per_hop": 0.2,
        "elapsed_s": 0.1,
        "wall_s": 0.3,
        "cpu_s": 0.1,
        "cores_busy": pytest.approx(1 / 3),  # its CPU time over its wall time
        "peak_rss_kb": 900,
        "steady": True,
        "warmup_s": 0.5,
    }


def test_an_export_of_an_older_schema_imports_as_this_one_names_it(tmp_path, monkeypatch, capsys):
    """Version 2 gave a capacity run its kind's name as its suite, version 1 named the REST kind
    `http`: each reads as version 3 writes it (spec/export.md, "Versions")."""
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    assert cli.main(["export", stored(tmp_path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["schema"] == "arena.export/3" and document["run"]["suite"] == ""
    document["schema"] = "arena.export/2"
    document["run"]["suite"] = document["run"]["plan"]["suite"] = "capacity"
    (tmp_path / "v2.json").write_text(json.dumps(document))
    elsewhere = Store(tmp_path / "elsewhere.sqlite")
    try:
        run, count = importing.into(elsewhere, tmp_path / "v2.json")
        assert (run.kind, run.suite, run.plan["suite"], count) == ("capacity", "", "", 5)
        assert elsewhere.run_by_name("r1").suite == ""
    finally:
        elsewhere.close()


def test_a_run_that_is_not_there_or_a_file_that_cannot_be_written_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store_module, "RESULTS", tmp_path)
    assert cli.main(["export", "nope"]) == 2
    assert "arena: no run named nope in" in capsys.readouterr().err
    stored(tmp_path)
    assert cli.main(["export", "--out", str(tmp_path / "no" / "such" / "dir.json")]) == 1
    err = capsys.readouterr().err
    assert "arena: cannot write" in err and "Traceback" not in err
