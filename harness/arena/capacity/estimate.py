"""How long a capacity measurement takes, for the ETA."""

from __future__ import annotations

from arena.capacity.workloads import Point
from arena.impls import catalog

# For the ETA, as measured here (spec/capacity.md, "Time"): starting, saturating and stopping a
# server (beyond its own warm_s); saturating it again for a later workload; a probe, its warm-up and
# window and the wait for the server to idle; the probes of a first start's search and its curve,
# and of a later one's.
START_S = 5
SATURATE_S = 3
PROBE_S = 3
FIRST_PROBES, HINTED_PROBES = 8, 7  # the medians of run 20261128-004214 (spec/capacity.md, "Time")
# How likely a start beyond the least a cell takes is needed, and each one after it by as much
# again: 45 of that run's 54 cells took a third start.
LIKELY_MORE = 0.8


def estimate(manifest: catalog.Manifest, point: Point, repetition: int, first: bool, least: int) -> float:
    """Seconds a measurement takes, for the ETA: its start's when it is the first on it, else its
    saturation, each with a JIT's warm_s; and a first search, a hinted one or a sweep; a start
    beyond the least a cell takes, by how likely it is needed."""
    start_s = (START_S if first else SATURATE_S) + manifest.warm_s
    if point.clients:
        return start_s + len(point.clients) * PROBE_S
    likely = LIKELY_MORE ** max(repetition - least + 1, 0)
    return likely * (start_s + PROBE_S * (HINTED_PROBES if repetition else FIRST_PROBES))
