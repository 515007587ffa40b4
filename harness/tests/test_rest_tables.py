import dataclasses
import json

from arena.measured.measurement import Measurement, Outcome
from arena.report.render import markdown
from arena.rest import scenarios, tables
from arena.rest.result import RestResult


def blog(impl: str, rps: float, rep: int, flags=(), failed: str = "") -> Measurement:
    result = RestResult(
        metrics={"rps": rps, "ok_rps": rps, "p50_ms": 4.0, "error_ratio": 0.0},
        histograms={},
        series=[],
        server_cpu_s=1.0,
        server_peak_rss_kb=2048,
        engine_cpu_s=0.1,
        warmup={},
    )
    return Measurement(
        kind="rest",
        impl=impl,
        experiment="blog-ab",
        point=json.dumps({"requests": 10000}),
        cpus=1,
        repetition=rep,
        outcome=Outcome.FAILED if failed else Outcome.MEASURED,
        reason=failed,
        flags=list(flags),
        payload=None if failed else result,
    )


def shown(section) -> list[list[str]]:
    return [[cell.show() for cell in row.cells] + [", ".join(row.flags)] for row in section.table.rows]


def test_table_shows_median_interval_flags_and_the_seeds_number():
    (scenario,) = scenarios.load(["blog-ab"])
    measured = [blog("node:http-single", 470, 0), blog("node:http-single", 480, 1, ["engine-bound"])]
    section = tables.section(scenario, measured)
    ours, *seeds = shown(section)
    # One repetition past the engine: the median measured, which the server's own is at least.
    assert ours[:4] == ["node:http-single", "1", "requests=10000", "≥ 475.0"]
    assert ours[-1] == "engine-bound"
    # The blog's own numbers, each beside the setup it measured (servers/node/README.md).
    (seed,) = [row for row in seeds if row[1] == "1"]
    assert seed[:4] == ["node:http-single (seed)", "1", "requests=10000", "468.85"]
    assert "208" in seed and "2017" in seed
    (cluster,) = [row for row in seeds if row[1] == "-"]  # the blog gives no core count for its cluster
    assert cluster[:4] == ["node:http-cluster (seed)", "-", "requests=10000", "474.5"] and "88" in cluster
    # A row of an implementation's default setup, where it has several, is named by its setup.
    default = tables.section(scenario, [blog("node", 470, 0)])
    assert shown(default)[0][0] == "node:express-cluster"
    assert all(row.seed for row in section.table.rows[1:]) and not section.table.rows[0].seed
    assert any("ab -c 100" in note for note in section.notes)


def test_noisy_and_failed_points_are_flagged_with_the_reason():
    (scenario,) = scenarios.load(["blog-ab"])
    section = tables.section(scenario, [blog("go", 300, 0), blog("go", 500, 1), blog("go", 0, 2, failed="boom")])
    assert shown(section)[0][-1] == "failed, noisy"
    assert "go cpus=1: boom" in section.notes


def test_pending_experiments_are_reported_as_skipped_and_markdown_is_a_table():
    chosen = scenarios.load(["blog-ab", "honours-basic"])
    pending = dataclasses.replace(chosen[1], pending="needs a later issue")
    report = tables.report("Run", [chosen[0], pending], [blog("go", 490, 0)], ["skipped x: reason"])
    written = markdown.report(report)
    assert "Skipped: needs a later issue" in written
    assert "| impl | cpus | point | req/s |" in written
    assert "| go | 1 | requests=10000 | 490.0 |" in written and "n=1: no interval" in written  # said once
    assert "- skipped x: reason" in written


def test_an_unsteady_repetition_is_left_out_and_its_warm_up_shown_slice_by_slice():
    (scenario,) = scenarios.load(["blog-ab"])
    climbing = blog("scala", 460, 2, ["unsteady"])
    slices = [
        {"seconds": 2.0 * i, "ok_rps": r, "p50_ms": p, "p99_ms": 2000.0, "error_ratio": 0.0}
        for i, (r, p) in enumerate([(321, 53.2), (376, 39.4), (429, 14.6)])
    ]
    climbing.payload.warmup.update(slices=slices, steady_at=None, classification="no steady state")
    section = tables.section(scenario, [blog("scala", 430, 0), blog("scala", 432, 1), climbing])
    assert shown(section)[0][3] == "431.0 ±12.9"  # the two steady repetitions only (t(1) on the logarithms)
    assert "scala cpus=1: 1 of 3 repetition(s) never became steady" in " ".join(section.notes)
    assert (
        "scala never steady, rep 3, a slice each: ok req/s 321, 376, 429; p50 ms 53.2, 39.4, 14.6; "
        "then measured: 460.0 ok req/s" in section.notes
    )


def test_a_row_that_warmed_up_shows_its_longest_warm_up_with_the_steady_window_marked():
    (scenario,) = scenarios.load(["blog-ab"])
    # (ok_rps, p50_ms) per warm-up slice, and the slice where the steady window began
    warm_ups = [([(400, 9.0), (470, 4.0), (472, 4.1)], 1), ([(478, 4.0), (480, 4.2)], 0), ([(475, 4.0)] * 2, 0)]
    group = []
    for rep, (series, at) in enumerate(warm_ups):
        m = blog("kotlin", series[-1][0] - 2, rep)
        slices = [
            {"seconds": 2.0 * i, "ok_rps": r, "p50_ms": p, "p99_ms": 2000.0, "error_ratio": 0.0}
            for i, (r, p) in enumerate(series)
        ]
        m.payload.warmup.update(
            slices=slices, steady_at=at, seconds=2.0 * len(series), classification="warm-up" if at else "flat"
        )
        group.append(m)
    notes = tables.section(scenario, group).notes
    assert (
        "kotlin cpus=1 warm-ups: warm-up x1, flat x2; the longest, rep 1, a slice each: ok req/s 400 | 470, 472; "
        "p50 ms 9.0 | 4.0, 4.1; then measured: 470.0 ok req/s" in notes
    )


def test_a_repetition_whose_server_died_is_left_out_of_the_medians_and_the_row_flagged():
    (scenario,) = scenarios.load(["blog-ab"])
    died = blog("go", 12, 2, ["crashed"])  # what the engine saw before the server died
    section = tables.section(scenario, [blog("go", 490, 0), blog("go", 492, 1), died])
    assert shown(section)[0][3] == "491.0 ±12.9"
    assert shown(section)[0][-1] == "crashed"
    assert "go cpus=1: 1 of 3 repetition(s) lost their server during the measurement" in " ".join(section.notes)
