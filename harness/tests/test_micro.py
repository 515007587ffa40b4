"""`arena micro` against a throw-away program (fake_micro.py) run as a real process."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from arena.console import Console
from arena.errors import UsageError
from arena.impls import catalog
from arena.impls.catalog import ManifestError
from arena.kind import Task
from arena.measured.measurement import Outcome
from arena.micro import benchmarks, conformance, measure, plan, program, search, tables
from arena.micro.plan import MicroPlan
from arena.report.render import markdown
from conftest import write_impl

FAKE = Path(__file__).with_name("fake_micro.py")


def write_micro(folder: Path, name: str = "fakemicro", env: str = "", extra: str = "") -> Path:
    return write_impl(
        folder,
        name,
        ("micro.py", FAKE.read_text()),
        f"""
        env = {{ {env} }}

        [build]
        steps = [["true"]]

        [cores]
        max = 0
        how = "one thread"
        {extra}
        """,
        top='payload = "shared"',
    )


def row(tmp_path: Path, env: str = "") -> catalog.Manifest:
    return catalog.parse(write_micro(tmp_path, env=env))


def run_once(manifest, arguments, seconds=20.0, memory_kb=None):
    return program.run(manifest, 1, [0], arguments, seconds, memory_kb)


def test_variants_are_rows_of_their_own(tmp_path):
    variant = """
        [[variant]]
        name = "threads"
        framework = "threads"
        run = { command = ["python3", "micro.py", "--threads"] }
        cores = { max = 1, how = "GIL" }
    """
    rows = catalog.parse_rows(write_micro(tmp_path, extra=variant))
    assert [r.name for r in rows] == ["fakemicro", "fakemicro-threads"]
    assert rows[1].max_cpus == 1 and rows[1].payload == "shared" and rows[1].build_key == rows[0].build_key
    assert rows[1].command(1)[-1] == "--threads"


def test_micro_rows_must_say_what_a_send_does(tmp_path):
    path = write_micro(tmp_path)
    path.write_text(path.read_text().replace('payload = "shared"', ""))
    manifests, errors = catalog.load_micro(tmp_path)
    assert manifests == [] and "missing 'payload'" in str(errors[0])
    path.write_text(path.read_text().replace("version =", 'payload = "teleported"\nversion ='))
    with pytest.raises(ManifestError, match="must be one of copied, shared"):
        catalog.parse(path)


def test_an_unavailable_runtime_keeps_its_row_with_the_reason(tmp_path):
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "arena.toml").write_text(
        'name = "gone"\nlanguage = "X"\nruntime = "X 1"\nunavailable = "no package anywhere"\n'
    )
    (gone,) = catalog.load_micro(tmp_path)[0]
    assert gone.unavailable == "no package anywhere"


def test_every_micro_manifest_in_the_repository_parses():
    manifests, errors = catalog.load_micro()
    assert errors == []
    assert "ooerlang" in {m.name for m in manifests if m.unavailable}


def test_a_correct_run_passes_its_checks(tmp_path):
    manifest = row(tmp_path)
    ring = benchmarks.load(["ring"])[0]
    point = benchmarks.BenchPoint(ring, "copy", {"procs": 10, "size": 100, "rounds": 3})
    outcome = run_once(manifest, point.arguments(1))
    assert outcome.ok, outcome.failure
    assert program.problems(outcome.document, point, "shared", 1, 1) == []
    assert outcome.document["warmup"]["iterations"] == 5
    assert outcome.cpu_s is not None and outcome.peak_rss_kb > 0
    # The same document is wrong for another run: the harness compares, it does not trust.
    other = benchmarks.BenchPoint(ring, "copy", {**point.params, "rounds": 4})
    assert program.problems(outcome.document, other, "shared", 1, 1)
    assert program.problems(outcome.document, point, "shared", 2, 1) == ["cpus is 1, expected 2"]
    assert program.problems(outcome.document, point, "shared", 1, 0) == [
        "warmup ran iterations although --warmup-s 0 asked for none"
    ]


@pytest.mark.parametrize(
    ("series", "steady"),
    [
        ([], False),
        ([1.0, 1.0, 1.0, 1.0], False),  # fewer than five
        ([9.0, 1.0, 1.0, 1.0, 1.0, 1.0], True),  # only the last five count
        ([10.0, 10.0, 11.0, 9.0, 10.0], True),  # ±10% of the median, boundaries included
        ([10.0, 10.0, 10.0, 10.0, 11.5], False),
        ([0.0] * 5, True),
    ],
)
def test_the_warmup_rule_is_the_specs(series, steady):
    assert program.steady(series) is steady


def test_a_program_that_calls_itself_steady_when_it_is_not_fails(tmp_path):
    manifest = row(tmp_path, env='FAKE_UNSTEADY = "1"')
    pingpong = benchmarks.BenchPoint(benchmarks.load(["pingpong"])[0], "idiomatic", {"size": 100, "rounds": 10})
    _, failure = program.run_point(manifest, 1, pingpong, 20, 100_000, 1)
    assert "warmup.steady is True, but the rule applied to its series says False" in failure


def test_lost_messages_fail_the_check(tmp_path):
    manifest = row(tmp_path, env='FAKE_MISCOUNT = "-1"')
    outcome = run_once(manifest, ["pingpong", "--rounds", "100"])
    pingpong = benchmarks.BenchPoint(benchmarks.load(["pingpong"])[0], "idiomatic", {"size": 5000, "rounds": 100})
    assert program.problems(outcome.document, pingpong, "shared", 1, 10) == ["check.round_trips is 99, expected 100"]


def test_time_and_memory_bounds_stop_the_program(tmp_path):
    slow = row(tmp_path, env='FAKE_SLEEP = "30"')
    outcome = run_once(slow, ["pingpong"], seconds=0.5)
    assert not outcome.ok and "time bound of 0.5 s" in outcome.failure and outcome.wall_s < 10
    hog = catalog.parse(write_micro(tmp_path, "hog", env='FAKE_BYTES_PER_PROC = "1000000", FAKE_SLEEP = "0"'))
    outcome = program.run(hog, 1, [0], ["spawn", "--procs", "400"], 30, 100 * 1024)
    assert not outcome.ok and "over the memory budget of 100 MiB" in outcome.failure


def test_a_failing_program_is_reported_with_its_reason(tmp_path):
    manifest = row(tmp_path, env='FAKE_FAIL_ABOVE = "5"')
    outcome = run_once(manifest, ["spawn", "--procs", "10"])
    assert outcome.failure == "exited with status 1: fake: cannot go beyond 5"


def test_conformance_checks_pass_and_catch_a_miscount(tmp_path):
    results = conformance.checks(row(tmp_path), 1)
    assert results and all(r.ok for r in results), [r for r in results if not r.ok]
    bad = catalog.parse(write_micro(tmp_path, "bad", env='FAKE_MISCOUNT = "1"'))
    failed = [r.name for r in conformance.checks(bad, 1) if not r.ok]
    assert "pingpong idiomatic size=100 rounds=200" in failed


def test_spawn_search_stops_at_the_memory_budget(tmp_path):
    manifest = row(tmp_path, env='FAKE_BYTES_PER_PROC = "40000"')
    point = next(p for p in benchmarks.points(benchmarks.load(["spawn"])[0], "quick") if p.is_max)
    limits = benchmarks.Limits(seconds=30, memory_mb=4096, max_memory_mb=400, warmup_s=3)
    found, _ = search.search_max(manifest, 1, point, limits)
    # 40 kB per process: 8,000 fit in 400 MiB with the interpreter, 16,000 do not. Both peaks are
    # far above this test process's own memory, which a child's kernel peak starts from.
    assert found.max_procs == 8000
    assert "over the memory budget of 400 MiB" in found.stopped_by
    assert [s["procs"] for s in found.steps] == [1000, 2000, 4000, 8000, 16000]


def test_a_failure_stops_the_larger_points_also_after_a_resume(tmp_path):
    manifest = row(tmp_path, env='FAKE_FAIL_ABOVE = "5000"')
    ring = benchmarks.load(["ring"])[0]
    points = [benchmarks.BenchPoint(ring, "idiomatic", {"procs": n, "size": 100, "rounds": 10}) for n in (1000, 10000)]
    tasks = [Task("micro", manifest, p, 1, rep, 1.0) for rep in range(2) for p in points]
    limits = benchmarks.limits("quick")
    first = [measure.Measurer(limits, [], Console())(t, print) for t in tasks[:2]]
    # A resume knows only what is stored: the failure at 10,000 still stops the second repetition.
    resumed = measure.Measurer(limits, first, Console())
    stored = first + [resumed(t, print) for t in tasks[2:]]
    big = [m for m in stored if '"procs": 10000' in m.point]
    assert big[0].outcome is Outcome.FAILED and "cannot go beyond 5000" in big[0].reason
    assert big[1].outcome is Outcome.NOT_RUN and big[1].reason.startswith("failed at procs=10000")
    report = tables.report("t", [ring], stored, ["skipped x: why"], {"cores": 2})
    section, warmups = report.sections
    assert warmups.heading == "warm-up before the measured runs"
    warmed = [c.show() for c in warmups.table.rows[0].cells]
    assert warmed == ["fakemicro", "idiomatic", "1", "5 it, 0.05 s, 2/2 steady"]
    cells = [[cell.show() for cell in row.cells] for row in section.table.rows]
    assert cells[0][:5] == ["fakemicro", "shared", "idiomatic", "1", "size=100 rounds=10"]
    assert cells[0][5] == "2.50 ±0.00" and cells[0][6] == "FAILED"
    assert section.table.rows[0].flags == ["failed"]
    written = markdown.report(report)
    assert "| fakemicro | shared |" in written and "- skipped x: why" in written and "not run:" in written


def test_a_cold_start_measures_at_once_in_a_row_beside_the_warm_one(tmp_path):
    manifest = row(tmp_path)
    ring = benchmarks.load(["ring"])[0]
    params = {"procs": 100, "size": 100, "rounds": 10}
    tasks = [
        Task("micro", manifest, benchmarks.BenchPoint(ring, "idiomatic", params, start), 1, 0, 1.0)
        for start in ("cold", "warm")
    ]
    measurer = measure.Measurer(benchmarks.limits("quick"), [], Console())
    cold, warm = [measurer(task, print) for task in tasks]
    assert cold.parameters["arguments"][-2:] == ["--warmup-s", "0"] and cold.parameters["start"] == "cold"
    assert cold.payload.warmup["iterations"] == 0 and warm.payload.warmup["iterations"] > 0
    assert '"start": "cold"' in cold.point and cold.point != warm.point
    (section, _) = tables.report("t", [ring], [cold, warm], [], {"cores": 2}).sections
    assert [r.cells[4].show() for r in section.table.rows] == ["size=100 rounds=10 cold", "size=100 rounds=10 warm"]
    assert [r.flags for r in section.table.rows] == [[], []]  # a cold start claims no steadiness: not unsteady
    assert tables.warmup_section([ring], [cold]) is None  # nor has it a warm-up to show


def test_the_findings_profile_sweeps_cold_and_warm_starts_on_both_cores():
    pingping = benchmarks.load(["pingping"])[0]
    points = benchmarks.points(pingping, "findings")
    assert {p.start for p in points} == {"cold", "warm"} and benchmarks.budgets(pingping, "findings", 2) == [2]
    assert all(p.start == "" for p in benchmarks.points(pingping, "quick"))  # keys of earlier runs unchanged


def test_point_numbers_choose_a_bench_profiles_points_and_a_wrong_one_is_a_clear_error():
    ring = benchmarks.load(["ring"])[0]
    every = benchmarks.points(ring, "findings")
    chosen = benchmarks.points(ring, "findings", [1, 3])
    assert [p.key for p in chosen] == [every[0].key, every[2].key]
    first = {"mode": "idiomatic", **every[0].params, "start": "cold"}
    assert json.loads(chosen[0].key) == chosen[0].coordinates == first
    with pytest.raises(benchmarks.BenchError, match=r"ring \[findings\]: no point 7 \(it has 6\)"):
        benchmarks.points(ring, "findings", [7])
    parser = argparse.ArgumentParser()
    plan.add_arguments(parser)
    parser.add_argument("--suite", default="findings")
    parser.add_argument("--repeat", type=int, default=3)
    made = plan.planned(parser.parse_args(["--bench", "ring", "--point", "2", "4"]))
    assert made.point == [2, 4] and MicroPlan.of(made.document()).point == [2, 4]
    for wrong, said in (
        (["--bench", "ring", "--point", "9"], "no point 9"),
        (["--bench", "ring", "spawn", "--point", "1"], "one bench's profile"),
        (["--point", "1"], "one bench's profile"),
    ):
        with pytest.raises(UsageError, match=said):
            plan.planned(parser.parse_args(wrong))
