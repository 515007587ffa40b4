"""One start's search for the edge: the server warmed (held connections) or saturated, the search
begun where the start and the starts before it say, on a first start probes below the edge for
the curves (spec/capacity.md, "Where a search begins"), and where its workload has a cost rate and
the start sustained it, its server's CPU per answer at that rate (spec/capacity.md, "Where the
engine cannot push")."""

from __future__ import annotations

import dataclasses

from arena.capacity import cost, held, sweep
from arena.capacity.probe import Prober, Runner
from arena.capacity.result import CapacitySearch
from arena.capacity.saturation import saturate
from arena.capacity.search import FOUND, Limits, find_edge
from arena.capacity.workloads import WorkloadPoint, search_parameters, unit_of
from arena.kind import Task


def search(
    task: Task,
    runner: Runner,
    hint: float | None,
    parameters: dict,
    setup_s: float | None,
    phase,
    cost_rate: float | None = None,
) -> CapacitySearch:
    """The search for the edge on a warmed start, from just below what it answered saturated, or
    from `hint`, the median edge of the starts before it, when that is lower, then on decisive
    probes alone (search.find_edge); on the first start, probes below the edge after it; where its
    workload measures a cost, a probe at the run's cost rate (`cost_rate`, the earlier starts', else
    one its own probes tell: capacity/cost.py) where it sustained it. The search's limits go into
    `parameters`."""
    point: WorkloadPoint = task.point
    workload, searching = point.workload, search_parameters()
    prober, unit = Prober(runner, point.objective, searching), unit_of(workload.held)
    saturated = None
    if workload.held:
        warm_rate = max((hint or workload.start_rate) * searching.warm_share, workload.min_rate)
        phase(f"warm-up at {warm_rate:,.0f}{unit}")
        warmed_s, start = prober.warm(warm_rate), hint
    else:
        phase(f"saturating with {searching.saturation_clients} clients")
        # A JIT runtime's warm_s is owed by every workload, on a shared start too: its own code
        # path compiles under its own load (spec/capacity.md, "One start, every workload").
        saturated, warmed_s = saturate(runner, searching, task.manifest.warm_s)
        start = first_rate(hint, saturated, searching.saturation_share)
    limits = Limits(
        workload.start_rate,
        workload.min_rate,
        held.most_connections(workload.max_rate) if workload.held else workload.max_rate,
        searching.growth,
        searching.precision,
        searching.max_probes,
        searching.max_jump,
        first_growth=searching.hinted_growth if start else None,
        resolution=1.0 if workload.held else 0.0,
        saturated=saturated.throughput if saturated and not saturated.engine_bound else None,
    )
    parameters["limits"] = dataclasses.asdict(limits)
    phase(f"search from {start:,.0f}{unit}" if start else "search")
    found = find_edge(prober, limits, start, confirming=hint is not None)
    below = []
    if task.repetition == 0 and found.ended == FOUND:
        for share in searching.curve_shares:
            phase(f"below the edge: {share:.0%} of it")
            below.append(prober(max(found.passing * share, limits.min_rate)))
    at = cost.rate(cost_rate, found.probes, searching.cost_share) if workload.cost else None
    measured_cost = None
    if at is not None and found.passing is not None and found.passing >= at:
        phase(f"its cost at {at:,.0f}{unit}")
        measured_cost = prober(at, window_s=searching.cost_window_s)
    return CapacitySearch(
        ended=found.ended,
        edge=found.passing,
        failing=found.failing,
        objective=point.objective.document(),
        steps=len(workload.steps),
        hint=hint,
        probes=[dataclasses.asdict(probe) for probe in found.probes],
        ready_s=runner.server.ready_s,
        setup_s=setup_s,
        held_ms=workload.held.wait_ms if workload.held else None,
        warmed_s=warmed_s,
        saturated=dataclasses.asdict(saturated) if saturated else None,
        below=[dataclasses.asdict(probe) for probe in below],
        cost=dataclasses.asdict(measured_cost) if measured_cost else None,
    )


def first_rate(hint: float | None, saturated: sweep.Level, share: float) -> float | None:
    """Where a start's search begins: the median edge of the starts before it, unless this start
    answered less than that saturated, then what it answered (the edge is below it); without
    earlier starts, `share` of what it answered (near the edge for a server its CPU limits, above
    it for one whose p99 breaks first). A saturation the engine bound says only that the server
    answers more: the hint then, when there is one."""
    most = saturated.throughput if saturated.throughput > 0 else None
    if most is None or (saturated.engine_bound and hint):
        return hint
    return min(most, hint) if hint else share * most
