"""The cells of a capacity run (implementation, workload, objective and budget) and the searches
each has so far: where a later start's search begins, and whether a cell needs another start — while
its place in its workload's order is open (capacity/order.py), or, alone in its workload, until it
is precise enough (capacity/precision.py; spec/capacity.md, "Starts where the order is open")."""

from __future__ import annotations

import statistics
from collections import defaultdict

from arena.capacity import order, precision
from arena.capacity.result import CapacitySearch
from arena.capacity.search import FOUND
from arena.capacity.workloads import StartRule
from arena.kind import Task
from arena.measured.measurement import Measurement


class Cells:
    """The searches of each cell so far (implementation, workload, objective and budget): a later
    start's search begins at the median of their edges, and a cell takes another start only while
    its order against its neighbours is open (or, alone, while it is not precise enough)."""

    def __init__(self, stored: list[Measurement], rule: StartRule) -> None:
        self.rule = rule
        self.searches: dict[tuple, list[CapacitySearch]] = defaultdict(list)
        self.failed: dict[tuple, int] = defaultdict(int)
        for m in stored:
            self.add(m)

    @staticmethod
    def _key(impl: str, experiment: str, point: str, cpus: int) -> tuple:
        return (impl, experiment, point, cpus)

    def _of(self, task: Task) -> tuple:
        return self._key(task.manifest.name, task.point.experiment, task.point.key, task.cpus)

    def add(self, m: Measurement) -> None:
        key = self._key(m.impl, m.experiment, m.point, m.cpus)
        if m.measured and isinstance(m.payload, CapacitySearch):
            self.searches[key].append(m.payload)
        elif not m.measured:
            self.failed[key] += 1

    def hint(self, task: Task) -> float | None:
        """Only a search that found its edge hints: an engine-bound or unfinished one gives a
        lower bound, which a later start must climb from as a first start does."""
        edges = [s.edge for s in self.searches[self._of(task)] if s.ended == FOUND and s.edge is not None]
        return statistics.median(edges) if edges else None

    def cost_rate(self, task: Task) -> float | None:
        """The rate its workload's costs are measured at in this run, where an earlier start of
        any cell of its workload, objective and budget measured one (capacity/cost.py)."""
        key = self._of(task)
        for k, found in self.searches.items():
            if k[1:] == key[1:]:
                for search in found:
                    if (probe := search.cost_probe()) is not None:
                        return probe.rate
        return None

    def needless(self, task: Task) -> str | None:
        """Why the task's start is not needed: its cell is precise enough (a sweep of clients runs on
        the least starts a cell takes)."""
        if task.point.clients:
            sweeps = task.repetition < self.rule.least
            return None if sweeps else f"a sweep runs on the first {self.rule.least} start(s)"
        key = self._of(task)
        neighbours = {k[0]: found for k, found in self.searches.items() if k[1:] == key[1:]}
        # Alone in its workload, a cell has no order to decide: its own precision does.
        beside = (lambda: order.of(neighbours, self.rule.most).open_beside(key[0])) if len(neighbours) > 1 else None
        noisy = task.point.workload.noisy
        return precision.another_start(self.searches[key], self.failed[key], self.rule, noisy, beside)
