"""Warm-up until steady state, before a point is measured: what the engine did in its warm-up
(it applies the rule, arena/engines/warmup_rule.py's, given as the scenario's `warmup`), read and
classified as Barrett et al. (*Virtual Machine Warmup Blows Hot and Cold*, OOPSLA 2017) classify
in-process runs: **flat** (steady from the first slice), **warm-up** (steady later, at a better
level), **slowdown** (steady later, at a worse level) or **no steady state**. The rule, its bands
and why each is as wide as it is: spec/scenarios/README.md, "Steady state before every measurement"."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from arena.engines.warmup_rule import Rule, Slice, close

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
