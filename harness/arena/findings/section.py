"""The verdicts as every report shows them — one section of the table model (report/tables.py) for
the terminal, summary.md, report.html and the dashboard — and as the export's documents."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

from arena.findings.judge import Judgement, Tested
from arena.findings.rules import order_key
from arena.findings.runs import pace_moved
from arena.findings.values import Value
from arena.findings.verdict import Verdict
from arena.measured.store import Run
from arena.report import charts
from arena.report.tables import Cell, Column, Row, Section, Table

HEADING = "Findings of the seed studies"
UNTESTED = "Findings of the seed studies this run does not test"
# What no measurement of a run says anything of: told in a line before its results, listed after them.
SILENT = (Verdict.NOT_TESTED, Verdict.UNTESTABLE)
ORDER = list(Verdict)
TONE = {
    Verdict.AGREES: "good",
    Verdict.DISAGREES: "bad",
    Verdict.NO_DIFFERENCE: "even",
    Verdict.NOT_TESTED: "muted",
    Verdict.UNTESTABLE: "muted",
}


def counts(judgements: list[Judgement]) -> str:
    """'12 agree, 3 disagree, ...' in the verdicts' order."""
    counted = Counter(j.verdict for j in judgements)
    return ", ".join(f"{counted[v]} {v}" for v in ORDER if counted[v])


def section(judgements: list[Judgement], runs: list[Run]) -> Section:
    """One row a finding: its id and source, the verdict, what it rests on, and the claim; and
    under it, the runs read, and how far the machine's pace moved between them."""
    columns = [
        Column("finding"),
        Column("verdict"),
        Column("cases"),
        Column("effect"),
        Column("what it rests on"),
        Column("the study said", essential=False),
        Column("source", essential=False),
    ]
    rows = [
        Row(
            [
                Cell(j.finding.id),
                Cell(j.verdict, tone=TONE[j.verdict]),
                Cell(j.tally.show()),
                Cell(j.effect() or "-"),
                Cell(j.because()),
                Cell(j.finding.quote),
                Cell(j.finding.source),
            ]
        )
        for j in judgements
    ]
    read = ", ".join(r.name for r in runs) if runs else "no run"
    notes = [
        f"{counts(judgements)}; from {read} (spec/findings.md says how each verdict is reached).",
        "agrees: the intervals separate for the claim in every case measured (two sides of the same repetitions: "
        "their ratio's interval by repetition), or, where some overlap and none is "
        "against it, in the cases pooled; disagrees: against it in at least one, by the smallest change and after "
        "Holm's correction over the finding's comparisons (cases: how many were for, against and undecided), or "
        "pooled; no difference measured: they overlap, and pooled too; not tested: with the reason and the command "
        "that would test it; untestable: no measurement can test it. n: the repetitions a case rests on.",
    ]
    if moved := pace_moved(runs):
        notes.append(moved)
    drawn = [chart for j in judgements for t in j.tests for chart in _evidence(j, t)]
    return Section(HEADING, Table(columns, rows, flags=False), notes=notes, charts=drawn)


def grouped(judgements: list[Judgement]) -> list[Judgement]:
    """The verdicts in the order of ORDER, those that say something first, each finding's order kept."""
    return sorted(judgements, key=lambda j: ORDER.index(j.verdict))


def for_run(judgements: list[Judgement], runs: list[Run]) -> tuple[Section | None, str, Section | None]:
    """What a run's report says of the findings: the section of those its measurements test (None
    where it tests none), the one line that counts those it does not and names the command that
    measures them, and their list, folded, for after the results (None where there are none)."""
    said = [j for j in judgements if j.verdict not in SILENT]
    silent = [j for j in judgements if j.verdict in SILENT]
    line = (
        f"{len(silent)} finding(s) of the seed studies this run does not test ({counts(silent)}): "
        "`./arena findings --plan` shows what measures them; their list follows the results."
        if silent
        else ""
    )
    tested = section(said, runs) if said else None
    if tested is not None and line:
        tested.notes.insert(0, line)
    listed = dataclasses.replace(section(silent, runs), heading=UNTESTED, folded=True, charts=[]) if silent else None
    return tested, line, listed


def changes(before: list[Judgement], after: list[Judgement]) -> Table:
    """The findings whose verdict differs between two ledgers, with what each rests on now."""
    was = {j.finding.id: j for j in before}
    rows = [
        Row(
            [
                Cell(j.finding.id),
                Cell(was[j.finding.id].verdict, tone=TONE[was[j.finding.id].verdict]),
                Cell(j.verdict, tone=TONE[j.verdict]),
                Cell(j.tally.show()),
                Cell(j.because()),
            ]
        )
        for j in after
        if j.finding.id in was and was[j.finding.id].verdict != j.verdict
    ]
    columns = [Column("finding"), Column("before"), Column("now"), Column("cases"), Column("what it rests on now")]
    return Table(columns, rows, flags=False)


def _evidence(j: Judgement, t: Tested) -> list[charts.Chart]:
    """The values a test's verdict rests on, folded under the table: bars of each runtime at each
    case (and the seed's value, where the rule compares with it), or lines along the rule's axis."""
    judged = [case for _, case in t.evidence if case.cells or case.series]
    if t.verdict in (Verdict.NOT_TESTED, Verdict.UNTESTABLE) or not judged:
        return []
    title = f"{j.finding.id} ({j.verdict}): {t.test.experiment}, {t.test.metric}"
    if t.test.rule.axis is None:
        impls = sorted({impl for case in judged for impl in case.cells})
        series = [
            charts.Series(label, [_point(case.cells[i].value) if i in case.cells else None for i in impls])
            for label, case in t.evidence
        ]
        seeds = [case.seed for case in judged if case.seed]
        if seeds:
            series.append(charts.Series("seed", [_seed(seeds[0].get(i)) for i in impls], seed=True))
        return [charts.Chart(title, charts.BAR, "runtime", t.test.metric, series, impls, folded=True)]
    lines = []
    for label, case in t.evidence:
        for impl, cells in sorted(case.series.items()):
            xs = sorted((x for x in cells if isinstance(x, int | float)), key=order_key)
            lines.append(
                charts.Series(f"{impl} {label}".strip(), [_point(cells[x].value) for x in xs], [float(x) for x in xs])
            )
    return [charts.Chart(title, charts.LINE, t.test.rule.axis, t.test.metric, lines, x_scale=charts.LOG, folded=True)]


def _point(value: Value | None) -> charts.Value | None:
    """A value as a chart draws it: an interval open on one side (engine-bound) has no whisker there."""
    if value is None:
        return None
    finite = [b if math.isfinite(b) else None for b in (value.low, value.high)]
    return charts.Value(value.median, *finite)


def _seed(value: float | None) -> charts.Value | None:
    return charts.Value(value) if value is not None else None


def exported(judgements: list[Judgement]) -> list[dict]:
    """Every verdict with what it rests on, for `arena export` (spec/export.md)."""
    return [
        {
            "id": j.finding.id,
            "study": j.finding.study,
            "source": j.finding.source,
            "quote": j.finding.quote,
            "verdict": str(j.verdict),
            "cases": dataclasses.asdict(j.tally),
            "effect": j.effect(),
            "reason": j.reason,
            "tests": [
                {
                    "kind": t.test.kind,
                    "experiment": t.test.experiment,
                    "metric": t.test.metric,
                    "verdict": str(t.verdict),
                    "reason": t.reason,
                    "stand_in": t.stand_in,
                    "differs": t.test.differs,
                    "beside": t.test.beside,
                    "cases": [{"verdict": str(s.verdict), "because": s.because} for s in t.cases],
                }
                for t in j.tests
            ],
        }
        for j in judgements
    ]
