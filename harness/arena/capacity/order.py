"""Which runtime serves more of a workload within its objective, and by how much: a workload's cells
of one budget ordered by their edges, each told from the next by the test `arena compare` uses,
with its smallest change (spec/capacity.md, "The order"). It is the answer a capacity run is for,
and it says which cells still need starts to give it (capacity/cells.py)."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise

from arena.capacity.result import CapacitySearch
from arena.capacity.search import FOUND
from arena.capacity.workloads import search_parameters
from arena.compare.model import Verdict, separable, tested
from arena.measured.measurement import Measurement

SEPARATED, CLOSE, UNTOLD = ">", "≈", "?"


@dataclass(frozen=True)
class Standing:
    """One cell in its workload's order: the edges of its starts that found one, and what the starts
    that ended short of their edge (the engine, max_rate) sustained: then the cell is only a bound,
    as its table row is."""

    impl: str
    edges: list[float]  # of the starts that found their edge
    bounds: list[float]  # what the starts that ended short of it sustained
    resolution: float  # the widest bracket its searches closed, a share

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
    why: str = ""  # what an untold step lacks

    def shown(self) -> str:
        interval = f" [{self.low:.2f}, {self.high:.2f}]" if self.low is not None and self.high is not None else ""
        why = f" ({self.why})" if self.why else ""
        return f"{self.upper}/{self.lower} x{self.ratio:.2f}{interval}{why}"

    def document(self) -> dict:
        fields = ("upper", "lower", "sign", "ratio", "low", "high", "open", "why")
        return {name: getattr(self, name) for name in fields}


@dataclass(frozen=True)
class Order:
    standings: list[Standing]  # the one that serves most first
    steps: list[Step]  # between each standing and the next

    def line(self) -> str:
        """`rust > go ≈ java > node`, then each step's ratio with its interval."""
        if not self.standings:
            return "no cell found an edge"
        chain = self.standings[0].impl + "".join(f" {step.sign} {step.lower}" for step in self.steps)
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
                found.append(f"{one.upper} > {one.lower} in the first, {two.upper} > {two.lower} in the second")
            for made, other, which in ((one, two, "first"), (two, one, "second")):
                clear = made.sign == SEPARATED and made.ratio >= CLEAR_LEAD
                if clear and not (other.sign == SEPARATED and other.upper == made.upper):
                    found.append(f"{made.shown()} in the {which}, {other.sign} in the other: {other.shown()}")
    return found


def of(searches: dict[str, list[CapacitySearch]], most: int | None = None) -> Order:
    """The order of one workload's cells of one budget, from each implementation's searches; a step
    is open while `most` starts a cell (spec/capacity.toml's, unless a run asks for another) could
    still decide it."""
    most = most or search_parameters().starts.most
    standings = [s for impl, found in sorted(searches.items()) if (s := _standing(impl, found)) is not None]
    standings.sort(key=lambda s: -s.value)
    return Order(standings, [_step(upper, lower, most) for upper, lower in pairwise(standings)])


def of_run(measurements: list[Measurement]) -> dict[tuple[str, str, int], Order]:
    """Every workload's order in a run's measurements, by workload, objective (its point) and budget."""
    searches: dict[tuple, dict[str, list[CapacitySearch]]] = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        if m.measured and isinstance(m.payload, CapacitySearch):
            searches[(m.experiment, m.point, m.cpus)][m.impl].append(m.payload)
    return {key: of(by_impl) for key, by_impl in sorted(searches.items())}


def exported(measurements: list[Measurement]) -> list[dict]:
    """The orders of a run for `arena export` (spec/export.md): one per workload, objective and
    budget with two runtimes or more."""
    return [
        {"experiment": experiment, "point": json.loads(point), "cpus": cpus, "line": found.line()} | found.document()
        for (experiment, point, cpus), found in of_run(measurements).items()
        if len(found.standings) > 1
    ]


def _standing(impl: str, searches: list[CapacitySearch]) -> Standing | None:
    edges = [s.edge for s in searches if s.ended == FOUND and s.edge is not None]
    bounds = [s.edge for s in searches if s.ended != FOUND and s.edge is not None]
    if not edges and not bounds:
        return None
    resolution = max((s.resolution() or 0.0 for s in searches), default=0.0)
    return Standing(impl, edges, bounds, resolution)


def _step(upper: Standing, lower: Standing, most: int) -> Step:
    """The test of `arena compare` on the two cells' edges, widened to their searches' brackets.
    A bound below says nothing of the order (the cell beneath it could be above); a bound above
    keeps a lead it has, as an engine-bound number does in `arena compare`. A step the test does
    not decide is open while `most` starts a side, at the means and spreads measured, would."""
    made = {"upper": upper.impl, "lower": lower.impl, "ratio": upper.value / lower.value}
    if lower.bound is not None:
        why = f"{lower.impl} is at least {lower.bound:,.0f}, its edge beyond what a start told"
        return Step(**made, sign=UNTOLD, low=None, high=None, open=False, why=why)
    few = [s.impl for s in (upper, lower) if len(s.samples) < 2]
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
        why = f"{upper.impl} is at least {upper.bound:,.0f}, its edge beyond what a start told"
        return Step(**made, sign=UNTOLD, open=may_show, why=why)
    return Step(**made, sign=CLOSE, open=may_show)
