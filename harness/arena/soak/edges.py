"""Where a soak's rate comes from: the capacity of the soak's workload, as the store last measured it
for an implementation and core budget (spec/soak.md, "The rate")."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from arena.capacity.result import CapacitySearch
from arena.capacity.search import FOUND
from arena.measured.store import Store


@dataclass(frozen=True)
class Edge:
    rate: float  # the median over the run's starts of the highest rate each sustained
    run: str  # the capacity run it came from
    ended: str  # found, or how a start's search ended short of it (the rate is then a lower bound)


def stored(store: Store, workload: str) -> dict[tuple[str, int], Edge]:
    """The newest capacity run's edge of `workload` for each implementation and budget, from every
    start that sustained a rate: a search that found its edge gives it; one that ended short of it
    (engine-bound, at max_rate, unfinished) gives the highest rate it sustained, a lower bound, as
    sound a base for a share as a found edge (a JVM still speeding up probe after probe runs out of
    probes before its bracket narrows)."""
    found: dict[tuple[str, int], Edge] = {}
    for run, _, _ in store.runs():  # newest first
        if run.kind != "capacity":
            continue
        searches: dict[tuple[str, int], list[CapacitySearch]] = {}
        for m in store.measurements(run.id):
            search = m.payload if m.experiment == workload and isinstance(m.payload, CapacitySearch) else None
            if search is not None and search.edge is not None:
                searches.setdefault((m.impl, m.cpus), []).append(search)
        for key, sustained in searches.items():
            short = [s.ended for s in sustained if s.ended != FOUND]
            rate = statistics.median(s.edge for s in sustained if s.edge is not None)
            found.setdefault(key, Edge(rate, run.name, short[0] if short else FOUND))
    return found
