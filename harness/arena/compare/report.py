"""A comparison as a report of the table model, which the terminal, summary-style Markdown and the
dashboard's page draw: what differs in provenance first, then every point both sides measured,
largest effect first, each with its verdict, then the points only one side has."""

from __future__ import annotations

import statistics

from arena.compare.model import Change, Comparison, Verdict
from arena.report.charts import BAR, LOG, Chart, Series, Value
from arena.report.tables import Cell, Column, Report, Row, Section, Table

TONES = {Verdict.FASTER: "good", Verdict.SLOWER: "bad", Verdict.SAME: "even", Verdict.UNTESTED: "muted"}


def _number(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _side(values: list[float]) -> str:
    return f"{_number(statistics.median(values))} (n={len(values)})" if values else "-"


def _ratio(c: Change) -> str:
    if c.ratio is None:
        return "-"
    if c.low is None:
        return f"{c.ratio:.3f}"
    return f"{c.ratio:.3f} [{c.low:.3f}, {c.high:.3f}]"


def _row(c: Change) -> Row:
    arrow = "↑" if c.higher_is_better else "↓"
    verdict = str(c.verdict) + (f": {c.why}" if c.why else "")
    return Row(
        [
            Cell(c.where),
            Cell(f"{c.metric} {arrow}"),
            Cell(_side(c.a)),
            Cell(_side(c.b)),
            Cell(_ratio(c)),
            Cell("-" if c.p is None else f"{c.p:.3f}"),
            Cell(verdict, tone=TONES[c.verdict]),
        ],
        list(c.flags),
    )


def _chart(comparison: Comparison) -> Chart:
    """Each tested ratio on a log axis around 1: a bar up is B above A, down is B below it."""
    tested = [c for c in comparison.changes if c.ratio is not None and c.ratio > 0]
    categories = [f"{c.where} {c.metric} ({c.verdict})" for c in tested]
    values = [Value(c.ratio, c.low, c.high, c.flags) for c in tested]
    label = f"{comparison.b} / {comparison.a}"
    return Chart(
        f"B/A: {label}",
        BAR,
        "point, metric (verdict)",
        "B/A (log)",
        [Series(label, values)],
        categories,
        y_scale=LOG,
        base=1.0,
        note="1 = the same; whiskers: the ratio's 95% interval (Welch's t on the logarithms); "
        "↑ more is better, ↓ less is better",
    )


def report(comparison: Comparison, differs: list[tuple[str, str, str]]) -> Report:
    a, b = comparison.a, comparison.b
    counts = ", ".join(f"{comparison.count(v)} {v}" for v in Verdict if comparison.count(v))
    rows = [Row(list(map(Cell, d))) for d in differs]
    provenance = Section(
        "what differs: provenance and versions",
        Table([Column("what"), Column(f"A: {a}"), Column(f"B: {b}")], rows, False) if rows else None,
        [] if rows else ["nothing: the same host, commit, options and versions"],
    )
    columns = [
        Column("point"),
        Column("metric"),
        Column("A", numeric=True),
        Column("B", numeric=True),
        Column("B/A [95%]", numeric=True),
        Column("p", numeric=True, essential=False),
        Column("verdict"),
    ]
    changes = Section(
        f"B/A at every point both measured ({counts or 'none'})",
        Table(columns, [_row(c) for c in comparison.changes]),
        charts=[_chart(comparison)] if any(c.ratio for c in comparison.changes) else [],
    )
    only = [
        f"only {side}: {', '.join(points)}"
        for side, points in ((f"A ({a})", comparison.only_a), (f"B ({b})", comparison.only_b))
        if points
    ]
    changes.notes += only
    threshold = f"{comparison.threshold * 100:g}%"
    legend = [
        f"A: {a}; B: {b}. A and B: the median over the repetitions that count (n of them); B/A: the ratio of "
        "their geometric means with its 95% interval; p: Welch's t-test on the logarithms.",
        f"faster / slower: p < {comparison.alpha} and B/A moved at least {threshold} the better / worse way "
        "(↑: more is better, ↓: less); no difference: otherwise; untested: nothing to test (spec/compare.md).",
    ]
    return Report(f"Arena: {b} compared with {a}", sections=[provenance, changes], legend=legend)
