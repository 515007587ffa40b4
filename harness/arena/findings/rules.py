"""The kinds of rule a finding's test states (spec/findings.md, "Rules"), each judging one case: the
implementations' values at one point and budget, or, for a rule along an axis, their values along
it. A rule agrees only where intervals separate in the claimed direction, disagrees only where they
separate against it, and otherwise finds no difference."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from arena.findings import pooled
from arena.findings.values import (
    AT_CEILING,
    Cell,
    Value,
    above,
    beyond,
    growths,
    p_apart,
    p_band,
    p_of,
    paired,
    separated,
    together,
)
from arena.findings.verdict import Evidence, Said, Verdict, banded, combined, of_sign, telling
from arena.measured import stats
from arena.measured.flags import Flag
from arena.measured.stats import NO_INTERVAL, SMALLEST_CHANGE, Summary, ratio


class Missing(Exception):
    """A case lacks what its rule needs: an implementation, a repetition, a point of the axis, or
    sides whose numbers the server set rather than the load."""


@dataclass(frozen=True)
class Case:
    """What one case of a test measured: each implementation's cell at one point and budget, or
    (`series`) each one's cells along the rule's axis; and the seed's values of the metric there."""

    higher_is_better: bool
    cells: dict[str, Cell] = field(default_factory=dict)
    series: dict[str, dict[Any, Cell]] = field(default_factory=dict)
    seed: dict[str, float] = field(default_factory=dict)
    cpus: int = 1
    timed: bool = False  # the metric is a time (a latency, a mean response): failed requests void it

    def value(self, impl: str, cell: Cell | None = None) -> Value:
        cell = cell if cell is not None else self.cells.get(impl)
        if cell is None:
            raise Missing(f"no measurement of {impl}")
        if cell.value is None:
            raise Missing(f"{impl}: no repetition counted ({cell.failed} of {cell.repetitions} failed)")
        if cell.value.n < 2 and not cell.value.bounded:
            raise Missing(f"{impl}: {NO_INTERVAL} (run with --repeat 3)")
        if cell.value.low == cell.value.high:
            # Nothing measured its spread, which is not to say it has none: it decides nothing.
            raise Missing(f"{impl}: every repetition gave {cell.value.show()}, and no resolution is known: no interval")
        if self.timed and Flag.ERRORS in cell.flags:
            # A server that fails requests under load answers the rest within the wait it gives up
            # after (its pool's, its queue's): their time is that policy's, not how fast it serves.
            raise Missing(
                f"{impl}: over 1% of its requests failed (errors), and the time of those answered is set by "
                "when it gave up on the rest"
            )
        return cell.value

    def sides(self) -> list[Cell]:
        """Every cell the case compares: its implementations', or each one's along the axis."""
        return [*self.cells.values(), *(c for series in self.series.values() for c in series.values())]

    def along(self, impl: str) -> list[tuple[Any, Value]]:
        """`impl`'s values along the axis, in its order; Missing where it has fewer than two points,
        or a point the load held (`unheld`)."""
        cells = self.series.get(impl)
        if not cells or len(cells) < 2:
            raise Missing(f"{impl}: fewer than two points along the axis")
        self.unheld(impl)
        return [(x, self.value(impl, cells[x])) for x in sorted(cells, key=order_key)]

    def measured(self, impl: str) -> Cell:
        """The cell of `impl`, which has a value to compare (else Missing, as `value` says why)."""
        self.value(impl)
        return self.cells[impl]

    def told(self, a: Cell, b: Cell, least: float = SMALLEST_CHANGE) -> int:
        """+1 where A is better than B by at least `least`, -1 where B is, 0 where they are not told
        apart: by their repetitions' ratios where each repetition measured both (values.paired),
        else by their own intervals."""
        return self.compared(a, b, least)[0]

    def compared(self, a: Cell, b: Cell, least: float = SMALLEST_CHANGE) -> tuple[int, float]:
        """`told`'s sign, and the two-sided p of the comparison it rests on: the ratio by
        repetition's, or the two values' (values.p_apart)."""
        a_value, b_value = self.value(a.impl, a), self.value(b.impl, b)
        r = paired(a, b)
        if r is not None:
            return beyond(r, self.higher_is_better, least), p_of(r.low, r.high, r.dof or 1)
        return separated(a_value, b_value, self.higher_is_better, least), p_apart(a_value, b_value)

    def evidence(self, a: Cell, b: Cell, least: float = SMALLEST_CHANGE) -> Evidence:
        """A's comparison with B as Holm's correction ranks it (verdict.Evidence)."""
        sign, p = self.compared(a, b, least)
        return Evidence(of_sign(sign), p)

    def ratio(self, a: str, b: str) -> stats.Ratio | None:
        """B's value over A's by repetition (values.paired), None where they were not paired."""
        return paired(self.measured(a), self.measured(b))

    def unceiled(self, impls: list[str]) -> dict[str, Value]:
        """The values of `impls`, unless every one reached one ceiling: then the think time or the
        offered rate set them all, and comparing them compares the load with itself. Ceilings
        that differ by the smallest change or more are each side's own work (the hashes its
        cores allow at its own hash time): reaching them, the sides differ as that work does."""
        if why := self.held(impls):
            raise Missing(f"every side {why}")
        return {impl: self.value(impl) for impl in impls}

    def unheld(self, impl: str) -> None:
        """Missing where a point of `impl` along the axis reached 95% or more of its ceiling: the load
        set that number, and a trend or a band along the axis would hold the load to itself."""
        for x, cell in sorted(self.series.get(impl, {}).items(), key=lambda item: order_key(item[0])):
            v = cell.value
            if v is not None and v.held:
                limit = f" of {v.ceiling_rps:,.0f}/s" if v.ceiling_rps else ""
                raise Missing(
                    f"{impl} at {x}: {v.ceiling:.0%} of its ceiling{limit} ({v.ceiling_why}): set by the load"
                )

    def held(self, impls: list[str]) -> str:
        """Why the load set the values of `impls`, each at 95% or more of one ceiling; "" where it
        did not."""
        values = {impl: self.value(impl) for impl in impls}
        limits = [v.ceiling_rps for v in values.values() if v.ceiling_rps]
        own = len(limits) == len(values) and max(limits) >= (1 + SMALLEST_CHANGE) * min(limits)
        own = own or any(v.ceiling_own for v in values.values())
        if values and not own and all(v.ceiling is not None and v.ceiling >= AT_CEILING for v in values.values()):
            shares = ", ".join(f"{impl} {v.ceiling:.0%}" for impl, v in values.items())
            first = next(iter(values.values()))
            limit = f" of {first.ceiling_rps:,.0f}/s" if first.ceiling_rps else ""
            return f"at {AT_CEILING:.0%} or more of its ceiling{limit} ({shares}; {first.ceiling_why}): set by the load"
        return ""


def order_key(x: Any) -> tuple:
    """A parameter's values in order: numbers as numbers, then names (spawn's 'max')."""
    return (0, x, "") if isinstance(x, int | float) else (1, 0, str(x))


class Rule(Protocol):
    axis: str | None  # None: a rule over the implementations at one point

    @classmethod
    def parse(cls, entry: dict) -> Rule: ...

    def impls(self) -> list[str]: ...

    def judge(self, case: Case) -> Said: ...


@runtime_checkable
class Pooling(Protocol):
    """A rule whose cases, undecided one by one, can be pooled into one ratio (findings/pooled.py)."""

    def pool(self, cases: list[Case], looks: int = 1) -> Said | None: ...


def _pairs(case: Case, pairs: list[tuple[str, str]], claim: str) -> Said:
    """Each pair (better, worse) as claimed: agrees when every pair separates that way. Its effect
    is the narrowest margin: the pair whose claimed-better side leads by the least."""
    case.unceiled(list(dict.fromkeys(i for p in pairs for i in p)))
    # A pair the load held at one ceiling is told apart by nothing of its own, whatever the others.
    held = {(a, b): why for a, b in pairs if (why := case.held([a, b]))}
    told = [p for p in pairs if p not in held]
    evidence = tuple(case.evidence(case.measured(a), case.measured(b)) for a, b in told)
    outcomes = [{Verdict.AGREES: 1, Verdict.DISAGREES: -1}.get(e.verdict, 0) for e in evidence]
    shown = ", ".join(f"{impl} {case.value(impl).show()}" for impl in dict.fromkeys(i for p in pairs for i in p))
    leads = [_lead(case, a, b) for a, b in told]
    by_repetition = [text for (a, b), (text, _) in zip(told, leads, strict=True) if case.ratio(*_led(case, a, b))]
    if by_repetition:
        shown += f" ({', '.join(by_repetition)} by repetition)"
    shown += "".join(f"; {a} and {b} each {why}" for (a, b), why in held.items())
    effect, margin = min(leads, key=lambda e: e[1], default=("", None))
    if -1 in outcomes:
        against = [f"{b} above {a}" for (a, b), o in zip(told, outcomes, strict=True) if o == -1]
        return Said(Verdict.DISAGREES, f"{shown}: {', '.join(against)}, against {claim}", effect, margin, evidence)
    if all(o == 1 for o in outcomes):
        if not held:
            return Said(Verdict.AGREES, f"{shown}: {claim}", effect, margin, evidence)
        where = f"{shown}: {claim} only where the load did not hold them"
        return Said(Verdict.NO_DIFFERENCE, where, effect, margin, evidence)
    return Said(Verdict.NO_DIFFERENCE, f"{shown}: intervals overlap", effect, margin, evidence)


def _lead(case: Case, better: str, worse: str) -> tuple[str, float]:
    """How many times the claimed-better side is better, with its interval: above 1 for the claim."""
    r = _ratio_of(case, *_led(case, better, worse))
    if r is None:
        return "", math.inf
    spread = f" [{r.low:.2f}, {r.high:.2f}]" if r.low is not None and math.isfinite(r.high or math.inf) else ""
    return f"{better}/{worse} x{r.value:.2f}{spread}", r.value


def _lead_estimate(case: Case, better: str, worse: str) -> pooled.Estimate:
    """A pair's lead in one case, to pool; none where the load held both sides (`_pairs`)."""
    if case.held([better, worse]):
        return pooled.Estimate(None, 0)
    return _ratio_estimate(case, *_led(case, better, worse))


def _led(case: Case, better: str, worse: str) -> tuple[str, str]:
    """The sides in the order whose ratio (the second over the first) is above 1 for the claim."""
    return (worse, better) if case.higher_is_better else (better, worse)


def _ratio_estimate(case: Case, a: str, b: str) -> pooled.Estimate:
    """B's value over A's in one case, and the repetitions its interval's t came from: the pairs,
    or the fewer side's."""
    if (by_repetition := case.ratio(a, b)) is not None:
        return pooled.Estimate(by_repetition, len(together(case.cells[a], case.cells[b])))
    return pooled.Estimate(_ratio_of(case, a, b), min(case.value(a).n, case.value(b).n))


def _pooled_pairs(cases: list[Case], pairs: list[tuple[str, str]], claim: str, looks: int) -> Said | None:
    """Each pair's leads over the cases pooled, judged as a pair of one case is."""
    named = [(f"{a}/{b}", pooled.pool([_lead_estimate(case, a, b) for case in cases], looks)) for a, b in pairs]
    return pooled.said(named, pooled.lead, claim)


@dataclass(frozen=True)
class Order:
    """`order = [A, B, C]`: A better than B, B better than C."""

    order: list[str]
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Order:
        return cls(list(entry["order"]))

    def impls(self) -> list[str]:
        return self.order

    def judge(self, case: Case) -> Said:
        return _pairs(case, list(itertools.pairwise(self.order)), " > ".join(self.order))

    def pool(self, cases: list[Case], looks: int = 1) -> Said | None:
        return _pooled_pairs(cases, list(itertools.pairwise(self.order)), " > ".join(self.order), looks)


@dataclass(frozen=True)
class Best:
    """`best = A, among = [B, C]`: A better than each of them."""

    best: str
    among: list[str]
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Best:
        return cls(entry["best"], list(entry["among"]))

    def impls(self) -> list[str]:
        return [self.best, *self.among]

    def judge(self, case: Case) -> Said:
        return _pairs(case, [(self.best, other) for other in self.among], f"{self.best} best")

    def pool(self, cases: list[Case], looks: int = 1) -> Said | None:
        return _pooled_pairs(cases, [(self.best, other) for other in self.among], f"{self.best} best", looks)


@dataclass(frozen=True)
class Worst:
    """`worst = A, among = [B, C]`: each of them better than A."""

    worst: str
    among: list[str]
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Worst:
        return cls(entry["worst"], list(entry["among"]))

    def impls(self) -> list[str]:
        return [self.worst, *self.among]

    def judge(self, case: Case) -> Said:
        return _pairs(case, [(other, self.worst) for other in self.among], f"{self.worst} worst")

    def pool(self, cases: list[Case], looks: int = 1) -> Said | None:
        return _pooled_pairs(cases, [(other, self.worst) for other in self.among], f"{self.worst} worst", looks)


def _band(values: dict[str, Value], within: float, claim: str) -> Said:
    """Values as close as `within` (a share of the lowest): agrees when even the farthest ends of
    their intervals are; disagrees when even the nearest ends are further apart."""
    shown = ", ".join(f"{impl} {v.show()}" for impl, v in values.items())
    farthest = min(v.low for v in values.values()), max(v.high for v in values.values())
    nearest = min(v.high for v in values.values()), max(v.low for v in values.values())
    if farthest[0] > 0 and farthest[1] <= (1 + within) * farthest[0]:
        verdict, told = Verdict.AGREES, f"within {within:.0%}, {claim}"
    elif nearest[0] > 0 and nearest[1] > (1 + within) * nearest[0]:
        verdict, told = Verdict.DISAGREES, f"more than {within:.0%} apart, against {claim}"
    else:
        verdict, told = Verdict.NO_DIFFERENCE, f"the intervals do not tell whether within {within:.0%}"
    # Ranked by the two values furthest apart: the highest over the lowest against the band's end.
    lowest, highest = _extremes(values)
    r = ratio(_summary(lowest), _summary(highest))
    dof = max(1, min(lowest.n, highest.n) - 1)
    p = p_band(r.low, r.high, dof, 1 / (1 + within), 1 + within) if r and r.low is not None else 1.0
    return Said(verdict, f"{shown}: {told}", evidence=(Evidence(verdict, p),))


def _extremes(values: dict[str, Value]) -> tuple[Value, Value]:
    """The values of the lowest and the highest median: the pair a band's p is ranked by."""
    return min(values.values(), key=lambda v: v.median), max(values.values(), key=lambda v: v.median)


def _paired_band(shown: str, ratios: dict[str, stats.Ratio], within: float, claim: str) -> Said:
    """Sides whose every repetition measured each pair, as close as `within`: each pair's ratio by
    repetition inside the band of 1 give or take it for, one outside it all against."""
    shown += " (" + ", ".join(f"{name} x{r.value:.2f} [{r.low:.2f}, {r.high:.2f}]" for name, r in ratios.items())
    shown += " by repetition)"
    band = 1 / (1 + within), 1 + within
    evidence = tuple(
        Evidence(banded(r.low, r.high, *band), p_band(r.low, r.high, r.dof or 1, *band)) for r in ratios.values()
    )
    verdict = combined([e.verdict for e in evidence])
    told = {
        Verdict.AGREES: f"within {within:.0%}, {claim}",
        Verdict.DISAGREES: f"more than {within:.0%} apart, against {claim}",
        Verdict.NO_DIFFERENCE: f"the intervals do not tell whether within {within:.0%}",
    }
    return Said(verdict, f"{shown}: {told[verdict]}", evidence=evidence)


@dataclass(frozen=True)
class Similar:
    """`similar = [A, B], within = 0.25`: their values within 25% of each other; or, with
    `within_ms = 200`, within 200 ms — where the seed's values were seconds printed to a tenth, a
    share of Arena's milliseconds would hold them to a difference the seed could not see."""

    similar: list[str]
    within: float = 0.0
    within_ms: float | None = None
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Similar:
        if "within_ms" in entry:
            return cls(list(entry["similar"]), within_ms=float(entry["within_ms"]))
        return cls(list(entry["similar"]), float(entry["within"]))

    def impls(self) -> list[str]:
        return self.similar

    def judge(self, case: Case) -> Said:
        values = case.unceiled(self.similar)
        pairs = list(itertools.combinations(self.similar, 2))
        if self.within_ms is None and all(case.ratio(a, b) for a, b in pairs):
            shown = ", ".join(f"{impl} {v.show()}" for impl, v in values.items())
            return _paired_band(shown, {f"{b}/{a}": case.ratio(a, b) for a, b in pairs}, self.within, "similar")
        if self.within_ms is None:
            return _band(values, self.within, "similar")
        shown = ", ".join(f"{impl} {v.show()}" for impl, v in values.items())
        farthest = max(v.high for v in values.values()) - min(v.low for v in values.values())
        nearest = max(v.low for v in values.values()) - min(v.high for v in values.values())
        if farthest <= self.within_ms:
            verdict, told = Verdict.AGREES, f"within {self.within_ms:g} ms, similar"
        elif nearest > self.within_ms:
            verdict, told = Verdict.DISAGREES, f"more than {self.within_ms:g} ms apart, against similar"
        else:
            verdict, told = Verdict.NO_DIFFERENCE, f"the intervals do not tell whether within {self.within_ms:g} ms"
        # Ranked by the two furthest apart: their difference, its half-width theirs together.
        lowest, highest = _extremes(values)
        gap = (highest.low + highest.high - lowest.low - lowest.high) / 2
        half = math.hypot((highest.high - highest.low) / 2, (lowest.high - lowest.low) / 2)
        dof = max(1, min(lowest.n, highest.n) - 1)
        p = p_band(gap - half, gap + half, dof, -self.within_ms, self.within_ms) if math.isfinite(half) else 1.0
        return Said(verdict, f"{shown}: {told}", evidence=(Evidence(verdict, p),))

    def pool(self, cases: list[Case], looks: int = 1) -> Said | None:
        """Each pair's ratios pooled, within the band on either side; milliseconds do not pool."""
        if self.within_ms is not None:
            return None
        named = [
            (f"{b}/{a}", pooled.pool([_ratio_estimate(case, a, b) for case in cases], looks))
            for a, b in itertools.combinations(self.similar, 2)
        ]
        return pooled.said(named, pooled.band(1 / (1 + self.within), 1 + self.within), f"within {self.within:.0%}")


@dataclass(frozen=True)
class Ratio:
    """`ratio = A, over = [B, C], low = 2, high = 5`: A's value 2 to 5 times each of theirs."""

    ratio: str
    over: list[str]
    low: float
    high: float
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Ratio:
        return cls(entry["ratio"], list(entry["over"]), float(entry["low"]), float(entry["high"]))

    def impls(self) -> list[str]:
        return [self.ratio, *self.over]

    def judge(self, case: Case) -> Said:
        said = []
        case.unceiled(self.impls())  # raises Missing where the load set every side
        for other in self.over:
            r = _ratio_of(case, other, self.ratio)
            if r is None or r.low is None:
                raise Missing(f"{self.ratio} over {other}: no ratio with an interval")
            shown = f"{self.ratio}/{other} {r.value:.2f} [{r.low:.2f}, {r.high:.2f}]"
            effect = f"{self.ratio}/{other} x{r.value:.2f} [{r.low:.2f}, {r.high:.2f}]"
            verdict = banded(r.low, r.high, self.low, self.high)
            dof = r.dof or max(1, min(case.value(other).n, case.value(self.ratio).n) - 1)
            evidence = (Evidence(verdict, p_band(r.low, r.high, dof, self.low, self.high)),)
            said.append(Said(verdict, shown, effect, r.value, evidence))
        return _all(said, f"{self.low:g}-{self.high:g} times")

    def pool(self, cases: list[Case], looks: int = 1) -> Said | None:
        named = [
            (f"{self.ratio}/{other}", pooled.pool([_ratio_estimate(case, other, self.ratio) for case in cases], looks))
            for other in self.over
        ]
        return pooled.said(named, pooled.band(self.low, self.high), f"{self.low:g}-{self.high:g} times")


def _ratio_of(case: Case, a: str, b: str) -> stats.Ratio | None:
    """B's value over A's in one case: by repetition where paired, else of their medians."""
    return case.ratio(a, b) or ratio(_summary(case.value(a)), _summary(case.value(b)))


def _summary(v: Value) -> Summary:
    return Summary(v.n, v.median, v.median, v.low, v.high, None)


def _all(said: list[Said], claim: str) -> Said:
    verdict = combined([s.verdict for s in said])
    deciding = telling(said, verdict)
    because = "; ".join(s.because for s in said) + f" (claimed: {claim})"
    return Said(verdict, because, deciding.effect, deciding.margin, tuple(e for s in said for e in s.evidence))


@dataclass(frozen=True)
class Published:
    """`published = 0.05`: within 5% of the value the seed published at its point and budget;
    `impls = [A]`: of A alone, where the seed published values of several setups."""

    published: float
    of: tuple[str, ...] = ()
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Published:
        return cls(float(entry["published"]), tuple(entry.get("impls", ())))

    def impls(self) -> list[str]:
        return list(self.of)  # none named: those the seed published a value of

    def judge(self, case: Case) -> Said:
        seeds = {impl: value for impl, value in case.seed.items() if not self.of or impl in self.of}
        if not seeds:
            raise Missing("the seed published no value at this budget")
        case.unceiled(list(seeds))  # a value the load set says nothing of the runtime, however near the seed's
        said = []
        for impl, seed in seeds.items():
            v = case.value(impl)
            low, high = seed * (1 - self.published), seed * (1 + self.published)
            verdict = banded(v.low, v.high, low, high)
            evidence = (Evidence(verdict, p_band(v.low, v.high, max(1, v.n - 1), low, high)),)
            said.append(Said(verdict, f"{impl} {v.show()} against the seed's {seed:g}", evidence=evidence))
        return _all(said, f"within {self.published:.0%}")


@dataclass(frozen=True)
class Limit:
    """`at_least = 2200, impls = [A, B]`: each one's value at least that; `at_most = 1.5`: at most."""

    limit: float
    of: list[str]
    most: bool  # at_most: the values lie below the limit
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Limit:
        most = "at_most" in entry
        return cls(float(entry["at_most" if most else "at_least"]), list(entry["impls"]), most)

    def impls(self) -> list[str]:
        return self.of

    def judge(self, case: Case) -> Said:
        said = []
        for impl in self.of:
            v = case.value(impl)
            # A value the load held is a floor of what the server would do: it may show it at least
            # that much, never at most, nor less than it.
            held = case.held([impl])
            if held and self.most:
                raise Missing(f"{impl} {held}")
            # The interval's near end inside the limit agrees; its far end outside disagrees.
            near, far = (v.high, v.low) if self.most else (-v.low, -v.high)
            limit = self.limit if self.most else -self.limit
            verdict = Verdict.AGREES if near <= limit else Verdict.DISAGREES if far > limit else Verdict.NO_DIFFERENCE
            if held and verdict is Verdict.DISAGREES:
                verdict = Verdict.NO_DIFFERENCE
            evidence = (Evidence(verdict, p_of(v.low, v.high, max(1, v.n - 1), self.limit)),)
            shown = f"{impl} {v.show()}" + (f" (a floor: {held})" if held else "")
            said.append(Said(verdict, shown, evidence=evidence))
        return _all(said, f"at {'most' if self.most else 'least'} {self.limit:g}")


@dataclass(frozen=True)
class Errs:
    """`errs = [A, B]`, on a count of failed requests: every repetition of each failed some. A count
    of events needs no interval: one repetition that failed none is against the claim."""

    errs: list[str]
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Errs:
        return cls(list(entry["errs"]))

    def impls(self) -> list[str]:
        return self.errs

    def judge(self, case: Case) -> Said:
        said = []
        for impl in self.errs:
            cell = case.cells.get(impl)
            if cell is None or not cell.numbers:
                raise Missing(f"no measurement of {impl}")
            counts = "/".join(f"{n:g}" for n in cell.numbers)
            verdict = Verdict.AGREES if min(cell.numbers) >= 1 else Verdict.DISAGREES
            said.append(Said(verdict, f"{impl} failed requests by repetition {counts}"))
        return _all(said, "every repetition of each failed some requests")


@dataclass(frozen=True)
class Fails:
    """`fails = [A], completes = [B]`: every repetition of A failed, none of B did."""

    fails: list[str]
    completes: list[str]
    axis: ClassVar[None] = None

    @classmethod
    def parse(cls, entry: dict) -> Fails:
        return cls(list(entry.get("fails", [])), list(entry.get("completes", [])))

    def impls(self) -> list[str]:
        return [*self.fails, *self.completes]

    def judge(self, case: Case) -> Said:
        said = []
        for impl in self.impls():
            cell = case.cells.get(impl)
            if cell is None:
                raise Missing(f"no measurement of {impl}")
            expected_to_fail = impl in self.fails
            failed_all = cell.failed == cell.repetitions
            failed_none = cell.failed == 0
            shown = f"{impl} failed {cell.failed} of {cell.repetitions}"
            if cell.failures:
                # What stopped it, in its own words: a limit of the machine's reads differently from the runtime's.
                shown += f" ({'; '.join(_clipped(reason) for reason in cell.failures)})"
            if (expected_to_fail and failed_all) or (not expected_to_fail and failed_none):
                said.append(Said(Verdict.AGREES, shown))
            elif (expected_to_fail and failed_none) or (not expected_to_fail and failed_all):
                said.append(Said(Verdict.DISAGREES, shown))
            else:
                said.append(Said(Verdict.NO_DIFFERENCE, shown))
        return _all(said, f"{', '.join(self.fails)} fail; {', '.join(self.completes)} complete")


def _clipped(reason: str, most: int = 160) -> str:
    """A failure's reason on one line, at most `most` characters."""
    line = " ".join(reason.split())
    return line if len(line) <= most else line[: most - 1] + "…"


def _at(axis_value: Any, case: Case) -> Any:
    """An axis position a rule names: a number, or "cpus", the case's own budget."""
    return case.cpus if axis_value == "cpus" else axis_value


def _series_shown(impl: str, axis: str, points: list[tuple[Any, Value]]) -> str:
    return f"{impl} " + ", ".join(f"{axis}={x}: {v.show()}" for x, v in points)


@dataclass(frozen=True)
class Peaks:
    """`peaks = [A], axis = "pairs", at = "cpus"`: A's best value where the axis equals `at`."""

    peaks: list[str]
    axis: str
    at: Any

    @classmethod
    def parse(cls, entry: dict) -> Peaks:
        return cls(list(entry["peaks"]), entry["axis"], entry["at"])

    def impls(self) -> list[str]:
        return self.peaks

    def judge(self, case: Case) -> Said:
        said = []
        at = _at(self.at, case)
        for impl in self.peaks:
            points = case.along(impl)
            peak = dict(points).get(at)
            if peak is None:
                raise Missing(f"{impl}: no point at {self.axis}={at}")
            cells = case.series[impl]
            evidence = tuple(case.evidence(cells[at], cells[x]) for x, _ in points if x != at)
            shown = _series_shown(impl, self.axis, points)
            said.append(Said(combined([e.verdict for e in evidence]), shown, evidence=evidence))
        return _all(said, f"the best at {self.axis}={at}")


def _trend(
    case: Case, impls: list[str], axis: str, pick: Callable, claim: str, improves: bool, by: float = SMALLEST_CHANGE
) -> Said:
    """Each implementation's value at two ends the rule picks along the axis: the later one better
    (`improves`) or worse than the earlier, beyond both intervals and by at least `by`; against the
    claim where it moved the other way by the smallest change that counts."""
    said = []
    for impl in impls:
        points = case.along(impl)
        first, last = pick(points)
        sign = 1 if improves else -1
        cells = case.series[impl]
        claimed = case.told(cells[last[0]], cells[first[0]], by) * sign == 1
        moved, p = case.compared(cells[last[0]], cells[first[0]])
        outcome = 1 if claimed else -1 if moved * sign == -1 else 0
        shown = f"{impl} {axis}={first[0]}: {first[1].show()}, {axis}={last[0]}: {last[1].show()}"
        if r := paired(cells[first[0]], cells[last[0]]):
            shown += f" (x{r.value:.2f} [{r.low:.2f}, {r.high:.2f}] by repetition)"
        said.append(Said(of_sign(outcome), shown, evidence=(Evidence(of_sign(outcome), p),)))
    return _all(said, claim)


@dataclass(frozen=True)
class Improves:
    """`improves = [A], axis = "pairs", from = "cpus", upto = 64`: A better at the last point up to 64
    than at `from` (the first point when not given)."""

    improves: list[str]
    axis: str
    upto: float = math.inf
    start: Any = None

    @classmethod
    def parse(cls, entry: dict) -> Improves:
        return cls(list(entry["improves"]), entry["axis"], float(entry.get("upto", math.inf)), entry.get("from"))

    def impls(self) -> list[str]:
        return self.improves

    def judge(self, case: Case) -> Said:
        def ends(points: list) -> tuple:
            start = _at(self.start, case) if self.start is not None else points[0][0]
            within = [p for p in points if order_key(start) <= order_key(p[0]) <= order_key(self.upto)]
            if len(within) < 2 or within[0][0] != start:
                raise Missing(f"no point at {self.axis}={start} with one beyond it up to {self.upto:g}")
            return within[0], within[-1]

        return _trend(case, self.improves, self.axis, ends, f"better as {self.axis} grows", True)


@dataclass(frozen=True)
class Worsens:
    """`worsens = [A], axis = "cpus", from = "cpus", by = 0.2`: A worse at the last point than at
    `from` (the first), by at least `by` (the smallest change that counts when not given)."""

    worsens: list[str]
    axis: str
    start: Any = None
    by: float = SMALLEST_CHANGE

    @classmethod
    def parse(cls, entry: dict) -> Worsens:
        return cls(list(entry["worsens"]), entry["axis"], entry.get("from"), float(entry.get("by", SMALLEST_CHANGE)))

    def impls(self) -> list[str]:
        return self.worsens

    def judge(self, case: Case) -> Said:
        def ends(points: list) -> tuple:
            start = _at(self.start, case) if self.start is not None else points[0][0]
            after = [p for p in points if order_key(p[0]) >= order_key(start)]
            if len(after) < 2 or after[0][0] != start:
                raise Missing(f"no point at {self.axis}={start} with one beyond it")
            return after[0], after[-1]

        claim = f"worse as {self.axis} grows, by {self.by:.0%} or more"
        return _trend(case, self.worsens, self.axis, ends, claim, False, self.by)


@dataclass(frozen=True)
class Flat:
    """`flat = [A], axis = "cpus", within = 0.15`: A's values along the axis within 15% of each other."""

    flat: list[str]
    axis: str
    within: float

    @classmethod
    def parse(cls, entry: dict) -> Flat:
        return cls(list(entry["flat"]), entry["axis"], float(entry["within"]))

    def impls(self) -> list[str]:
        return self.flat

    def judge(self, case: Case) -> Said:
        said = []
        for impl in self.flat:
            points = case.along(impl)
            cells = case.series[impl]
            # Points measured in the same repetitions (one start each, in turn) are told by their
            # ratios by repetition, as `similar`'s sides are (spec/findings.md, "Pairs").
            ratios = {f"{y}/{x}": paired(cells[x], cells[y]) for (x, _), (y, _) in itertools.combinations(points, 2)}
            if all(ratios.values()):
                said.append(_paired_band(_series_shown(impl, self.axis, points), ratios, self.within, "flat"))
            else:
                said.append(_band({f"{impl} {self.axis}={x}": v for x, v in points}, self.within, "flat"))
        return _all(said, f"flat along {self.axis}")


@dataclass(frozen=True)
class Smooth:
    """`smooth = [A], axis = "procs", within = 2.0`: from each point to the next, A's value grows
    at most 2 times."""

    smooth: list[str]
    axis: str
    within: float

    @classmethod
    def parse(cls, entry: dict) -> Smooth:
        return cls(list(entry["smooth"]), entry["axis"], float(entry["within"]))

    def impls(self) -> list[str]:
        return self.smooth

    def judge(self, case: Case) -> Said:
        said = []
        for impl in self.smooth:
            points = case.along(impl)
            steps = list(itertools.pairwise(points))
            shown = _series_shown(impl, self.axis, points)
            cells = case.series[impl]
            by_repetition = [paired(cells[a[0]], cells[b[0]]) for a, b in steps]
            if all(by_repetition):
                # Each step's ratio by repetition, where one repetition measured both points.
                ratios = by_repetition
                shown += " (steps " + ", ".join(f"x{r.value:.2f} [{r.low:.2f}, {r.high:.2f}]" for r in ratios)
                shown += " by repetition)"
                dofs = [r.dof or 1 for r in ratios]
            else:
                ratios = [ratio(_summary(a[1]), _summary(b[1])) for a, b in steps]
                dofs = [max(1, min(a[1].n, b[1].n) - 1) for a, b in steps]
            if any(r is None or r.low is None for r in ratios):
                raise Missing(f"{impl}: a step with no interval")
            if all(r.high <= self.within for r in ratios):
                verdict = Verdict.AGREES
            elif any(r.low > self.within for r in ratios):
                verdict = Verdict.DISAGREES
            else:
                verdict = Verdict.NO_DIFFERENCE
            # Ranked by its largest step, against `within`.
            step, dof = max(zip(ratios, dofs, strict=True), key=lambda pair: pair[0].value)
            p = p_of(step.low, step.high, dof, self.within)
            said.append(Said(verdict, shown, evidence=(Evidence(verdict, p),)))
        return _all(said, f"never more than {self.within:g} times from one {self.axis} to the next")


@dataclass(frozen=True)
class Jumps:
    """`jumps = A, others = [B], axis = "procs", from = 10000, to = 20000`: A's value grows more from
    one point to the other than each of theirs."""

    jumps: str
    others: list[str]
    axis: str
    start: Any
    end: Any

    @classmethod
    def parse(cls, entry: dict) -> Jumps:
        return cls(entry["jumps"], list(entry["others"]), entry["axis"], entry["from"], entry["to"])

    def impls(self) -> list[str]:
        return [self.jumps, *self.others]

    def growth(self, case: Case, impl: str) -> tuple[float, float, float]:
        points = dict(case.along(impl))
        if self.start not in points or self.end not in points:
            raise Missing(f"{impl}: no points at {self.axis}={self.start} and {self.end}")
        r = ratio(_summary(points[self.start]), _summary(points[self.end]))
        if r is None or r.low is None:
            raise Missing(f"{impl}: no growth with an interval")
        return r.value, r.low, r.high

    def judge(self, case: Case) -> Said:
        mine = self.growth(case, self.jumps)
        said = []
        for other in self.others:
            theirs = self.growth(case, other)
            shown = f"{self.jumps} x{mine[0]:.2f} [{mine[1]:.2f}, {mine[2]:.2f}], {other} x{theirs[0]:.2f}"
            ends = (self.start, self.end)
            over = growths(*(case.series[self.jumps][x] for x in ends), *(case.series[other][x] for x in ends))
            if over is not None:
                # The two growths of each repetition, as two sides' values are (spec/findings.md, "Pairs").
                growth = f"x{over.value:.2f} [{over.low:.2f}, {over.high:.2f}]"
                shown += f" ({self.jumps}'s growth over {other}'s {growth} by repetition)"
                outcome, p = above(over), p_of(over.low, over.high, over.dof or 1)
            else:
                outcome = 1 if mine[1] > theirs[2] else -1 if mine[2] < theirs[1] else 0
                n = min(v.n for impl in (self.jumps, other) for _, v in case.along(impl))
                p = p_apart(Value(mine[0], mine[1], mine[2], n), Value(theirs[0], theirs[1], theirs[2], n))
            said.append(Said(of_sign(outcome), shown, evidence=(Evidence(of_sign(outcome), p),)))
        return _all(said, f"{self.jumps} grows most from {self.axis}={self.start} to {self.end}")


RULES: dict[str, type] = {
    "order": Order,
    "best": Best,
    "worst": Worst,
    "similar": Similar,
    "ratio": Ratio,
    "published": Published,
    "at_least": Limit,
    "at_most": Limit,
    "fails": Fails,
    "errs": Errs,
    "peaks": Peaks,
    "improves": Improves,
    "worsens": Worsens,
    "flat": Flat,
    "smooth": Smooth,
    "jumps": Jumps,
}
