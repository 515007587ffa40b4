"""Two sides compared as a report of the table model: two runs, or two implementations of one run.

Each side is a report (the kinds' own) and its measurements. Rows are matched by their labels —
the implementation (unless it is what is compared), the budget and the point — within sections of
the same heading, and every number both sides have becomes a ratio B/A. A ratio's interval comes
from both sides' intervals by the delta method: its relative half-width is the root of the sum of
their squared relative half-widths (of the means), which is fair while both are small. Latency
distributions are overlaid where both sides measured a point (REST runs, from the histograms), and
what differs in provenance and versions closes the report.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.measured.measurement import Measurement
from arena.measured.stats import ratio
from arena.report.charts import BAR, Chart, Series, Value
from arena.report.tables import Cell, Column, Report, Row, Section, Table
from arena.rest import charts as rest_charts


@dataclass(frozen=True)
class Side:
    label: str  # how the page names it: a run's name, or an implementation
    report: Report
    measurements: list[Measurement]
    impl: str | None = None  # compare this implementation's rows only (then the impl is not in the key)


def _rows(section: Section, impl: str | None) -> dict[str, Row]:
    """A section's measured rows by what names them (implementation, budget, point), the
    implementation left out when it is what is compared."""
    found = {}
    for row in section.table.rows if section.table else []:
        if row.seed or (impl is not None and row.cells[0].show() != impl):
            continue
        labels = [c.show() for i, c in enumerate(row.cells) if c.summary is None and (impl is None or i > 0)]
        found[" ".join(labels)] = row
    return found


def _section(heading: str, a: Section, b: Section, sides: tuple[Side, Side]) -> Section | None:
    rows_a, rows_b = _rows(a, sides[0].impl), _rows(b, sides[1].impl)
    keys = [key for key in rows_a if key in rows_b]
    numeric = [i for i, column in enumerate(a.table.columns) if column.numeric and i < len(b.table.columns)]
    numeric = [i for i in numeric if any(rows_a[k].cells[i].summary and rows_b[k].cells[i].summary for k in keys)]
    if not keys or not numeric:
        return None
    rows, bars = [], []
    for key in keys:
        cells = [Cell(key)]
        for i in numeric:
            found = (
                ratio(rows_a[key].cells[i].summary, rows_b[key].cells[i].summary)
                if (rows_a[key].cells[i].summary and rows_b[key].cells[i].summary)
                else None
            )
            cells.append(Cell(found.show() if found else "-"))
            if i == numeric[0]:
                bars.append(Value(found.value, found.low, found.high) if found else None)
        flags = sorted(set(rows_a[key].flags) | set(rows_b[key].flags))
        rows.append(Row(cells, flags))
    first = a.table.columns[numeric[0]].header
    label = f"{sides[1].label} / {sides[0].label}"
    drawn = [
        Chart(
            f"{first}: {label}",
            BAR,
            "row",
            "ratio",
            [Series(label, bars)],
            keys,
            note="1 = the same; whiskers: 95% interval of the ratio (delta method)",
        )
    ]
    columns = [Column("row"), *(Column(f"{a.table.columns[i].header} B/A", numeric=True) for i in numeric)]
    return Section(heading, Table(columns, rows), charts=drawn)


def _distributions(sides: tuple[Side, Side]) -> list[Chart]:
    """Latency by percentile where both sides measured a point: a line per side and implementation."""

    def groups(side: Side) -> dict[tuple, dict[str, list[str]]]:
        found: dict[tuple, dict[str, list[str]]] = {}
        for m in side.measurements:
            if m.kind != "http" or not m.measured or "unsteady" in m.flags or "*" not in m.payload.histograms:
                continue
            if side.impl is not None and m.impl != side.impl:
                continue
            found.setdefault((m.experiment, m.point, m.cpus), {}).setdefault(m.impl, []).append(
                m.payload.histograms["*"]
            )
        return found

    a, b = groups(sides[0]), groups(sides[1])
    charts = []
    for key in sorted(k for k in a if k in b):
        series = []
        for side, found in zip(sides, (a[key], b[key]), strict=True):
            for impl, histograms in sorted(found.items()):
                xs, values = rest_charts.distribution(histograms)
                name = side.label if side.impl else f"{impl} @ {side.label}"
                series.append(Series(name, values, xs))
        experiment, point, cpus = key
        charts.append(rest_charts.percentile_chart(f"{experiment} {rest_charts.label(point, cpus)}", series))
    return charts


def _facts(report: Report) -> dict[str, str]:
    """A report's provenance and versions, one fact per line."""
    facts = {}
    for section in report.appendix:
        if section.heading not in ("provenance", "versions") or section.table is None:
            continue
        headers = [c.header for c in section.table.columns]
        for row in section.table.rows:
            first, *rest = [c.show() for c in row.cells]
            if section.heading == "provenance":
                facts[first] = rest[0]
            else:
                facts |= {f"{first} {header}": value for header, value in zip(headers[1:], rest, strict=True)}
    return facts


def _provenance(sides: tuple[Side, Side]) -> Section:
    a, b = _facts(sides[0].report), _facts(sides[1].report)
    if sides[0].impl is not None:  # one run, two implementations: their versions side by side
        a = {k.removeprefix(f"{sides[0].impl} "): v for k, v in a.items() if k.startswith(f"{sides[0].impl} ")}
        b = {k.removeprefix(f"{sides[1].impl} "): v for k, v in b.items() if k.startswith(f"{sides[1].impl} ")}
    rows = [
        Row([Cell(key), Cell(a.get(key, "-")), Cell(b.get(key, "-"))])
        for key in dict.fromkeys([*a, *b])
        if a.get(key) != b.get(key)
    ]
    columns = [Column("what"), Column(f"A: {sides[0].label}"), Column(f"B: {sides[1].label}")]
    return Section(
        "what differs: provenance and versions",
        Table(columns, rows, flags=False),
        [] if rows else ["nothing: the same host, commit, options and versions"],
    )


def compare(a: Side, b: Side) -> Report:
    sides = (a, b)
    found_b = {s.heading: s for s in b.report.sections}
    sections = []
    for section in a.report.sections:
        if section.table is not None and section.heading in found_b and found_b[section.heading].table is not None:
            made = _section(section.heading, section, found_b[section.heading], sides)
            sections += [made] if made else []
    distributions = _distributions(sides)
    if distributions:
        sections.append(Section("latency distributions, overlaid", charts=distributions))
    legend = [
        f"A: {a.label}; B: {b.label}. Cells: B/A of the medians over repetitions ± the half-width of the ratio's "
        "95% interval; flags: either side's",
    ]
    return Report(
        f"Arena: {b.label} compared with {a.label}", sections=sections, legend=legend, appendix=[_provenance(sides)]
    )
