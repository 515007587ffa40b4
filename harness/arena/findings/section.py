"""The verdicts as every report shows them — one section of the table model (report/tables.py) for
the terminal, summary.md, report.html and the dashboard — and as the export's documents."""

from __future__ import annotations

from collections import Counter

from arena.findings.judge import Judgement
from arena.findings.verdict import Verdict
from arena.report.tables import Cell, Column, Row, Section, Table

HEADING = "Findings of the seed studies"
ORDER = list(Verdict)


def counts(judgements: list[Judgement]) -> str:
    """'12 agree, 3 disagree, ...' in the verdicts' order."""
    counted = Counter(j.verdict for j in judgements)
    return ", ".join(f"{counted[v]} {v}" for v in ORDER if counted[v])


def section(judgements: list[Judgement], runs: list[str]) -> Section:
    """One row a finding: its id and source, the verdict, what it rests on, and the claim."""
    columns = [
        Column("finding"),
        Column("verdict"),
        Column("what it rests on"),
        Column("the study said", essential=False),
        Column("source", essential=False),
    ]
    rows = [
        Row([Cell(text) for text in (j.finding.id, j.verdict, j.because(), j.finding.quote, j.finding.source)])
        for j in judgements
    ]
    read = ", ".join(runs) if runs else "no run"
    notes = [
        f"{counts(judgements)}; from {read} (spec/findings.md says how each verdict is reached).",
        "agrees / disagrees: the intervals separate for / against the claim in every case measured; "
        "no difference measured: they overlap somewhere; not tested: with the reason and the command "
        "that would test it; untestable: no measurement can test it.",
    ]
    return Section(HEADING, Table(columns, rows, flags=False), notes=notes)


def exported(judgements: list[Judgement]) -> list[dict]:
    """Every verdict with what it rests on, for `arena export` (spec/export.md)."""
    return [
        {
            "id": j.finding.id,
            "study": j.finding.study,
            "source": j.finding.source,
            "quote": j.finding.quote,
            "verdict": str(j.verdict),
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
                    "cases": [{"verdict": str(s.verdict), "because": s.because} for s in t.cases],
                }
                for t in j.tests
            ],
        }
        for j in judgements
    ]
