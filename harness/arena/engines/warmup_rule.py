"""The rule that says a warm-up is steady, as every load engine applies it (loadgen/README.md,
"Warm-up until steady"): its parameters, a slice of the warm-up, and the check of the last slices.
loadgen applies it in Rust; the Locust engine (arena/engines/locust/) applies `agrees` in Python; both
report their slices so that the harness can classify them (arena/rest/warmup.py) and anyone can
re-check them.
"""

from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """The engine's `warmup` (loadgen/README.md), field for field."""

    slice_s: float  # one slice of load
    max_s: float  # the most the warm-up may take
    window: int = 3  # slices that must agree
    rps_tolerance: float = 0.05
    p50_tolerance: float = 0.25
    floor_ms: float = 2.0
    give_up_p50_ms: float | None = None  # end the run unmeasured past this median (loadgen only: "Giving up")

    def document(self) -> dict:
        return {key: value for key, value in dataclasses.asdict(self).items() if value is not None}


@dataclass(frozen=True)
class Slice:
    seconds: float  # when it started, from the start of the warm-up
    ok_rps: float
    p50_ms: float
    p99_ms: float
    error_ratio: float


def close(value: float, centre: float, tolerance: float, floor: float = 0.0) -> bool:
    return abs(value - centre) <= max(tolerance * abs(centre), floor)


def agrees(window: list[Slice], rule: Rule) -> bool:
    """Whether the last `rule.window` slices agree: throughput above zero, each slice's within the
    band of their mean, no trend (the last within half the band of the first), and each median
    latency within the band (or the floor) of their median."""
    if len(window) < rule.window:
        return False
    last = window[-rule.window :]
    mean = statistics.fmean(s.ok_rps for s in last)
    if mean <= 0 or not all(close(s.ok_rps, mean, rule.rps_tolerance) for s in last):
        return False
    if not close(last[-1].ok_rps, last[0].ok_rps, rule.rps_tolerance / 2):
        return False
    median = statistics.median(s.p50_ms for s in last)
    return all(close(s.p50_ms, median, rule.p50_tolerance, rule.floor_ms) for s in last)
