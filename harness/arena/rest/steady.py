"""Warm-up until steady state, before a point is measured.

The server runs the point's own load — the same steps, concurrency and connection handling — in
short slices, one engine run each (each drains before the next: no abandoned requests are left
on the server), until the last `window` slices agree: each slice's successful
throughput within ±`tolerance` of the window's mean, and its median latency within ±`tolerance` of
the window's median or within `floor_ms` of it (below a millisecond, medians move by more than 10%
with scheduling noise alone, which says nothing about the runtime). A slice lasts at least one
cycle of the load (a request, its wait and its think time), so slices compare like with like. The
warm-up is bounded by `max_s`; a point that is not steady by then is measured all the same and
flagged `unsteady`.

Each warm-up is classified as Barrett et al. (*Virtual Machine Warmup Blows Hot and Cold*, OOPSLA
2017) classify in-process runs: **flat** (steady from the first slice), **warm-up** (steady later,
at a better level than before), **slowdown** (steady later, at a worse level) or **no steady state**.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.engine import LoadEngine

FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE = "flat", "warm-up", "slowdown", "no steady state"


@dataclass(frozen=True)
class Rule:
    slice_s: float  # one slice of load
    max_s: float  # the most the warm-up may take
    window: int = 3  # slices that must agree
    tolerance: float = 0.10
    floor_ms: float = 1.0


@dataclass(frozen=True)
class Slice:
    seconds: float  # when it started, from the start of the warm-up
    ok_rps: float
    p50_ms: float
    p99_ms: float
    error_ratio: float


@dataclass
class Warmup:
    """What the warm-up did: its slices, where the steady window began, and its class."""

    slices: list[Slice] = field(default_factory=list)
    steady_at: int | None = None  # index of the first slice of the steady window
    seconds: float = 0.0  # the whole warm-up
    classification: str = NO_STEADY_STATE

    @property
    def steady(self) -> bool:
        return self.steady_at is not None

    @property
    def steady_s(self) -> float | None:
        """Seconds from the start of the warm-up until the load was steady."""
        return self.slices[self.steady_at].seconds if self.steady_at is not None else None


def _close(value: float, centre: float, tolerance: float, floor: float = 0.0) -> bool:
    return abs(value - centre) <= max(tolerance * abs(centre), floor)


def agree(window: list[Slice], rule: Rule) -> bool:
    """Whether these slices are one steady level of load."""
    mean_rps = statistics.fmean(s.ok_rps for s in window)
    median_p50 = statistics.median(s.p50_ms for s in window)
    return mean_rps > 0 and all(
        _close(s.ok_rps, mean_rps, rule.tolerance) and _close(s.p50_ms, median_p50, rule.tolerance, rule.floor_ms)
        for s in window
    )


def steady_start(slices: list[Slice], rule: Rule) -> int | None:
    """The first slice of the earliest window of `rule.window` slices that agree."""
    for start in range(len(slices) - rule.window + 1):
        if agree(slices[start : start + rule.window], rule):
            return start
    return None


def classify(slices: list[Slice], start: int | None, rule: Rule) -> str:
    if start is None:
        return NO_STEADY_STATE
    if start == 0:
        return FLAT
    before, steady = slices[:start], slices[start : start + rule.window]
    was, now = statistics.median(s.p50_ms for s in before), statistics.median(s.p50_ms for s in steady)
    if not _close(now, was, rule.tolerance, rule.floor_ms):
        return WARMUP if now < was else SLOWDOWN
    was_rps, now_rps = statistics.fmean(s.ok_rps for s in before), statistics.fmean(s.ok_rps for s in steady)
    return SLOWDOWN if now_rps < was_rps and not _close(now_rps, was_rps, rule.tolerance) else WARMUP


def slice_document(document: dict, rule: Rule, wait_s: float, previous: Slice | None) -> dict:
    """The point's scenario cut to one slice of about `rule.slice_s`: the same steps, users or
    concurrency, think time and connection handling. Each slice ends by draining — every request
    it sent is answered — so that no slice leaves abandoned work on the server for the next one:
    a closed model's users each run as many iterations as fit in the slice (their think time and
    `wait_s` in the server); a fixed count's workers share as many requests as the last slice
    answered in that time (ten each at first); an open model sends the slice's arrivals."""
    model = dict(document["model"])
    if model["kind"] == "fixed":
        per_slice = round(previous.ok_rps * rule.slice_s) if previous else 10 * model["concurrency"]
        model["requests"] = max(model["concurrency"], per_slice)
    elif model["kind"] == "open":
        rate = model["stages"][0]["rate"] if "stages" in model else model["rate"]
        model = {"kind": "open", "rate": rate, "max_in_flight": model.get("max_in_flight", 1000)}
        model["iterations"] = max(1, round(rate * rule.slice_s))
    else:
        cycle_s = sum(model.get("think_ms", [0, 0])) / 2 / 1000 + wait_s
        model.pop("duration_s", None)
        model["iterations_per_user"] = max(1, math.ceil(rule.slice_s / cycle_s)) if cycle_s else 1
    return {**document, "model": model, "max_duration_s": 10 * rule.slice_s + 60}


def slice_of(result: dict, started_s: float) -> Slice:
    latency = result["all"]["latency_us"]
    total = result["requests"]["total"]
    errors = sum(result["requests"]["errors"].values())
    return Slice(
        seconds=round(started_s, 3),
        ok_rps=result["ok_rps"],
        p50_ms=latency["p50"] / 1000,
        p99_ms=latency["p99"] / 1000,
        error_ratio=errors / total if total else 1.0,
    )


def warm_up(
    engine: LoadEngine,
    document: dict,
    cores: list[int],
    rule: Rule,
    wait_s: float = 0.0,
    alive: Callable[[], bool] = lambda: True,
) -> Warmup:
    """Runs slices of the point's load until the last `rule.window` agree, or until another slice
    as long as the last would end past `rule.max_s` (at least `rule.window` slices run), or the
    server dies."""
    made = Warmup()
    began = time.monotonic()
    while True:
        started = time.monotonic() - began
        sliced = slice_document(document, rule, wait_s, made.slices[-1] if made.slices else None)
        made.slices.append(slice_of(engine.run(sliced, cores, sliced["max_duration_s"] + 30).result, started))
        enough = len(made.slices) >= rule.window
        if enough and agree(made.slices[-rule.window :], rule):
            made.steady_at = len(made.slices) - rule.window
            break
        last_s = time.monotonic() - began - started  # the next slice should take about as long
        if not alive() or (enough and time.monotonic() - began + last_s > rule.max_s):
            break
    made.seconds = time.monotonic() - began
    made.classification = classify(made.slices, made.steady_at, rule)
    return made
