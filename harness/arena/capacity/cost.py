"""The rate at which a capacity run measures what each server spends on an answer (spec/capacity.md,
"Where the engine cannot push"): a share of the load engine's own ceiling for the workload, which
differs from machine to machine by a factor of three, as the first start of the run that can tell
that ceiling measured it; every later start of the workload takes the same rate, so that the two
sides of a step were measured at one load."""

from __future__ import annotations

import math

from arena.capacity.probe import Probe
from arena.engines.interface import ENGINE_BUSY_MAX

MIN_ENGINE_BUSY = 0.2  # an engine less busy than this over a probe says too little of its own ceiling


def engine_ceiling(probes: list[Probe]) -> tuple[float, Probe] | None:
    """The engine's own ceiling for a workload, from its CPU at the fastest probe it was busy
    enough at to tell and still kept up at (past ENGINE_BUSY_MAX it did not offer the rate, and its
    CPU, capped by its cores, says nothing of how far it would go), scaled to ENGINE_BUSY_MAX; and
    that probe. None where no probe tells it."""
    told = [p for p in probes if MIN_ENGINE_BUSY <= p.engine_busy <= ENGINE_BUSY_MAX]
    if not told:
        return None
    fastest = max(told, key=lambda probe: probe.rate)
    return fastest.rate * ENGINE_BUSY_MAX / fastest.engine_busy, fastest


def rate(earlier: float | None, probes: list[Probe], share: float) -> float | None:
    """The run's cost rate: the one its earlier starts took, else `share` of the engine's ceiling
    this start's probes tell, rounded down to two significant digits (a rate a person can quote);
    None where neither is known yet."""
    if earlier is not None:
        return earlier
    found = engine_ceiling(probes)
    if found is None:
        return None
    wanted = found[0] * share
    step = 10 ** (math.floor(math.log10(wanted)) - 1)
    return math.floor(wanted / step) * step
