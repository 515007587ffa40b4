"""A verdict on each finding from the measurements of the runs read (spec/findings.md): every test
split into its cases (a point and budget, or a series along the rule's axis), each case judged by the
rule, the cases and tests combined; where nothing could be judged, why, and the command that would
measure it."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from dataclasses import dataclass, field

from arena.findings.catalog import KINDS, OPTION, Finding, Test, suites_measuring
from arena.findings.rules import Case, Missing, Pooling, Published, order_key
from arena.findings.values import Cell, Index
from arena.findings.verdict import Said, Tally, Verdict, combined, corrected, telling
from arena.host import cores
from arena.measured.flags import Flag
from arena.measured.stats import SMALLEST_CHANGE

# A budget that shared its cores with the load engine is judged only where the finding allows it
# (the seed's own load tool shared the host) and the server may have lost less of those cores' time
# to the engine than the smallest change that counts (values.lost_to_engine: blog-ab's Node on two
# cores at most 0.8%, its engine 4.6% of them; thesis-password's servers 0.4%, their cores full).
SHARED_LOSS = SMALLEST_CHANGE


@dataclass(frozen=True)
class Tested:
    """One test of a finding: its verdict, each case's, and why it was not made, if it was not."""

    test: Test
    verdict: Verdict
    cases: list[Said] = field(default_factory=list)
    reason: str = ""  # why not tested, with the command that would test it
    stand_in: str = ""  # the points it rests on when the seed's is not among them
    evidence: list[tuple[str, Case]] = field(default_factory=list)  # each case judged, by its label
    pooled: Said | None = None  # the cases pooled, where one by one they left it undecided
    lacking: str = ""  # the budgets it needs that the runs read did not measure, and the cores they need
    comparisons: int = 0  # the comparisons Holm's correction counted: its finding's deciding tests' together

    @property
    def tally(self) -> Tally:
        return Tally.of([s.verdict for s in self.cases])


@dataclass(frozen=True)
class Judgement:
    finding: Finding
    verdict: Verdict
    tests: list[Tested] = field(default_factory=list)
    reason: str = ""  # why it is untestable, or not tested here at all

    @property
    def tally(self) -> Tally:
        return sum((t.tally for t in self.tests if not t.test.beside), Tally())

    def effect(self) -> str:
        """The effect of the case that tells the verdict (verdict.telling), among the deciding tests:
        a test decided by its cases pooled counts as that one case."""
        cases = [s for t in self.tests if not t.test.beside for s in ([t.pooled] if t.pooled else t.cases)]
        return telling(cases, self.verdict).effect if cases else ""

    def because(self) -> str:
        """What the verdict rests on, in a line or two."""
        if self.reason:
            return self.reason
        parts = []
        # What decides first, then what stands beside it; what was tested before what was not.
        for t in sorted(self.tests, key=lambda t: (bool(t.test.beside), t.verdict is Verdict.NOT_TESTED)):
            where = f"{t.test.experiment} {t.test.metric}"
            if t.test.beside:
                where = f"beside, not deciding ({t.test.beside}): {where}"
            if t.verdict is Verdict.NOT_TESTED:
                parts.append(f"{where}: {t.reason}")
                continue
            text = "; ".join(s.because for s in t.cases if s.verdict is not Verdict.NOT_TESTED)
            if t.pooled:
                text += f"; {t.pooled.because}"
            shared = f"shared cores allowed: {t.test.shared_cores}" if t.test.shared_cores else ""
            extra = "".join(f" ({note})" for note in (t.stand_in, t.test.differs, shared) if note)
            cases = f" [cases: {t.tally.show()} of {t.tally.judged}" if t.tally.judged > 1 else ""
            if cases and t.comparisons > 1:
                cases += f"; a case against stands after Holm's correction over {t.comparisons} comparisons"
            cases += "]" if cases else ""
            parts.append(f"{where}{cases}: {text}{extra}")
        return " | ".join(parts)


def judge_all(index: Index, findings: list[Finding]) -> list[Judgement]:
    return [judge(index, finding) for finding in findings]


def judge(index: Index, finding: Finding) -> Judgement:
    if finding.untestable:
        return Judgement(finding, Verdict.UNTESTABLE, reason=finding.untestable)
    if finding.not_here:
        return Judgement(finding, Verdict.NOT_TESTED, reason=finding.not_here)
    tests = [_tested(index, test) for test in finding.tests]
    # The deciding tests' cases are one family, corrected together; a test beside them is its own.
    deciding = _corrected([t for t in tests if not t.test.beside])
    beside = [corrected for t in tests if t.test.beside for corrected in _corrected([t])]
    tests = sorted(deciding + beside, key=lambda t: finding.tests.index(t.test))
    return Judgement(finding, combined([t.verdict for t in tests if not t.test.beside]), tests)


def _corrected(tests: list[Tested]) -> list[Tested]:
    """The tests' cases with each one against the claim kept only where it stays against after
    Holm's correction over all their comparisons (verdict.corrected), each test's verdict made anew."""
    family, m = corrected([s for t in tests for s in t.cases])
    out = []
    for t in tests:
        mine, family = family[: len(t.cases)], family[len(t.cases) :]
        out.append(_concluded(dataclasses.replace(t, cases=mine, comparisons=m)) if t.cases else t)
    return out


def _tested(index: Index, test: Test) -> Tested:
    if test.not_here:
        return Tested(test, Verdict.NOT_TESTED, reason=test.not_here)
    if test.kind not in index.kinds:
        return Tested(
            test, Verdict.NOT_TESTED, reason=f"no `{KINDS[test.kind]}` run read: {_command(test, _suite(test))}"
        )
    measured = index.cells(test.kind, test.experiment, test.metric, test.higher_is_better)
    cells = [
        c for c in measured if test.matches(c.point) and _own(c, test) and (test.cpus is None or c.cpus in test.cpus)
    ]
    if not cells:
        return Tested(test, Verdict.NOT_TESTED, reason=_unmeasured(measured, test))
    at_seed = [c for c in cells if test.seed_point and _within(test.seed_point, c.point)]
    if test.seed_point and not at_seed and not test.stand_in:
        return Tested(test, Verdict.NOT_TESTED, reason=_unstood(test))
    cells = at_seed or cells  # the seed's own point when it was measured; else every stand-in
    evidence = _cases(test, cells)
    cases = [_judged(label, test, case) for label, case in evidence]
    unmeasured = sorted(set(test.cpus or ()) - {c.cpus for c in cells})
    lacking = _cores_lacking(test)
    lacking = f"; cpus={','.join(map(str, unmeasured))} needs measuring{lacking}" if unmeasured and lacking else ""
    points = sorted({json.dumps(c.point, sort_keys=True): c.point for c in cells}.values(), key=_natural)
    stand_in = ""
    if test.seed_point and not any(_within(test.seed_point, p) for p in points):
        stand_in = (
            f"at {', '.join(map(_label, points))}; the seed's point: {_label(test.seed_point)}, "
            f"whose regime they keep: {test.stand_in}"
        )
    # Its verdict is made once its cases are corrected with the finding's others (`_corrected`).
    return Tested(test, Verdict.NOT_TESTED, cases, "", stand_in, evidence, lacking=lacking)


def _concluded(t: Tested) -> Tested:
    """A test's verdict from its cases' (verdict.combined), pooled where they left it undecided, and
    why it was not made where it was not."""
    test, cases = t.test, t.cases
    verdict = combined([s.verdict for s in cases], test.least_cases)
    pooled = _pooled(test, t.evidence, cases) if verdict is Verdict.NO_DIFFERENCE else None
    verdict = pooled.verdict if pooled else verdict
    reason = "; ".join(s.because for s in cases) + t.lacking if verdict is Verdict.NOT_TESTED else ""
    if verdict is Verdict.NOT_TESTED and any(s.verdict is Verdict.AGREES for s in cases):
        reason = (
            f"the seed claims it in every condition: agreement needs {test.least_cases} cases, "
            f"{Tally.of([s.verdict for s in cases]).agree} measured agree ({reason}): {_command(test)} at more points"
        )
    return dataclasses.replace(t, verdict=verdict, reason=reason, pooled=pooled)


def _pooled(test: Test, evidence: list[tuple[str, Case]], cases: list[Said]) -> Said | None:
    """The judged cases pooled (findings/pooled.py), where the rule pools and there are at least two
    of them, and as many as a claim made in every condition needs."""
    judged = [case for (_, case), said in zip(evidence, cases, strict=True) if said.verdict is not Verdict.NOT_TESTED]
    if not isinstance(test.rule, Pooling) or len(judged) < max(2, test.least_cases):
        return None
    return test.rule.pool(judged, max(s.looks for s in cases))


def _own(cell: Cell, test: Test) -> bool:
    """Whether the cell's number is its server's: measured on cores of its own, or on cores shared
    with an engine that the finding allows there and that took too little of them to count."""
    if Flag.SHARED_CORES not in cell.flags:
        return True
    return bool(test.shared_cores) and cell.lost_to_engine is not None and cell.lost_to_engine <= SHARED_LOSS


def _judged(label: str, test: Test, case: Case) -> Said:
    try:
        said = test.rule.judge(case)
    except Missing as missing:
        return Said(Verdict.NOT_TESTED, f"{label}: {missing}")
    looks = max((c.looks for c in case.sides()), default=1)
    counted = [len(c.numbers) for c in case.sides() if c.numbers]
    # How many repetitions the case rests on (its fewest side's), and how often they were read.
    if counted:
        label += f" n={min(counted)}" + (f", read {looks} times" if looks > 1 else "")
    because = f"{label}: {said.because}"
    verdict = said.verdict
    if verdict is Verdict.DISAGREES and _shared(case):
        # The seed's load ran on machines of its own: a server that lost some of its cores to the
        # engine here may lose by what the engine took, which says nothing against the claim.
        verdict = Verdict.NO_DIFFERENCE
        because += (
            "; on cores shared with the load engine, which decide nothing against a claim made on cores of their own"
        )
    effect = f"{said.effect} ({label})" if said.effect else ""
    return Said(verdict, because, effect, said.margin, said.evidence, looks)


def _shared(case: Case) -> bool:
    """Whether any side of the case shared its cores with the load engine (Flag.SHARED_CORES)."""
    return any(Flag.SHARED_CORES in c.flags for c in case.sides())


def case_key(test: Test, cell: Cell) -> str:
    """The case of a test a cell belongs to: its point and budget, or along the rule's axis, the
    rest of its point (less what changes with the axis, `along`)."""
    axis = test.rule.axis
    if axis is None:
        key = {**cell.point, "cpus": cell.cpus}
    elif axis == "cpus":
        key = dict(cell.point)
    else:
        key = {**{k: v for k, v in cell.point.items() if k != axis and k not in test.along}, "cpus": cell.cpus}
    return json.dumps(key, sort_keys=True)


def _cases(test: Test, cells: list[Cell]) -> list[tuple[str, Case]]:
    """The cells of a test as the cases its rule judges, each with a label: along an axis, one
    series of the points that differ only in it (and in what changes with it, `along`)."""
    axis = test.rule.axis
    grouped: dict[str, list[Cell]] = defaultdict(list)
    for cell in cells:
        grouped[case_key(test, cell)].append(cell)
    made = []
    for key, group in sorted(grouped.items(), key=lambda item: _natural(json.loads(item[0]))):
        where = json.loads(key)
        cpus = where.get("cpus", 1)
        series: dict[str, dict] = defaultdict(dict)
        for c in group if axis is not None else []:
            series[c.impl][c.cpus if axis == "cpus" else c.point[axis]] = c
        case = Case(
            test.higher_is_better,
            cells={c.impl: c for c in group} if axis is None else {},
            series=dict(series),
            seed=_seed(test, cpus) if isinstance(test.rule, Published) else {},
            cpus=cpus,
            timed=test.metric.endswith(("_ms", "_s")),
        )
        label = _label({k: v for k, v in where.items() if k != "cpus"})
        made.append((f"{label} cpus={cpus}" if "cpus" in where else label, case))
    return made


def _seed(test: Test, cpus: int) -> dict[str, float]:
    """The values the seed published of the test's metric at its point, for this budget: a value
    published at this budget, else one published without a budget (which stands for any)."""
    exact, unbudgeted = {}, {}
    for published in test.published:
        if test.seed_point and not _within(published.point, test.seed_point):
            continue
        for entry in published.values:
            if "cpus" not in entry:
                unbudgeted[entry["impl"]] = float(entry["value"])
            elif entry["cpus"] == cpus:
                exact[entry["impl"]] = float(entry["value"])
    return unbudgeted | exact


def _natural(point: dict) -> list:
    """Points in the order of their parameters' values, numbers as numbers."""
    return [(name, order_key(value)) for name, value in sorted(point.items())]


def _within(part: dict, whole: dict) -> bool:
    return all(whole.get(k) == v for k, v in part.items())


def _label(point: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in point.items()) or "every point"


def _unmeasured(measured: list[Cell], test: Test) -> str:
    """Why a test found nothing to judge among the experiment's cells, and what would measure it."""
    if not measured:
        return f"{test.experiment} is not in the runs read: {_command(test, _suite(test))}"
    if not any(test.matches(c.point) for c in measured):
        if not suites_measuring(test):
            return f"no suite measures {_label(test.where)}"
        measures = (
            f"needs {_label(test.where)}, which the {_suite(test)} suite measures: {_command(test, _suite(test))}"
        )
        return measures + _cores_lacking(test)
    wanted = "every budget" if test.cpus is None else "cpus=" + ",".join(map(str, test.cpus))
    have = sorted({c.cpus for c in measured if _own(c, test)})
    if test.shared_cores:
        return (
            f"needs {wanted}, on cores it may share with a load engine that costs the server at most "
            f"{SHARED_LOSS:.0%} of their time; measured at cpus={','.join(map(str, have)) or 'none'} so: "
            f"{_command(test, _suite(test))}"
        )
    shown = f"measured at cpus={','.join(map(str, have)) or 'none'}"
    if test.cpus is not None and not _cores_lacking(test):
        return f"needs {wanted}, which this machine has: {shown} in the runs read: {_command(test, _suite(test))}"
    own = " and a core for the load engine" if test.engine_cores() else ""
    return f"needs {wanted} on cores of its own{own}; {shown} here: {_command(test)} on a machine with the cores"


def _cores_lacking(test: Test) -> str:
    """Where a test's budgets and the load engine's core are more than this machine has: how many
    the command needs ("" where it has them)."""
    needed, here = max(test.cpus or (1,)) + test.engine_cores(), len(cores.machine_cores())
    return f" on a machine of {needed} cores or more, {here} here" if needed > here else ""


def _unstood(test: Test) -> str:
    """Why a test whose seed point was not measured is not made on another."""
    suites = suites_measuring(dataclasses.replace(test, where=test.where | test.seed_point))
    measure = _command(test, suites[0]) if suites else f"no suite measures {_label(test.seed_point)}"
    return f"the seed's point ({_label(test.seed_point)}) was not measured, and no other keeps its regime: {measure}"


def _suite(test: Test) -> str:
    """The suite to name for a test: the quick one where it measures the test's points, else the
    findings suite (its points alone), else the paper one; quick where none does."""
    suites = suites_measuring(test)
    return next((suite for suite in ("quick", "findings", "paper") if suite in suites), "quick")


def _command(test: Test, suite: str = "quick") -> str:
    command = f"./{KINDS[test.kind]} {OPTION[test.kind]} {test.experiment}"
    if suite != "quick":
        command += f" --suite {suite}"
    if test.cpus and test.cpus != (1,):
        command += f" --cpus {','.join(map(str, test.cpus))}"
    return f"`{command}`"
