"""The warm-up classes, on made-up slices, and the warm-up as the engine reports it. The rule
itself is the engine's, tested there (loadgen/src/steady.rs)."""

import pytest

from arena.rest.warmup import Rule, Slice, classify, of_result

RULE = Rule(slice_s=1, max_s=20)


def slices(*levels: tuple[float, float]) -> list[Slice]:
    return [Slice(float(i), rps, p50, p50 * 3, 0.0) for i, (rps, p50) in enumerate(levels)]


@pytest.mark.parametrize(
    ("levels", "start", "expected"),
    [
        ([(100, 10.0)] * 3, 0, "flat"),
        ([(60, 90.0), (90, 30.0), (100, 10.0), (100, 10.0), (100, 10.0)], 2, "warm-up"),
        ([(100, 10.0), (100, 30.0), (100, 30.0), (100, 30.0)], 1, "slowdown"),
        ([(100, 10.0), (40, 90.0)], None, "no steady state"),
    ],
)
def test_warm_ups_are_classified_as_barrett_et_al(levels, start, expected):
    assert classify(slices(*levels), start, RULE) == expected


def test_the_engine_gets_the_rule_and_its_warm_up_is_read_back_classified():
    assert RULE.document() == {
        "slice_s": 1,
        "max_s": 20,
        "window": 3,
        "rps_tolerance": 0.05,
        "p50_tolerance": 0.25,
        "floor_ms": 2.0,
    }
    levels = [(60, 90.0), (100, 10.0), (100, 10.0), (100, 10.0)]
    reported = {
        "slice_s": 1.0,
        "seconds": 4.01,
        "steady_at": 1,
        "measured_from_s": 4.01,
        "slices": [
            {"t_s": float(i), "ok_rps": r, "p50_ms": p, "p99_ms": 3 * p, "error_ratio": 0.0}
            for i, (r, p) in enumerate(levels)
        ],
    }
    warm = of_result({"warmup": reported}, RULE)
    assert warm.steady and warm.steady_s == 1.0 and warm.seconds == 4.01
    assert warm.classification == "warm-up" and warm.slices[0] == Slice(0.0, 60, 90.0, 270.0, 0.0)
    never = of_result({"warmup": reported | {"steady_at": None}}, RULE)
    assert not never.steady and never.classification == "no steady state"
