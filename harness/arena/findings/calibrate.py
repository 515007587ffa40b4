"""How often the verdict rules are wrong (spec/findings.md, "The judge is judged"): a stored run's
measurements replayed under the rules many times, with nothing measured anew.

Each draw gives every case of a finding's test new numbers made from what the case itself measured:
one side's centre (chosen at random, a donor) for every side, and about it, for each repetition,
the case's scatter in its two parts (`_scatter`): a move that every side measured in that
repetition shares (the machine's minutes), and each side's own about it. Identical runtimes with
the scatter this machine gave them, then:

- **Identical runtimes** (A/A): the sides as drawn. An order is true of none of them, so a decided
  verdict (agrees or disagrees) is a wrong one. For a band (`ratio`, `similar`) the claimed side is put on the band's
  edge nearest 1, where neither verdict is true either.
- **Power**: one side made better by a planted factor (x1.1, x1.25, x2; for a band, that far past
  its edge), and how often the verdict says so: agrees for an order, disagrees for a band.

A permutation of the measured repetitions would not do: every side would hold the same numbers
in another order, so the geometric means, and every ratio of them, would be exactly 1 in every
draw, and no rule could decide anything. Drawing the scatter anew keeps its size and shape, and
what a repetition's sides share, which a ratio by repetition cancels as it does in a run. It is
drawn smoothed (`Scatter`): a case's scatter is nine numbers or so, and three draws from nine fall
close together far more often than three measurements do, so a Student's t on them is large far
more often too (on V-Fig4b's A/A draws, p below Holm's 5%/8 came 1.8 to 2.3 times as often as it
should, where p below 5% came 0.7 to 0.9 times), and the rules would be charged for what only the
resampling made. Where a
quarter better is found less than four times in five, draws of more repetitions (MORE) say how
many would find it so."""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.findings import rules
from arena.findings.catalog import Finding, Test
from arena.findings.judge import case_key, judge
from arena.findings.rules import order_key
from arena.findings.values import Cell, Index, value_of
from arena.findings.verdict import ALPHA, Verdict
from arena.measured.stats import SMALLEST_CHANGE
from arena.report.tables import Cell as Shown
from arena.report.tables import Column, Row, Table

DRAWS = 400
EFFECTS = (1.1, 1.25, 2.0)
DECIDED = (Verdict.AGREES, Verdict.DISAGREES)
# The power spec/findings.md asks: a quarter better found the right way in four draws of five; where
# it is not, the repetitions a side that would find it so are looked for among MORE.
POWER_EFFECT, POWER = 1.25, 0.8
MORE = (6, 12, 24)
# The rules a draw can plant an effect in: an order over implementations or along an axis, or a band.
ORDERS = (rules.Order, rules.Best, rules.Worst, rules.Peaks, rules.Improves, rules.Worsens, rules.Jumps)
BANDS = (rules.Ratio, rules.Similar)

# What a planted effect makes of a cell, given the first point of its series along the rule's axis:
# the factor its numbers are multiplied by.
Plant = Callable[[Cell, Any], float]


@dataclass(frozen=True)
class Rate:
    """How many draws of how many came out one way, with the 95% interval of that share (Wilson's)."""

    hits: int
    draws: int

    @property
    def share(self) -> float:
        return self.hits / self.draws

    def interval(self) -> tuple[float, float]:
        z, n, p = 1.96, self.draws, self.share
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def show(self) -> str:
        low, high = self.interval()
        return f"{self.share:.1%} [{low:.1%}, {high:.1%}]"

    def above(self, bound: float) -> bool:
        """Whether the share lies above `bound` beyond what the draws can tell: a rule whose one
        comparison is wrong exactly 5% of the time shows 7% in some runs of 400 draws (V-Fig5-e:
        7.0% [4.9%, 9.9%] in 400, 5.2% [4.3%, 6.2%] in 2,000)."""
        return self.interval()[0] > bound


@dataclass(frozen=True)
class Calibrated:
    """One finding's error rates: on A/A draws (decided: wrong), and under each planted effect
    (decided the right way); with the cases a draw judged and the fewest repetitions of a side."""

    finding: Finding
    rule: str
    cases: int
    repetitions: int
    at_ceiling: bool
    aa: Rate | None
    power: dict[float, Rate | None]
    needed: int | None = None  # repetitions a side that find x1.25 in 80% of draws; 0: more than MORE's last
    # A test whose claim needs more cases than the run could judge, as "2 of 3 cases": it can never
    # agree, so no planted effect is found, at any count of repetitions.
    short_of: str = ""


class _Remembered:
    """The stored index, each experiment's cells read once for every draw."""

    def __init__(self, index: Index) -> None:
        self.kinds = index.kinds
        self._index = index
        self._cells: dict[tuple, list[Cell]] = {}

    def cells(self, kind: str, experiment: str, metric: str, higher_is_better: bool) -> list[Cell]:
        key = (kind, experiment, metric, higher_is_better)
        if key not in self._cells:
            self._cells[key] = self._index.cells(*key)
        return self._cells[key]


class Replayed:
    """One draw: an index whose cells of each calibrated test are drawn anew (module docstring), the
    same for every test that reads them; the rest as stored. It answers the judge as `values.Index`
    does."""

    def __init__(self, index: Index, prepared: dict[tuple, list[Group]], rng: random.Random, slots: int = 0) -> None:
        self.kinds = index.kinds
        self._index, self._prepared, self._rng, self._slots = index, prepared, rng, slots
        self._drawn: dict[tuple, list[Cell]] = {}

    def cells(self, kind: str, experiment: str, metric: str, higher_is_better: bool) -> list[Cell]:
        key = (kind, experiment, metric, higher_is_better)
        if key not in self._drawn:
            cells = self._index.cells(*key)
            groups = self._prepared.get(key)
            self._drawn[key] = (
                _drawn(groups, cells, higher_is_better, metric, self._rng, self._slots) if groups else cells
            )
        return self._drawn[key]


@dataclass(frozen=True)
class Scatter:
    """Deviations on the logarithms, drawn as a smoothed bootstrap draws them (Silverman 1986, 3.5):
    one of them plus a normal step of `bandwidth`, shrunk so that the draws scatter as much as the
    deviations do and no more."""

    deviations: list[float]
    bandwidth: float
    shrink: float

    @classmethod
    def of(cls, deviations: list[float]) -> Scatter:
        spread = math.sqrt(statistics.fmean(d * d for d in deviations))
        if len(deviations) < 2 or spread == 0:
            return cls(deviations, 0.0, 1.0)
        quartiles = statistics.quantiles(deviations, n=4)
        # Silverman's rule of thumb, the spread taken robustly where one deviation stands apart.
        robust = min(statistics.stdev(deviations), (quartiles[2] - quartiles[0]) / 1.34) or spread
        bandwidth = 0.9 * robust * len(deviations) ** -0.2
        return cls(deviations, bandwidth, 1 / math.sqrt(1 + (bandwidth / spread) ** 2))

    def draw(self, rng: random.Random) -> float:
        return (rng.choice(self.deviations) + rng.gauss(0.0, self.bandwidth)) * self.shrink


@dataclass(frozen=True)
class Group:
    """The cells of one case (or of cases several tests of one metric share), as every draw of them
    starts: the sides with numbers to draw from, the scatter they showed in its two parts
    (`_scatter`), and the factor each cell's numbers take from every test's plant."""

    cells: list[Cell]
    donors: list[Cell]
    shared: Scatter
    own: Scatter
    factors: dict[int, float]  # by id() of the cell


def prepared(planted: list[tuple[Test, Plant]], cells: list[Cell]) -> list[Group]:
    """The cells' groups, worked out once for every draw of them."""
    firsts = [_firsts(test, cells) for test, _ in planted]
    groups = []
    for group in _merged(cells, [test for test, _ in planted]):
        donors = [c for c in group if c.value is not None and len(c.numbers) >= 2 and min(c.numbers) > 0]
        factors = {
            id(cell): math.prod(
                plant(cell, first[(case_key(test, cell), cell.impl)])
                for (test, plant), first in zip(planted, firsts, strict=True)
            )
            for cell in donors
        }
        shared, own = _scatter(donors)
        groups.append(Group(group, donors, Scatter.of(shared), Scatter.of(own), factors))
    return groups


def _drawn(
    groups: list[Group], cells: list[Cell], higher: bool, metric: str, rng: random.Random, slots: int = 0
) -> list[Cell]:
    """The cells with new numbers for each repetition (or for `slots` repetitions, as many as a run
    might take): every side of a case about one side's centre, with the case's scatter drawn anew,
    then multiplied by its plants' factor. Tests of one metric read one draw, its cases the widest
    any of them takes (an order at each point and a growth along the points: one centre along them
    all)."""
    repetitions = [("drawn", i) for i in range(slots)]
    drawn = {}
    for group in groups:
        keys = {id(cell): repetitions or list(cell.by_repetition) for cell in group.cells}
        # One move of the machine's a repetition, the same for every side measured in it.
        moved = {k: group.shared.draw(rng) for k in sorted({k for ks in keys.values() for k in ks}, key=str)}
        donor = rng.choice(group.donors) if group.donors else None
        for cell in group.cells:
            if donor is None or id(cell) not in group.factors:
                drawn[id(cell)] = cell
                continue
            centre = statistics.fmean(math.log(x) for x in donor.numbers)
            factor = group.factors[id(cell)]
            numbers = {k: math.exp(centre + moved[k] + group.own.draw(rng)) * factor for k in keys[id(cell)]}
            value = value_of(list(numbers.values()), donor.value.bounded, higher, donor.value.resolution, metric)
            value = dataclasses.replace(
                value,
                ceiling=donor.value.ceiling,
                ceiling_why=donor.value.ceiling_why,
                ceiling_rps=donor.value.ceiling_rps,
                ceiling_own=donor.value.ceiling_own,
            )
            drawn[id(cell)] = dataclasses.replace(
                cell, value=value, flags=donor.flags, lost_to_engine=donor.lost_to_engine, by_repetition=numbers
            )
    return [drawn[id(cell)] for cell in cells]


def _merged(cells: list[Cell], tests: list[Test]) -> list[list[Cell]]:
    """The cells in groups that are a case of some test, cases of several tests that share a cell
    made one group."""
    parent = list(range(len(cells)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for test in tests:
        seen: dict[str, int] = {}
        for i, cell in enumerate(cells):
            parent[root(i)] = root(seen.setdefault(case_key(test, cell), i))
    groups: dict[int, list[Cell]] = defaultdict(list)
    for i, cell in enumerate(cells):
        groups[root(i)].append(cell)
    return list(groups.values())


def _firsts(test: Test, cells: list[Cell]) -> dict[tuple, Any]:
    """The first point of each implementation's series along the test's axis, by case."""
    firsts: dict[tuple, Any] = {}
    for cell in sorted(cells, key=lambda c: order_key(_x(test, c))):
        firsts.setdefault((case_key(test, cell), cell.impl), _x(test, cell))
    return firsts


def _scatter(measured: list[Cell]) -> tuple[list[float], list[float]]:
    """What a case's sides scattered, on the logarithms, in two parts: each repetition's move that
    every side measured in it shared (the machine's minutes: what a ratio by repetition cancels),
    and each side's own about that (an analysis of variance by side and repetition, each part
    widened to what one draw of it scatters). Sides that share no two repetitions have no shared
    part: each one's deviations about its own mean."""
    keys = sorted(set.intersection(*(set(c.by_repetition) for c in measured)), key=str) if measured else []
    sides, reps = len(measured), len(keys)
    if sides < 2 or reps < 2:
        return [0.0], [d for c in measured for d in _deviations(c)] or [0.0]
    logs = [[math.log(c.by_repetition[k]) for k in keys] for c in measured]
    means = [statistics.fmean(side) for side in logs]
    moves = [statistics.fmean(side[r] - mean for side, mean in zip(logs, means, strict=True)) for r in range(reps)]
    own = [side[r] - mean - moves[r] for side, mean in zip(logs, means, strict=True) for r in range(reps)]
    widen = math.sqrt(sides * reps / ((sides - 1) * (reps - 1)))
    return [m * math.sqrt(reps / (reps - 1)) for m in moves], [e * widen for e in own]


def _deviations(cell: Cell) -> list[float]:
    """A cell's logarithms about their mean, widened to what one repetition scatters."""
    logs = [math.log(x) for x in cell.numbers]
    centre, n = statistics.fmean(logs), len(logs)
    return [(x - centre) * math.sqrt(n / (n - 1)) for x in logs]


def _x(test: Test, cell: Cell):
    """The cell's place along the test's axis (its budget, for the axis `cpus`)."""
    return cell.cpus if test.rule.axis == "cpus" else cell.point.get(test.rule.axis)


def _at(value, cell: Cell):
    return cell.cpus if value == "cpus" else value


def planted(test: Test, effect: float) -> Plant | None:
    """What a planted effect of `effect` makes of each cell of the test (1: none; for a band, its
    nearest edge times `effect` outward), or None where the rule has no effect to plant."""
    rule, better = test.rule, effect if test.higher_is_better else 1 / effect

    def beyond(cell: Cell, start: Any, first: Any) -> bool:
        """Whether the cell lies past its series' start (the rule's `from`, else its first point)."""
        return _x(test, cell) != (first if start is None else _at(start, cell))

    if isinstance(rule, rules.Order):
        ranks = {impl: len(rule.order) - 1 - i for i, impl in enumerate(rule.order)}
        return lambda c, _: better ** ranks.get(c.impl, 0)
    if isinstance(rule, rules.Best):
        return lambda c, _: better if c.impl == rule.best else 1.0
    if isinstance(rule, rules.Worst):
        return lambda c, _: 1 / better if c.impl == rule.worst else 1.0
    if isinstance(rule, rules.Peaks):
        return lambda c, _: better if c.impl in rule.peaks and _x(test, c) == _at(rule.at, c) else 1.0
    if isinstance(rule, rules.Improves):
        return lambda c, first: better if c.impl in rule.improves and beyond(c, rule.start, first) else 1.0
    if isinstance(rule, rules.Worsens):
        # "worse by at least `by`": the effect planted past that, as a band's past its edge
        past = (1 + rule.by) * effect if effect != 1 else 1.0
        worse = past if not test.higher_is_better else 1 / past
        return lambda c, first: worse if c.impl in rule.worsens and beyond(c, rule.start, first) else 1.0
    if isinstance(rule, rules.Jumps):
        return lambda c, _: effect if c.impl == rule.jumps and _x(test, c) == rule.end else 1.0
    if isinstance(rule, rules.Ratio):
        edge = rule.low if abs(math.log(rule.low)) < abs(math.log(rule.high)) else rule.high
        outward = edge * (effect if edge == rule.high else 1 / effect)
        return lambda c, _: outward if c.impl == rule.ratio else 1.0
    if isinstance(rule, rules.Similar) and rule.within_ms is None:
        edge = (1 + rule.within) * effect
        return lambda c, _: edge if c.impl == rule.similar[-1] else 1.0
    return None


def truth(test: Test, effect: float) -> Verdict | None:
    """The verdict a planted effect should get: agrees for an order that far ahead (a worsening
    that far past the least it claims), disagrees for a band that far past its edge; None where no
    verdict is right (below the smallest change that counts)."""
    if isinstance(test.rule, BANDS):
        return Verdict.DISAGREES
    least = 0.0 if isinstance(test.rule, rules.Worsens) else SMALLEST_CHANGE
    return Verdict.AGREES if effect > 1 + least else None


def _truth(tests: list[Test], effect: float) -> Verdict | None:
    """The verdict a finding should get under a planted effect: its tests' one truth, or none."""
    truths = {truth(t, effect) for t in tests}
    return truths.pop() if len(truths) == 1 else None


def _calibrated(test: Test) -> bool:
    """Whether a draw can plant an effect in the test's rule."""
    return isinstance(test.rule, ORDERS + BANDS) and planted(test, 1.0) is not None


def calibrate(index: Index, findings: list[Finding], draws: int = DRAWS, seed: int = 0) -> list[Calibrated]:
    """Every finding whose deciding tests a draw can plant in, replayed `draws` times on A/A data
    and under each planted effect (module docstring); the same `seed`, the same rates."""
    made = []
    index = _Remembered(index)
    for finding in findings:
        tests = [t for t in finding.tests if not t.beside and not t.not_here]
        if finding.untestable or finding.not_here or not tests or not all(_calibrated(t) for t in tests):
            continue
        only = dataclasses.replace(finding, tests=tests)
        real = judge(index, only)
        if real.verdict is Verdict.NOT_TESTED:
            continue
        rng = random.Random(f"{seed}:{finding.id}")
        measured = [c for t in real.tests for _, case in t.evidence for c in case.sides() if c.value is not None]
        at_ceiling = any(c.value.held for c in measured)
        short_of = next(
            (
                f"{judged} of {t.test.least_cases} cases"
                for t in real.tests
                if (judged := sum(s.verdict is not Verdict.NOT_TESTED for s in t.cases)) < t.test.least_cases
            ),
            "",
        )

        def run(
            effect: float, right: Verdict | None, slots: int = 0, rng=rng, only=only, tests=tests
        ) -> tuple[Rate | None, list]:
            if right is None and effect != 1.0:
                return None, []
            plants: dict[tuple, list] = defaultdict(list)
            for t in tests:
                plants[(t.kind, t.experiment, t.metric, t.higher_is_better)].append((t, planted(t, effect)))
            groups = {key: prepared(each, index.cells(*key)) for key, each in plants.items()}
            hits, judged = 0, []
            for _ in range(draws):
                verdict = judge(Replayed(index, groups, rng, slots), only)
                judged.append(verdict.tally.judged)
                hits += verdict.verdict in DECIDED if right is None else verdict.verdict is right
            return Rate(hits, draws), judged

        aa, judged = run(1.0, None)
        # An agreement the cases cannot reach is no power to measure (`short_of`).
        reachable = not short_of or _truth(tests, POWER_EFFECT) is not Verdict.AGREES
        power = {effect: run(effect, _truth(tests, effect))[0] if reachable else None for effect in EFFECTS}
        # Where a quarter better is found less than four times in five, the repetitions that would
        # find it so, drawn from the same scatter (a point the load held finds nothing at any count).
        needed = None
        found = power.get(POWER_EFFECT)
        if found is not None and found.share < POWER and not at_ceiling:
            needed = next(
                (n for n in MORE if (r := run(POWER_EFFECT, _truth(tests, POWER_EFFECT), n)[0]) and r.share >= POWER), 0
            )
        repetitions = min((len(c.numbers) for c in measured if c.numbers), default=0)
        rule = ", ".join(sorted({type(t.rule).__name__.lower() for t in tests}))
        median = round(statistics.median(judged))
        made.append(Calibrated(finding, rule, median, repetitions, at_ceiling, aa, power, needed, short_of))
    return made


def table(calibrated: list[Calibrated], draws: int) -> Table:
    """One row a finding: its rule, the cases a draw judged, the fewest repetitions of a side, and
    the share of draws decided on A/A data and decided the right way under each planted effect."""
    columns = [
        Column("finding"),
        Column("rule"),
        Column("cases"),
        Column("reps"),
        Column("A/A decided (wrong)"),
        *(Column(f"x{e:g} right") for e in EFFECTS),
        Column(f"reps for x{POWER_EFFECT:g} at {POWER:.0%}"),
    ]
    rows = []
    for c in calibrated:
        aa = Shown(c.aa.show(), tone="bad" if c.aa.above(ALPHA) else "good") if c.aa else Shown("-")
        power = [
            Shown("-" if r is None else r.show(), tone="" if r is None else ("good" if r.share >= POWER else "muted"))
            for r in c.power.values()
        ]
        shown_reps = f"{c.repetitions}" + (" (at ceiling)" if c.at_ceiling else "")
        shown_reps += f" ({c.short_of}: cannot agree)" if c.short_of else ""
        needed = {None: "-", 0: f"more than {MORE[-1]}"}.get(c.needed, str(c.needed))
        cells = [Shown(c.finding.id), Shown(c.rule), Shown(str(c.cases)), Shown(shown_reps), aa, *power]
        rows.append(Row([*cells, Shown(needed)]))
    return Table(columns, rows, flags=False)
