"""The steady-state rule and the warm-up classes, on made-up slices."""

import pytest

from arena.rest.steady import Rule, Slice, agree, classify, slice_document

RULE = Rule(slice_s=1, max_s=20)


def slices(*levels: tuple[float, float]) -> list[Slice]:
    return [Slice(float(i), rps, p50, p50 * 3, 0.0) for i, (rps, p50) in enumerate(levels)]


@pytest.mark.parametrize(
    ("levels", "steady"),
    [
        ([(100, 10.0)] * 3, True),
        ([(100, 10.0), (109, 12.0), (92, 8.0)], True),  # within ±10% and ±25%
        ([(100, 10.0), (100, 10.0), (125, 10.0)], False),  # throughput jumped
        ([(100, 10.0), (100, 10.0), (100, 13.0)], False),  # latency 30% off
        ([(100, 0.4), (100, 1.9), (100, 2.2)], True),  # within 2 ms: noise around nothing
        ([(0, 0.0)] * 3, False),  # nothing answered
    ],
)
def test_a_window_agrees_within_its_bands(levels, steady):
    assert agree(slices(*levels), RULE) is steady


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


def test_every_slice_does_the_same_work_and_drains():
    fixed = {"model": {"kind": "fixed", "requests": 10000, "concurrency": 100}, "max_duration_s": 100}
    assert slice_document(fixed, RULE, 0)["model"] == {"kind": "fixed", "requests": 1000, "concurrency": 100}
    closed = {"model": {"kind": "closed", "users": 5, "think_ms": [500, 500], "duration_s": 3}}
    assert slice_document(closed, Rule(slice_s=1.5, max_s=9), 0.5)["model"] == {
        "kind": "closed", "users": 5, "think_ms": [500, 500], "iterations_per_user": 2,
    }  # fmt: skip
    opened = {"model": {"kind": "open", "rate": 4, "iterations": 50, "max_in_flight": 9}}
    assert slice_document(opened, RULE, 0)["model"] == {"kind": "open", "rate": 4, "max_in_flight": 9, "iterations": 4}
