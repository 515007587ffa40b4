"""Warm-up until steady state, before a point is measured.

The engine runs the point's own load — the same steps, users or concurrency, think time and
connection handling — and every `slice_s` seconds looks at the last slice: what completed in it,
its successful throughput and its median latency. Once the last `window` slices agree (two in the
quick profile, three in the paper one) — each one's throughput within ±5% of their mean with no
trend (the last within half that of the first), and its median latency within ±25% of their median
or within 2 ms of it — the measured window
begins, with no pause for a closed model's users and, for an open schedule or a fixed count, once
the warm-up's requests are answered (loadgen/README.md, "Warm-up until steady"). The warm-up is
bounded by the profile's `max_s`; a point that is not steady by then is measured all the same and
flagged `unsteady`. The rule's parameters and its check are arena/engines/steadiness.py's (`Rule` is given
to the engine as the scenario's `warmup`); this module reads what the engine did and classifies it.

Why these bands: a slice's median latency is mostly queueing when many connections open at once on
one core, and runtimes without a JIT move ±20-40% around a few milliseconds from slice to slice
with no trend at all (Deno 3.6 to 7.1 ms over nine slices of blog-ab here), while a JIT's warm-up
moves it several times over (Scala 266 to 45 ms, Java 92 to 21 ms). Throughput is steadier: with
hundreds of answers a slice, a runtime without a JIT moves ±1-2% from slice to slice, while a
JIT still compiling moves it 5-10% (Java's long polls: 1689, 1975, 1818 a second), so it gets a 5%
band; a point whose slices hold only a few answers widens it in its profile (one answer more or
less of six is 17%).

Each warm-up is classified as Barrett et al. (*Virtual Machine Warmup Blows Hot and Cold*, OOPSLA
2017) classify in-process runs: **flat** (steady from the first slice), **warm-up** (steady later,
at a better level than before), **slowdown** (steady later, at a worse level) or **no steady state**.
An online rule cannot see the future: a plateau that lasts a whole window passes for steady even if
the runtime speeds up after it.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from arena.engines.steadiness import Rule, Slice, close

FLAT, WARMUP, SLOWDOWN, NO_STEADY_STATE = "flat", "warm-up", "slowdown", "no steady state"


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


def classify(slices: list[Slice], start: int | None, rule: Rule) -> str:
    if start is None:
        return NO_STEADY_STATE
    if start == 0:
        return FLAT
    before, steady = slices[:start], slices[start : start + rule.window]
    was, now = statistics.median(s.p50_ms for s in before), statistics.median(s.p50_ms for s in steady)
    if not close(now, was, rule.p50_tolerance, rule.floor_ms):
        return WARMUP if now < was else SLOWDOWN
    was_rps, now_rps = statistics.fmean(s.ok_rps for s in before), statistics.fmean(s.ok_rps for s in steady)
    return SLOWDOWN if now_rps < was_rps and not close(now_rps, was_rps, rule.rps_tolerance) else WARMUP


def of_result(result: dict, rule: Rule) -> Warmup:
    """The warm-up as the engine's result document reports it, classified."""
    done = result["warmup"]
    slices = [Slice(s["t_s"], s["ok_rps"], s["p50_ms"], s["p99_ms"], s["error_ratio"]) for s in done["slices"]]
    made = Warmup(slices, done["steady_at"], done["seconds"])
    made.classification = classify(slices, made.steady_at, rule)
    return made
