import json

from arena import scenarios, summary
from arena.store import Measurement


def blog(impl: str, rps: float, rep: int, flags=()) -> Measurement:
    return Measurement(
        kind="http", impl=impl, experiment="blog-ab", point=json.dumps({"requests": 10000}), cpus=1,
        repetition=rep, versions={}, parameters={}, metrics={"rps": rps, "p50_ms": 4.0, "error_ratio": 0.0},
        histograms={}, series=[], server_cpu_s=1.0, server_peak_rss_kb=2048, engine_cpu_s=0.1, flags=list(flags),
    )  # fmt: skip


def test_table_shows_median_interval_flags_and_the_seeds_number():
    (scenario,) = scenarios.load(["blog-ab"])
    made = summary.experiment_table(scenario, [blog("node", 470, 0), blog("node", 480, 1, ["engine-bound"])])
    text, notes = made
    ours, seed = text.splitlines()[2:4]
    assert ours.startswith("node         1")
    assert "475.0 ±63.5" in ours  # median of 470 and 480, t(1) = 12.706 times the standard error 5
    assert "engine-bound" in ours
    assert seed.startswith("node (seed)  1")
    assert "468.85" in seed and "2017" in seed  # the blog's req/s and p99 for Node.js
    assert any("ab -c 100" in note for note in notes)


def test_noisy_points_are_flagged():
    (scenario,) = scenarios.load(["blog-ab"])
    text, _ = summary.experiment_table(scenario, [blog("go", 300, 0), blog("go", 500, 1)])
    assert "noisy" in text.splitlines()[2]


def test_pending_experiments_are_reported_as_skipped_and_markdown_is_a_table():
    chosen = scenarios.load(["blog-ab", "honours-basic"])
    terminal, markdown = summary.render("Run", chosen, [blog("go", 490, 0)], ["skipped x: reason"])
    assert "skipped: needs /record" in terminal
    assert "| impl | cpus | point | req/s |" in markdown
    assert "- skipped x: reason" in markdown
