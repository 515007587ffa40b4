"""The overload run: when a server counts as recovered, on synthetic per-second series, and the
whole run for real against the Go server with tiny stages (plumbing, not timings)."""

import pytest

from arena.checks import overload, verify
from arena.engines.loadgen import BINARY, Loadgen
from arena.impls import catalog
from arena.paths import SERVERS

BASELINE_MS = 2.0
BOUND_MS = overload.bound_ms(BASELINE_MS)  # 12 ms: the floor wins over twice the baseline
OVERLOAD_END = 20
WINDOW_END = 50


def series(p99_ms: list[float], errors: dict[int, int] | None = None, empty: tuple[int, ...] = ()) -> list[dict]:
    """The engine's `series` from the overload's end on: one p99 a second, every second answered
    (but those in `empty`) and without errors (but those in `errors`)."""
    made = []
    for i, p99 in enumerate(p99_ms):
        t = OVERLOAD_END + i
        completed = 0 if i in empty else 100
        failed = (errors or {}).get(i, 0)
        made.append(
            {
                "t": t,
                "completed": completed,
                "ok": completed - failed,
                "errors": failed,
                "p50_us": 0,
                "p99_us": int(p99 * 1000),
            }
        )
    return made


GOOD, BAD = 3.0, 900.0


@pytest.mark.parametrize(
    ("what", "given", "recovered"),
    [
        ("at once", series([GOOD] * 30), 1),
        ("after 4 s of draining", series([BAD] * 4 + [GOOD] * 26), 5),
        ("never", series([BAD] * 30), None),
        ("a blip after 2 good seconds starts the count again", series([BAD, GOOD, GOOD, BAD] + [GOOD] * 26), 5),
        ("a blip after 3 good seconds changes nothing", series([BAD, GOOD, GOOD, GOOD, BAD] + [GOOD] * 25), 2),
        ("good only in the last 2 seconds", series([BAD] * 28 + [GOOD] * 2), None),
        ("good in exactly the last 3 seconds", series([BAD] * 27 + [GOOD] * 3), 28),
        ("an error is not recovered", series([GOOD] * 30, errors={1: 1}), 3),
        ("a second without answers is not recovered", series([GOOD] * 30, empty=(0,)), 2),
        ("a missing second is not recovered", series([GOOD] * 30)[1:], 2),
        ("just within the bound", series([BOUND_MS] * 30), 1),
        ("just over the bound", series([BOUND_MS + 0.1] * 30), None),
    ],
)
def test_recovery(what, given, recovered):
    seconds = overload.seconds_of(given)
    assert overload.recovery_s(seconds, OVERLOAD_END, WINDOW_END, BOUND_MS) == recovered, what


def test_the_bound_is_a_factor_of_the_baseline_or_a_floor_above_it():
    assert overload.bound_ms(2.0) == 2.0 + overload.FLOOR_MS
    assert overload.bound_ms(100.0) == overload.FACTOR * 100.0


def test_the_open_model_halves_then_doubles_the_sustained_rate():
    assert [(s["rate"], s["duration_s"]) for s in overload.stages(1000.0)] == [
        (500.0, overload.BASELINE_S),
        (2000.0, overload.OVERLOAD_S),
        (500.0, overload.RECOVERY_S),
    ]


def test_the_numbers_reported_come_from_their_stages():
    baseline = [
        {"t": t, "completed": 50, "ok": 50, "errors": 0, "p50_us": 0, "p99_us": p99}
        for t, p99 in enumerate([1000, 3000, 2000, 9000, 2000, 2000, 2000, 2000, 2000, 2000])
    ]
    overloaded = [
        {"t": 10 + i, "completed": 80, "ok": 79, "errors": 1, "p50_us": 0, "p99_us": 800_000 + i}
        for i in range(overload.OVERLOAD_S)
    ]
    after = series([2500.0, 3.0, 3.0, 3.0] + [3.0] * 26, errors={0: 2})
    sustained = {"ok_rps": 100.0, "warmup": {"steady_at": 2}, "all": {"latency_us": {"p99": 320_000}}}
    staged = {
        "series": baseline + overloaded + after,
        "iterations": {"dropped": 7},
        "warmup": {"steady_at": None},
        "requests": {"errors": {"connect": 0, "timeout": 12}},
    }
    found = overload.assess(sustained, staged, 0.3)
    assert (found.sustained_rps, found.sustained_p99_ms) == (100.0, 320.0)
    assert found.baseline_p99_ms == 2.0  # the median second, not the worst
    assert found.worst_p99_ms == 2500.0  # the draining second after the overload counts too
    assert found.overload_ok_rps == 79.0
    assert found.recovered_s == 2
    assert found.overload_errors == overload.OVERLOAD_S + 2
    assert (found.dropped, found.warm, found.engine_busy) == (7, False, 0.3)
    assert "recovered in 2 s" in found.summary() and "12 errors (timeout 12)" in found.summary()


@pytest.mark.skipif(not BINARY.exists(), reason="the load engine is not built (./arena build)")
def test_a_real_overload_run_against_go(monkeypatch):
    go = catalog.parse(SERVERS / "go" / "arena.toml")
    if not all((go.folder / out).exists() for out in go.build_outputs):
        pytest.skip("the Go server is not built (./arena build go)")
    # Tiny stages and warm-ups: the plumbing end to end, in well under 40 s.
    for name, value in [("SUSTAIN_S", 2), ("BASELINE_S", 3), ("OVERLOAD_S", 2), ("RECOVERY_S", 6)]:
        monkeypatch.setattr(overload, name, value)
    monkeypatch.setattr(overload, "WARMUP", overload.Rule(slice_s=0.5, max_s=3.0, window=2))
    reported = []
    result = verify.overload_check(go, 1, Loadgen(), reported.append)
    assert reported == [result]
    assert "the server process exited" not in result.detail() and "GET /" not in result.detail()
    assert result.note.startswith("sustained ") and "req/s; p99 baseline" in result.note
    assert result.status in ("pass", "warn") or "did not recover" in result.detail()
