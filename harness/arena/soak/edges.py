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
    rate: float  # the median edge over the run's starts that found one
    run: str  # the capacity run it came from


def stored(store: Store, workload: str) -> dict[tuple[str, int], Edge]:
    """The newest capacity run's edge of `workload` for each implementation and budget: a search
    that found its edge (an engine-bound one gives only a lower bound)."""
    found: dict[tuple[str, int], Edge] = {}
    for run, _, _ in store.runs():  # newest first
        if run.kind != "capacity":
            continue
        edges: dict[tuple[str, int], list[float]] = {}
        for m in store.measurements(run.id):
            search = m.payload if m.experiment == workload and isinstance(m.payload, CapacitySearch) else None
            if search is not None and search.ended == FOUND and search.edge is not None:
                edges.setdefault((m.impl, m.cpus), []).append(search.edge)
        for key, values in edges.items():
            found.setdefault(key, Edge(statistics.median(values), run.name))
    return found
