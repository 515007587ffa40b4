"""Warm-up until steady state, before a point is measured.

The server runs the point's own load — the same steps, concurrency and connection handling — in
slices, one engine run each, until the last three slices agree: each slice's successful throughput
within ±10% of the three's mean, and its median latency within ±25% of their median or within
2 ms of it. Every slice does the same work and drains before the next (every request it sent is
answered), so slices compare like with like and none leaves abandoned work on the server. The
warm-up is bounded by the profile's `max_s`; a point that is not steady by then is measured all
the same and flagged `unsteady`.

Why these bands: a slice's median latency is mostly queueing when many connections open at once on
one core, and runtimes without a JIT move ±20-40% around a few milliseconds from slice to slice
with no trend at all (Deno 3.6 to 7.1 ms over nine slices of blog-ab here), while a JIT's warm-up
moves it several times over (Scala 266 to 45 ms, Java 92 to 21 ms). Throughput is steadier, and
a closed model's users or a fixed count bound it, so it keeps the 10% band.

Each warm-up is classified as Barrett et al. (*Virtual Machine Warmup Blows Hot and Cold*, OOPSLA
2017) classify in-process runs: **flat** (steady from the first slice), **warm-up** (steady later,
at a better level than before), **slowdown** (steady later, at a worse level) or **no steady state**.
An online rule cannot see the future: a plateau that lasts a whole window passes for steady even if
the runtime speeds up after it.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.engine import LoadEngine

FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE = "flat", "warm-up", "slowdown", "no steady state"
FIXED_PER_WORKER, MAX_PER_WORKER = 10, 100  # a fixed count's first slice, and the most of any slice, a worker


@dataclass(frozen=True)
class Rule:
    slice_s: float  # one slice of load
    max_s: float  # the most the warm-up may take
    window: int = 3  # slices that must agree
    rps_tolerance: float = 0.10
    p50_tolerance: float = 0.25
    floor_ms: float = 2.0


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
        _close(s.ok_rps, mean_rps, rule.rps_tolerance)
        and _close(s.p50_ms, median_p50, rule.p50_tolerance, rule.floor_ms)
        for s in window
    )


def classify(slices: list[Slice], start: int | None, rule: Rule) -> str:
    if start is None:
        return NO_STEADY_STATE
    if start == 0:
        return FLAT
    before, steady = slices[:start], slices[start : start + rule.window]
    was, now = statistics.median(s.p50_ms for s in before), statistics.median(s.p50_ms for s in steady)
    if not _close(now, was, rule.p50_tolerance, rule.floor_ms):
        return WARMUP if now < was else SLOWDOWN
    was_rps, now_rps = statistics.fmean(s.ok_rps for s in before), statistics.fmean(s.ok_rps for s in steady)
    return SLOWDOWN if now_rps < was_rps and not _close(now_rps, was_rps, rule.rps_tolerance) else WARMUP


def slice_document(document: dict, rule: Rule, wait_s: float, requests: int | None = None) -> dict:
    """The point's scenario cut to one slice: the same steps, users or concurrency, think time and
    connection handling, ending when all of its work is answered. A closed model's users each run
    as many iterations as fit in `rule.slice_s` (their think time and `wait_s` in the server); an
    open model sends the arrivals of `rule.slice_s` at its rate; a fixed count's workers share
    `requests` (FIXED_PER_WORKER each when not given: the first slice, which sizes the others)."""
    model = dict(document["model"])
    if model["kind"] == "fixed":
        model["requests"] = requests or FIXED_PER_WORKER * model["concurrency"]
    elif model["kind"] == "open":
        rate = model["stages"][0]["rate"] if "stages" in model else model["rate"]
        model = {"kind": "open", "rate": rate, "max_in_flight": model.get("max_in_flight", 1000)}
        model["iterations"] = max(1, round(rate * rule.slice_s))
    else:
        cycle_s = sum(model.get("think_ms", [0, 0])) / 2 / 1000 + wait_s
        model.pop("duration_s", None)
        model["iterations_per_user"] = max(1, math.ceil(rule.slice_s / cycle_s)) if cycle_s else 1
    # A server that slows down as it goes could make a slice last without end: past this bound the
    # engine stops it (leaving what is in flight), and that slice shows the slowdown.
    return {**document, "model": model, "max_duration_s": 2 * rule.slice_s + 5}


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
    began, requests = time.monotonic(), None
    while True:
        started = time.monotonic() - began
        sliced = slice_document(document, rule, wait_s, requests)
        made.slices.append(slice_of(engine.run(sliced, cores, sliced["max_duration_s"] + 30).result, started))
        if requests is None and sliced["model"]["kind"] == "fixed":
            # Every later slice does the same work: as much as lasts about a slice, at least the first's.
            first_s = max(time.monotonic() - began - started, 1e-3)
            sized = round(sliced["model"]["requests"] * rule.slice_s / first_s)
            requests = min(max(sliced["model"]["requests"], sized), MAX_PER_WORKER * sliced["model"]["concurrency"])
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
