"""A framework's cost: a setup measured beside the setup it adds its framework to (its manifest's
`versus`, as TechEmpower sets each entry against its platform), as the ratio of their edges and of
their servers' CPU per answered request, each with its 95% interval (spec/capacity.md, "The
runtime told from its framework")."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

from arena.capacity.result import CapacitySearch
from arena.capacity.search import FOUND
from arena.compare.model import tested
from arena.impls import setups
from arena.measured.measurement import Measurement


@dataclass(frozen=True)
class Ratio:
    """The setup's number over its platform's, with its interval; None where a side had one start."""

    ratio: float
    low: float | None
    high: float | None

    def shown(self) -> str:
        interval = f" [{self.low:.2f}, {self.high:.2f}]" if self.low is not None and self.high is not None else ""
        return f"x{self.ratio:.2f}{interval}"


@dataclass(frozen=True)
class Cost:
    setup: str  # the row with the framework
    versus: str  # the row it adds its framework to
    labels: tuple[str, str]
    edge: Ratio | None  # the setup's edge over the other's (below 1: it serves less)
    cpu: Ratio | None  # its CPU per answer over the other's (above 1: each answer costs more)
    cpu_where: str  # at which rate the CPU per answer was measured
    bound: str = ""  # a side whose edge only a bound told, which the edge's ratio does not hold

    def line(self) -> str:
        setup, versus = self.labels
        edge = f"edge {self.edge.shown()}" if self.edge else "edge: no number"
        edge += f" ({self.bound})" if self.bound else ""
        cpu = f"CPU per answer {self.cpu.shown()} {self.cpu_where}" if self.cpu else "CPU per answer: no number"
        return f"{setup} against {versus}: {edge}, {cpu}"


def _ratio(a: list[float], b: list[float]) -> Ratio | None:
    """b over a: the geometric means' ratio, with Welch's interval on the logarithms where each
    side has two values or more."""
    if not a or not b or min(a + b) <= 0:
        return None
    if len(a) < 2 or len(b) < 2:
        return Ratio(statistics.geometric_mean(b) / statistics.geometric_mean(a), None, None)
    ratio, low, high, _, _ = tested(a, b, 0.0, higher=True)
    return Ratio(ratio, low, high)


def _edges(searches: list[CapacitySearch]) -> list[float]:
    return [s.edge for s in searches if s.edge is not None]


def _at_edge(searches: list[CapacitySearch]) -> list[float]:
    return [p.server_cpu_s / p.ok_requests for s in searches if (p := s.at_edge()) is not None and p.ok_requests]


def cost(setup: str, versus: str, mine: list[CapacitySearch], theirs: list[CapacitySearch]) -> Cost:
    """The cost of `setup`'s framework over `versus`: its edge over theirs, and its CPU per answer
    over theirs — at the workload's cost rate where both measured it there, else each at its own
    edge (where a server near its edge spends about a core, so that ratio mostly mirrors the
    edges', unless pauses rather than the core set an edge)."""
    known = setups.known()
    labels = (known.canonical(setup), known.canonical(versus))
    bounds = [
        label for label, found in zip(labels, (mine, theirs), strict=True) if any(s.ended != FOUND for s in found)
    ]
    bound = f"{' and '.join(bounds)}: a bound, its edge beyond it" if bounds else ""
    at_rate = [[c for s in found if (c := s.cost_per_answer()) is not None] for found in (theirs, mine)]
    if all(len(costs) >= 2 for costs in at_rate):
        rate = next(p.rate for s in mine if (p := s.cost_probe()) is not None)
        cpu, where = _ratio(*at_rate), f"at {rate:,.0f}/s"
    else:
        cpu, where = _ratio(_at_edge(theirs), _at_edge(mine)), "at their edges"
    return Cost(setup, versus, labels, _ratio(_edges(theirs), _edges(mine)), cpu, where, bound)


def of_run(measurements: list[Measurement]) -> dict[tuple[str, str, int], list[Cost]]:
    """Every framework's cost a run measured, by workload, objective (its point) and budget: each
    setup measured beside the setup it adds its framework to."""
    searches: dict[tuple, dict[str, list[CapacitySearch]]] = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        if m.measured and isinstance(m.payload, CapacitySearch):
            searches[(m.experiment, m.point, m.cpus)][m.impl].append(m.payload)
    known, found = setups.known(), {}
    for key, by_row in sorted(searches.items()):
        costs = [
            cost(row, versus, by_row[row], by_row[versus])
            for row in sorted(by_row)
            if (versus := known.versus(row)) is not None and versus in by_row
        ]
        if costs:
            found[key] = costs
    return found
