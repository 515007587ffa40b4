"""`arena compare`, `arena history` and `arena import` (spec/compare.md): a copy of a run whose one
implementation is 20% slower is *slower* at exactly its points and fails the gate, with JUnit naming
them; a copy with only noise is *no difference* everywhere; two implementations of one run compare;
the verdict rule and the test on their own, table-driven; a bad pair of sides is refused in one
line; history finds a planted step and none in flat noise, and keeps hosts apart; an export
imported into another store round-trips every measurement."""

import dataclasses
import json
import random
import re
import xml.etree.ElementTree as ET

import pytest

from arena.capacity.result import CapacitySearch
from arena.cli import main as cli
from arena.cli.measuring import kinds
from arena.compare import history_report, model
from arena.compare.history import histories
from arena.compare.model import Side, Verdict, compare, judge, separable, welch
from arena.errors import UsageError
from arena.kind import main_metrics
from arena.measured import importing, kept
from arena.measured.export import counted_values
from arena.measured.measurement import Measurement, Outcome
from arena.measured.store import Run, Store
from arena.micro.result import ProgramRun
from test_capacity_precision import saturation

F, S, SAME = Verdict.FASTER, Verdict.SLOWER, Verdict.SAME
HOPS = {"erlang": 0.20, "go": 0.35, "rust": 0.30}  # µs per hop: lower is better


def rings(us: dict[str, float], noise: float, seed: int, slower: dict[str, float] | None = None) -> list:
    """Ring measurements of each runtime at two points, three repetitions, each within ±`noise`."""
    draw = random.Random(seed)
    made = []
    for impl, base in us.items():
        for procs in (100, 1000):
            for rep in range(3):
                value = base * (slower or {}).get(impl, 1.0) * (1 + draw.uniform(-noise, noise))
                point = json.dumps({"mode": "idiomatic", "procs": procs, "size": 100})
                run = ProgramRun({"us_per_hop": value}, {"laps": 100}, 0.1, 0.2, 0.1, 900, "", None)
                made.append(Measurement("micro", impl, "ring", point, 1, rep, Outcome.MEASURED, payload=run))
    return made


def stored(name: str, measurements: list) -> str:
    store = Store()
    run = store.start_run(name, "quick", {"kind": "micro", "bench": ["ring"]}, {"cores": 2}, "abc", False)
    for m in measurements:
        store.add(run.id, m)
    store.finish_run(run.id)
    store.close()
    return run.name


def test_one_implementation_20_percent_slower_is_slower_at_exactly_its_points_and_fails_the_gate(tmp_path, capsys):
    a = stored("cmp-base", rings(HOPS, 0.02, 1))
    b = stored("cmp-slower", rings(HOPS, 0.02, 2, slower={"go": 1.2}))
    junit = tmp_path / "compare.xml"
    assert cli.main(["compare", a, b, "--fail-on", "slower", "--junit", str(junit)]) == 1
    out, err = capsys.readouterr()
    assert "2 point(s) slower: failing (--fail-on)" in err
    assert "(2 slower, 4 no difference)" in out  # the table's heading counts the verdicts
    first = next(line for line in out.splitlines() if "ring" in line)
    assert first.startswith("go ring") and "slower" in first  # sorted by effect: the largest first
    cases = ET.parse(junit).getroot().iter("testcase")
    failed = sorted(c.get("name") for c in cases if c.find("failure") is not None)
    assert failed == [
        "go ring mode=idiomatic procs=100 size=100 cpus=1 us_per_hop",
        "go ring mode=idiomatic procs=1000 size=100 cpus=1 us_per_hop",
    ]
    # the same runs, the other way round: go got faster, and only a gate on faster fails
    assert cli.main(["compare", b, a, "--fail-on", "slower"]) == 0
    assert cli.main(["compare", b, a, "--fail-on", "faster"]) == 1


def test_a_copy_with_only_noise_is_no_difference_everywhere(capsys):
    a = stored("cmp-noise-a", rings(HOPS, 0.03, 3))
    b = stored("cmp-noise-b", rings(HOPS, 0.03, 4))
    assert cli.main(["compare", a, b, "--fail-on", "slower", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["schema"] == "arena.compare/1" and len(made["changes"]) == 6
    assert {c["verdict"] for c in made["changes"]} == {"no difference"}
    assert all(c["low"] < 1 < c["high"] or abs(c["ratio"] - 1) < 0.03 for c in made["changes"])


def test_two_implementations_of_one_run_and_the_points_only_one_side_has(capsys):
    measurements = rings(HOPS, 0.02, 5) + rings({"scala": 1.0}, 0.02, 6)[:3]  # scala at procs=100 only
    run = stored("cmp-impls", measurements)
    assert cli.main(["compare", f"{run}:erlang", f"{run}:go"]) == 0
    out = capsys.readouterr().out
    assert "(2 slower)" in out and "runtime" not in out  # no versions recorded: nothing differs
    made = compare(Side("erlang", measurements, "erlang"), Side("scala", measurements, "scala"), main_metrics(kinds()))
    assert [c.verdict for c in made.changes] == [S]  # scala (B) takes 1.0 µs a hop, erlang (A) 0.2
    assert made.only_a == ["ring mode=idiomatic procs=1000 size=100 cpus=1"] and made.only_b == []


def test_a_single_repetition_is_untested_and_says_why():
    one = [m for m in rings(HOPS, 0.02, 7) if m.repetition == 0]
    made = compare(Side("a", one), Side("b", one), main_metrics(kinds()))
    assert {c.verdict for c in made.changes} == {Verdict.UNTESTED}
    assert made.changes[0].why.startswith("n=1: no interval on A and B")


def test_edges_known_within_a_bracket_differ_only_beyond_it():
    """Each start of A sustained 1,000 a second and failed 3% above it: its edge lies in
    [1,000, 1,030). Starts that confirm the neighbouring bracket are no different; a tenth above
    is faster."""

    def run(edge: float) -> list[Measurement]:
        found = CapacitySearch("found", edge, edge * 1.03, {"p99_ms": 10}, 1, None, [], 0.1, None)
        return [
            Measurement("capacity", "go", "plaintext", '{"p99_ms": 10}', 1, rep, Outcome.MEASURED, payload=found)
            for rep in range(3)
        ]

    for edge, verdict in [(1030.0, SAME), (1100.0, F)]:
        (change,) = compare(Side("a", run(1000.0)), Side("b", run(edge)), main_metrics(kinds())).changes
        assert change.verdict == verdict
        assert (change.low, change.high) == (pytest.approx(edge / 1000 / 1.03), pytest.approx(edge / 1000 * 1.03))


def test_a_capacity_cell_compares_what_its_starts_answered_saturated_beside_its_edge():
    """Edges that a pause moves by a third tell two runs apart from nothing; saturations 10% up in
    B, each within 1%, are faster. A saturation past the engine's ceiling on A is only a bound, which
    B's lead may lie within: untested, while the edge of the same starts is still judged."""

    def run(edges: list[float], saturated: float, engine_bound: bool = False) -> list[Measurement]:
        made = []
        for rep, edge in enumerate(edges):
            found = CapacitySearch("found", edge, edge * 1.03, {"p99_ms": 10}, 1, None, [], 0.1, None)
            found = dataclasses.replace(found, saturated=saturation(saturated * (1 + rep / 100), engine_bound))
            point = '{"p99_ms": 10}'
            made.append(Measurement("capacity", "go", "plaintext", point, 1, rep, Outcome.MEASURED, payload=found))
        return made

    a, b = run([1000.0, 1400.0, 1700.0], 3000.0), run([1600.0, 1100.0, 1500.0], 3300.0)
    made = {c.metric: c for c in compare(Side("a", a), Side("b", b), main_metrics(kinds())).changes}
    assert (made["edge"].verdict, made["saturated"].verdict) == (SAME, F)
    assert made["saturated"].low > 1.05
    bound = run([1000.0, 1400.0, 1700.0], 3000.0, engine_bound=True)
    made = {c.metric: c for c in compare(Side("a", bound), Side("b", b), main_metrics(kinds())).changes}
    assert made["saturated"].verdict == Verdict.UNTESTED and "engine-bound on A" in made["saturated"].why
    assert made["edge"].verdict == SAME


@pytest.mark.parametrize(
    ("ratio", "p", "higher", "expected"),
    [
        (1.20, 0.001, True, F),  # more throughput
        (1.20, 0.001, False, S),  # more latency
        (0.80, 0.001, True, S),
        (0.80, 0.001, False, F),
        (1.20, 0.20, True, SAME),  # not significant
        (1.02, 0.001, True, SAME),  # significant, but under the threshold
        (0.97, 0.001, False, F),  # exactly the threshold counts
    ],
)
def test_the_verdict_needs_both_significance_and_a_change_that_counts(ratio, p, higher, expected):
    assert judge(ratio, p, higher, 0.03, 0.05) is expected


def test_welch_gives_the_ratio_of_geometric_means_and_its_interval():
    ratio, low, high, p = welch([100, 102, 98], [120, 123, 117], 0.05)
    assert ratio == pytest.approx(1.2, rel=1e-3) and low < 1.2 < high and p < 0.01
    assert welch([5, 5, 5], [5, 5, 5], 0.05) == (1.0, 1.0, 1.0, 1.0)  # no spread, no difference
    assert welch([5, 5, 5], [6, 6, 6], 0.05)[3] == 0.0  # no spread, a certain one


def test_separable_projects_the_test_itself_to_more_repetitions():
    """At as many values as the samples hold, the projection is the test's own verdict; at more, with
    the same means and spreads, the interval narrows as Student's t and the square root of n do."""
    rng = random.Random(64)
    for _ in range(200):
        n = rng.choice([2, 3, 4])
        shift, spread = rng.uniform(1.0, 1.4), rng.uniform(0.001, 0.2)
        a = [1000 * (1 + rng.gauss(0, spread)) for _ in range(n)]
        b = [1000 * shift * (1 + rng.gauss(0, spread)) for _ in range(n)]
        if min(a + b) <= 0:
            continue
        assert separable(a, b, n, 0.03) == (model.tested(a, b, 0.03, higher=True)[4] is F)
    a, b = [15000.0, 15600.0], [16400.0, 17000.0]  # x1.09, each cell's two 4% apart
    assert model.tested(a, b, 0.03, higher=True)[4] is SAME and separable(a, b, 4, 0.03)
    assert not separable(a, b, 4, 0.10)  # within the bracket the numbers are known to


@pytest.mark.parametrize(
    ("a", "b", "said"),
    [
        ("cmp-base", "cmp-base:go", "compare two runs (last~1 last) or two implementations"),
        ("cmp-base:java", "cmp-base:go", "has no measurement of 'java'; it has erlang, go, rust"),
        ("no-such-run", "cmp-base", "no run named no-such-run"),
        ("last~x", "last", "last~N with N a whole number"),
        ("last~100000", "last", "no run last~100000"),
    ],
)
def test_sides_that_cannot_be_compared_are_refused_in_one_line(a, b, said, capsys):
    stored("cmp-base", rings(HOPS, 0.02, 1))
    assert cli.main(["compare", a, b]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err


def runs_of(levels: list[float], noise: float, seed: int, host: str = "alpha") -> list:
    """One stored-run pair (Run, measurements) per level: go's µs per hop at that level, ± noise."""
    made = []
    for i, level in enumerate(levels):
        run = Run(i, f"h-{host}-{i}", "micro", "quick", {}, {"name": host}, f"c{i:03}", False, 1.0, started=1000.0 + i)
        made.append((run, rings({"go": level}, noise, seed + i)))
    return made


def test_history_finds_a_step_planted_in_a_series_and_none_in_flat_noise():
    metrics = main_metrics(kinds())
    step = histories(runs_of([0.35] * 6 + [0.42] * 6, 0.02, 10), "go", ["ring"], metrics)
    assert len(step) == 2  # two points of the ring, one main number each
    assert all(h.changes == [6] for h in step), [h.changes for h in step]
    made = history_report.report("go", step)
    said = made.sections[0].table.rows[6].cells[5].show()
    assert re.fullmatch(r"new level: \+(19|20|21)\.\d% \(worse\)", said), said  # 20% more µs a hop
    for seed in range(20, 30):
        flat = histories(runs_of([0.35] * 12, 0.02, seed * 100), "go", ["ring"], metrics)
        assert all(h.changes == [] for h in flat), (seed, [h.changes for h in flat])


def test_a_host_is_a_dimension_of_the_history_never_mixed():
    metrics = main_metrics(kinds())
    made = histories(runs_of([0.35] * 6, 0.02, 1, "alpha") + runs_of([0.5] * 6, 0.02, 1, "beta"), "go", [], metrics)
    assert sorted({(h.host, len(h.entries)) for h in made}) == [("alpha", 6), ("beta", 6)]
    assert all(h.changes == [] for h in made)  # alpha's level and beta's are two histories, not a step


def test_history_prints_every_run_of_an_implementation(capsys):
    stored("cmp-hist-1", rings(HOPS, 0.02, 11))
    stored("cmp-hist-2", rings(HOPS, 0.02, 12))
    assert cli.main(["history", "go", "--scenario", "ring"]) == 0
    out = capsys.readouterr().out
    assert "cmp-hist-1" in out and "cmp-hist-2" in out and "go ring mode=idiomatic procs=100" in out
    assert cli.main(["history", "cobol"]) == 2
    assert "no stored run measured 'cobol'" in capsys.readouterr().err


def test_an_export_imported_elsewhere_round_trips_every_measurement(fake_measurements, tmp_path, capsys):
    name = stored("cmp-export", rings(HOPS, 0.02, 13) + fake_measurements[:2])
    out = tmp_path / "run.json"
    assert cli.main(["export", name, "--out", str(out)]) == 0
    elsewhere = Store(tmp_path / "elsewhere.sqlite")
    try:
        run, count = importing.into(elsewhere, out)
        assert (run.name, count) == (name, 20)
        original = Store()
        try:
            theirs = original.named(name)
            assert elsewhere.measurements(run.id) == original.measurements(theirs.id)
            assert (run.host, run.plan, run.started, run.git_commit) == (
                theirs.host,
                theirs.plan,
                theirs.started,
                theirs.git_commit,
            )
        finally:
            original.close()
        with pytest.raises(UsageError, match="is already here"):
            importing.into(elsewhere, out)
        broken = json.loads(out.read_text())
        broken["measurements"][3]["outcome"] = "great"
        (tmp_path / "broken.json").write_text(json.dumps(broken))
        with pytest.raises(UsageError, match="measurement 4 is malformed"):
            importing.into(elsewhere, tmp_path / "broken.json")
        assert len(elsewhere.runs()) == 1  # nothing of a refused file was kept
    finally:
        elsewhere.close()
    # Kept compressed, as a repository keeps long runs, it reads back the same.
    packed = tmp_path / "run.json.gz"
    assert cli.main(["export", name, "--out", str(packed)]) == 0
    assert packed.read_bytes()[:2] == b"\x1f\x8b" and packed.stat().st_size < out.stat().st_size / 3
    other = Store(tmp_path / "other.sqlite")
    try:
        assert importing.into(other, packed)[1] == 20
        (tmp_path / "cut.json.gz").write_bytes(packed.read_bytes()[:100])
        with pytest.raises(UsageError, match="is not a whole gzip file"):
            importing.into(other, tmp_path / "cut.json.gz")
    finally:
        other.close()


def test_a_run_compares_with_the_reference_and_says_how_its_machine_differs_first(capsys):
    """`./arena compare reference RUN`: the runs kept in reference/ of RUN's kind are the other side,
    read as they are, those of the command that runs the kind before the findings' (a REST run is
    compared with `arena run`'s reference); where and how each was measured differs (the machine's
    pace) before any point."""
    kinds()
    with kept.imported(kept.newest()) as (held, imported):
        (run,) = imported["run"]
        measured = [m for m in held.measurements(run.id) if m.experiment == "blog-ab"]
        assert any(m.experiment == "blog-ab" for r in imported["findings"] for m in held.measurements(r.id))
    store = Store()
    try:
        mine = store.start_run("mine", "quick", run.plan, {**run.host, "pace_mib_s": 1.0}, "abc", False)
        for m in measured:
            store.add(mine.id, dataclasses.replace(m, run=None))
        store.finish_run(mine.id)
    finally:
        store.close()
    assert cli.main(["compare", "reference", "mine"]) == 0
    out = capsys.readouterr().out
    assert out.index("host pace_mib_s") < out.index("B/A at every point")
    # The reference says when and on what it was measured, and what of that code has changed since.
    assert re.search(rf"compared with reference \(\d{{8}}, commit {run.git_commit[:7]}: (measured|whether)", out), out[
        :300
    ]
    # A copy: every implementation's blog-ab at one core, three main numbers a point, each no
    # difference where both sides have an interval (a point left one repetition that counts has none).
    points = {(m.impl, m.point, m.cpus) for m in measured}
    once = {
        p for p in points if len(counted_values([m for m in measured if (m.impl, m.point, m.cpus) == p], "rps")) < 2
    }
    assert f"({3 * len(points - once)} no difference, {3 * len(once)} untested)" in out, out
