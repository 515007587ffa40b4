"""Held connections (spec/capacity.md, "Held connections"): a probe of the `longpoll` workload
holds N connections, each polling again as soon as its answer comes, instead of offering arrivals
at a rate. The search is the same; what it searches over is N, bounded by the open-files limit."""

from __future__ import annotations

from dataclasses import replace

from arena.capacity.workloads import Held, Objective, SearchParameters
from arena.engines.warmup_rule import Rule
from arena.host.process import open_files_limit

OTHER_FILES = 1000  # what a process holds open besides its connections: its listener, libraries, logs


def most_connections(max_connections: float) -> float:
    """The most connections a probe may hold: the workload's own bound, or the open-files limit
    less what a process needs besides, whichever is lower; the engine and each server are single
    processes, and each holds one end of every connection."""
    return min(max_connections, open_files_limit() - OTHER_FILES)


def model(connections: int, held: Held, search: SearchParameters, decisive: bool) -> dict:
    """N clients polling without pause, started over one wait so that their answers are spread
    evenly instead of coming in one wave, for a probe's window of their answers (N a wait) and at
    least two waits."""
    return {
        "kind": "closed",
        "users": connections,
        "think_ms": [0, 0],
        "duration_s": search.window_s(connections / held.wait_s, decisive, 2 * held.wait_s),
        "ramp_per_s": connections / held.wait_s,
    }


def warmup_rule(connections: int, held: Held, base: Rule) -> Rule:
    """Slices of one wait, each of which a steady server answers every connection in; the first
    is the ramp's."""
    return replace(
        base,
        slice_s=held.wait_s,
        max_s=max(base.max_s, held.wait_s * (base.window + 3)),
        rps_tolerance=max(base.rps_tolerance, 2 / connections),
    )


def objective(given: Objective, held: Held) -> Objective:
    """A held workload's objective is beyond its wait: a poll answered within the wait plus it."""
    return Objective(given.p99_ms + held.wait_ms, given.p999_ms + held.wait_ms if given.p999_ms is not None else None)


def expected(connections: int, window: float, held: Held, given: Objective) -> int:
    """The answers N connections give over the window when each poll takes the wait plus the
    whole objective: fewer than this, and polls are slower than the objective allows."""
    return round(connections * window / ((held.wait_ms + given.p99_ms) / 1000))
