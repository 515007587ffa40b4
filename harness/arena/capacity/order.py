"""Which runtime serves more of a workload within its objective, and by how much: a workload's cells
of one budget ordered by their edges, each told from the next by the test `arena compare` uses,
with its smallest change (spec/capacity.md, "The order"). Runtimes are ordered like for like, each
on its lightest setup measured (impls/setups.py), and the cells the engine could not push to their
edges by their servers' CPU per answer at one rate (spec/capacity.md, "Where the engine cannot
push"). It is the answer a capacity run is for, and it says which cells still need starts to give
it (capacity/cells.py)."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise, takewhile

from arena.capacity.result import CapacitySearch
from arena.capacity.search import ENGINE_BOUND, FOUND
from arena.capacity.workloads import search_parameters
from arena.compare.model import Verdict, separable, tested
from arena.impls import setups
from arena.measured.measurement import Measurement

SEPARATED, CLOSE, UNTOLD = ">", "≈", "?"


@dataclass(frozen=True)
class Standing:
    """One cell in its workload's order: the edges of its starts that found one, and what the starts
    that ended short of their edge (the engine, max_rate) sustained: then the cell is only a bound,
    as its table row is."""

    impl: str  # the row: an implementation's setup (impls/catalog.py)
    edges: list[float]  # of the starts that found their edge
    bounds: list[float]  # what the starts that ended short of it sustained
    resolution: float  # the widest bracket its searches closed, a share
    costs: list[float] = dataclasses.field(default_factory=list)  # CPU s per answer at the cost rate, a start each
    cost_rate: float | None = None
    engine_bound: bool = False  # a start ended where the engine could push no further
    label: str = ""  # the row as shown: its setup spelled out beside the implementation's others

    @property
    def shown(self) -> str:
        return self.label or self.impl

    @property
    def bound(self) -> float | None:
        """Where a start ended short of its edge, the median of what its starts sustained, which the
        cell's own is at least (the table's "≥"): all the cell claims."""
        return statistics.median(self.samples) if self.bounds else None

    @property
    def samples(self) -> list[float]:
        """What each start sustained: its edge, or the rate it reached."""
        return self.edges + self.bounds

    @property
    def value(self) -> float:
        """Where it stands: its bound, else the geometric mean of its edges, which the test's ratio
        is made of."""
        bound = self.bound
        return bound if bound is not None else math.exp(statistics.fmean(math.log(e) for e in self.edges))


@dataclass(frozen=True)
class Step:
    """Two neighbours of an order, the one that serves more first, and how they were told apart."""

    upper: str
    lower: str
    sign: str  # SEPARATED, CLOSE or UNTOLD
    ratio: float  # upper over lower
    low: float | None  # its 95% interval; None where the step was not tested
    high: float | None
    open: bool  # more starts of both, up to the most a cell takes, could still decide it
    why: str = ""  # what an untold step lacks, or what decided it other than the edges
    by_cost: bool = False  # told by the servers' CPU per answer at the cost rate, not by the edges
    labels: tuple[str, str] = ("", "")  # the two rows as shown, where not their names

    @property
    def names(self) -> tuple[str, str]:
        """The upper and the lower cell as shown."""
        upper, lower = (label or name for label, name in zip(self.labels, (self.upper, self.lower), strict=True))
        return upper, lower

    def shown(self) -> str:
        interval = f" [{self.low:.2f}, {self.high:.2f}]" if self.low is not None and self.high is not None else ""
        why = f" ({self.why})" if self.why else ""
        upper, lower = self.names
        return f"{upper}/{lower} x{self.ratio:.2f}{interval}{why}"

    def document(self) -> dict:
        fields = ("upper", "lower", "sign", "ratio", "low", "high", "open", "why", "by_cost")
        return {name: getattr(self, name) for name in fields}


@dataclass(frozen=True)
class Order:
    standings: list[Standing]  # the one that serves most first
    steps: list[Step]  # between each standing and the next

    def line(self) -> str:
        """`rust > go ≈ java > node`, then each step's ratio with its interval; a runtime measured
        on several setups is named by the one it stands on (`node:http-cluster`)."""
        if not self.standings:
            return "no cell found an edge"
        chain = self.standings[0].shown + "".join(
            f" {step.sign} {lower.shown}" for step, lower in zip(self.steps, self.standings[1:], strict=True)
        )
        return chain + (f": {'; '.join(step.shown() for step in self.steps)}" if self.steps else "")

    def open_beside(self, impl: str) -> Step | None:
        """The first step beside the cell that more starts could still decide, if any."""
        return next((s for s in self.steps if s.open and impl in (s.upper, s.lower)), None)

    def document(self) -> dict:
        return {"order": [s.impl for s in self.standings], "steps": [s.document() for s in self.steps]}

    def between(self, first: str, second: str) -> Step | None:
        """The two cells told apart as neighbours are, whether or not they are neighbours: the one
        that stands higher first; None when either has no place in the order."""
        placed = {s.impl: s for s in self.standings}
        if first not in placed or second not in placed:
            return None
        upper, lower = sorted((placed[first], placed[second]), key=lambda s: -s.value)
        return _step(upper, lower, search_parameters().starts.most)


# A lead this large in one run is one any repeat must show (issue 64: two runs of one command).
CLEAR_LEAD = 1.5


def unrepeated(first: Order, second: Order) -> list[str]:
    """How the second run's order fails to repeat the first's, pair by pair: a pair separated in both
    the other way round, or a lead of CLEAR_LEAD or more in one that the other does not separate
    the same way. Empty when it repeats."""
    found = []
    placed = {s.impl for s in second.standings}
    names = [s.impl for s in first.standings if s.impl in placed]
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            one, two = first.between(x, y), second.between(x, y)
            if one is None or two is None:
                continue
            same_way = one.upper == two.upper
            if one.sign == SEPARATED and two.sign == SEPARATED and not same_way:
                first_way, second_way = " > ".join(one.names), " > ".join(two.names)
                found.append(f"{first_way} in the first, {second_way} in the second")
            for made, other, which in ((one, two, "first"), (two, one, "second")):
                clear = made.sign == SEPARATED and made.ratio >= CLEAR_LEAD
                if clear and not (other.sign == SEPARATED and other.upper == made.upper):
                    found.append(f"{made.shown()} in the {which}, {other.sign} in the other: {other.shown()}")
    return found


def of(searches: dict[str, list[CapacitySearch]], most: int | None = None) -> Order:
    """The order of one workload's runtimes of one budget, like for like: each on the lightest of its
    setups measured (impls/setups.py); a step is open while `most` starts a cell (spec/capacity.toml's,
    unless a run asks for another) could still decide it."""
    return _ordered(searches, setups.known().lightest(sorted(searches)), most)


def of_setups(searches: dict[str, list[CapacitySearch]], most: int | None = None) -> dict[str, Order]:
    """Each implementation measured on two setups or more: its setups' own order."""
    known, names = setups.known(), sorted(searches)
    impls = [
        impl for impl in dict.fromkeys(known.impl(n) for n in names) if sum(known.impl(n) == impl for n in names) > 1
    ]
    return {impl: _ordered(searches, [n for n in names if known.impl(n) == impl], most) for impl in impls}


def _ordered(searches: dict[str, list[CapacitySearch]], names: list[str], most: int | None) -> Order:
    """`names`' cells by their edges, the top the engine could not push by their cost."""
    most = most or search_parameters().starts.most
    found = [(n, setups.known().canonical(n)) for n in names]
    standings = [s for name, label in found if (s := _standing(name, label, searches[name])) is not None]
    standings.sort(key=lambda s: -s.value)
    standings = _by_cost(standings, most)
    return Order(standings, [_step(upper, lower, most) for upper, lower in pairwise(standings)])


def _by_cost(standings: list[Standing], most: int) -> list[Standing]:
    """The top of an order that the engine left untold — the highest cell, where the engine could
    not push it to its edge, and the cells below it that its edges do not tell from it, up to the
    first they do. Its cells the engine pushed to no edge go first, ordered by their servers' CPU
    per answer at the workload's cost rate, the cheapest first; the rest of it stays in the edges'
    order: an edge found is measured, and a cheaper answer does not lift a cell over a higher edge.
    Below that top, the order is the edges': a cell of two starts far apart is untold from every
    other, and would otherwise rise from its place to the top."""
    if len(standings) < 2 or not standings[0].engine_bound:
        return standings
    first = standings[0]
    top = [first, *takewhile(lambda s: _edge_step(first, s, most).sign == UNTOLD, standings[1:])]
    costed = sorted((s for s in top if s.engine_bound and s.costs), key=lambda s: _mean_log(s.costs))
    return costed + [s for s in standings if s not in costed]


def _mean_log(values: list[float]) -> float:
    return statistics.fmean(math.log(v) for v in values)


def of_run(measurements: list[Measurement]) -> dict[tuple[str, str, int], Order]:
    """Every workload's order in a run's measurements, by workload, objective (its point) and budget."""
    return {key: of(by_impl) for key, by_impl in _searches(measurements).items()}


def setups_of_run(measurements: list[Measurement]) -> dict[tuple[str, str, int], dict[str, Order]]:
    """Each workload's setups' orders, of every implementation measured on two or more, by workload,
    objective and budget."""
    return {key: found for key, by_impl in _searches(measurements).items() if (found := of_setups(by_impl))}


def _searches(measurements: list[Measurement]) -> dict[tuple, dict[str, list[CapacitySearch]]]:
    searches: dict[tuple, dict[str, list[CapacitySearch]]] = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        if m.measured and isinstance(m.payload, CapacitySearch):
            searches[(m.experiment, m.point, m.cpus)][m.impl].append(m.payload)
    return dict(sorted(searches.items()))


def exported(measurements: list[Measurement]) -> list[dict]:
    """The orders of a run for `arena export` (spec/export.md): one per workload, objective and
    budget with two runtimes or more."""
    return [
        {"experiment": experiment, "point": json.loads(point), "cpus": cpus, "line": found.line()} | found.document()
        for (experiment, point, cpus), found in of_run(measurements).items()
        if len(found.standings) > 1
    ]


def _standing(impl: str, label: str, searches: list[CapacitySearch]) -> Standing | None:
    edges = [s.edge for s in searches if s.ended == FOUND and s.edge is not None]
    bounds = [s.edge for s in searches if s.ended != FOUND and s.edge is not None]
    if not edges and not bounds:
        return None
    resolution = max((s.resolution() or 0.0 for s in searches), default=0.0)
    costs = [cost for s in searches if (cost := s.cost_per_answer()) is not None]
    rate = next((probe.rate for s in searches if (probe := s.cost_probe()) is not None), None)
    engine_bound = any(s.ended == ENGINE_BOUND for s in searches)
    return Standing(impl, edges, bounds, resolution, costs, rate, engine_bound, label if label != impl else "")


def _step(upper: Standing, lower: Standing, most: int) -> Step:
    """Where the engine could not push either cell to its edge and their edges do not tell them
    apart, their servers' CPU per answer at the cost rate (`_cost_step`); else their edges."""
    step = _edge_step(upper, lower, most)
    bound = upper.engine_bound or lower.engine_bound
    if step.sign == UNTOLD and bound and len(upper.costs) >= 2 and len(lower.costs) >= 2:
        return _cost_step(upper, lower, most)
    return step


def _cost_step(upper: Standing, lower: Standing, most: int) -> Step:
    """The test of `arena compare` on the two cells' CPU per answer at one rate, the cheaper above:
    the ratio is the lower cell's cost over the upper's. At that rate both served every arrival, so
    the one that spends less on each serves more on the same core, as far as the engine can tell."""
    rate = f"{upper.cost_rate:,.0f}/s" if upper.cost_rate else "the cost rate"
    made = {"upper": upper.impl, "lower": lower.impl, "labels": (upper.label, lower.label), "by_cost": True}
    ratio, low, high, _, verdict = tested(upper.costs, lower.costs, 0.0, higher=True)
    why = f"by CPU per answer at {rate}: the engine pushed neither to its edge"
    if verdict is Verdict.FASTER:
        return Step(**made, sign=SEPARATED, ratio=ratio, low=low, high=high, open=False, why=why)
    if verdict is Verdict.SLOWER:
        # The cell below spends less: its edges left it below, and its cost says the other way.
        return _edge_step(upper, lower, most)
    may_show = separable(upper.costs, lower.costs, most, 0.0)
    return Step(**made, sign=CLOSE, ratio=ratio, low=low, high=high, open=may_show, why=why)


def _edge_step(upper: Standing, lower: Standing, most: int) -> Step:
    """The test of `arena compare` on the two cells' edges, widened to their searches' brackets.
    A bound below says nothing of the order (the cell beneath it could be above); a bound above
    keeps a lead it has, as an engine-bound number does in `arena compare`. A step the test does
    not decide is open while `most` starts a side, at the means and spreads measured, would."""
    made = {"upper": upper.impl, "lower": lower.impl, "ratio": upper.value / lower.value}
    made["labels"] = (upper.label, lower.label)
    if lower.bound is not None:
        why = f"{lower.shown} is at least {lower.bound:,.0f}, its edge beyond what a start told"
        return Step(**made, sign=UNTOLD, low=None, high=None, open=False, why=why)
    few = [s.shown for s in (upper, lower) if len(s.samples) < 2]
    if few:
        return Step(**made, sign=UNTOLD, low=None, high=None, open=True, why=f"one start of {' and '.join(few)}")
    resolution = max(upper.resolution, lower.resolution)
    ratio, low, high, _, verdict = tested(lower.samples, upper.samples, resolution, higher=True)
    made |= {"ratio": ratio, "low": low, "high": high}
    if verdict is Verdict.FASTER:
        return Step(**made, sign=SEPARATED, open=False)
    # A ratio within the smallest change stays "≈" however many starts follow, since `arena compare`
    # calls no such difference one; and one that `most` starts a side would not separate if their
    # edges kept the spread measured takes none either: more starts go only where they may decide
    # the order (spec/capacity.md, "Starts where the order is open").
    may_show = separable(lower.samples, upper.samples, most, resolution)
    if upper.bound is not None:
        # Its lead may still show with more starts of both: each start's bound is at least its own
        # edge, so more of them can only make that lead surer (capacity/precision.py).
        why = f"{upper.shown} is at least {upper.bound:,.0f}, its edge beyond what a start told"
        return Step(**made, sign=UNTOLD, open=may_show, why=why)
    return Step(**made, sign=CLOSE, open=may_show)
