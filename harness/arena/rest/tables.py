"""The summary of a REST run as the table model: one section per experiment.

Each cell is the median over repetitions with the half-width of its 95% interval; a point whose
main metric varies by more than 10% (CoV) is flagged noisy, and every flag of any repetition is
shown on its row. The seed's published numbers stand beside ours, as rows of their own.
"""

from __future__ import annotations

import json
from collections import defaultdict

from arena.measurement import Measurement
from arena.rest.result import HttpResult
from arena.rest.scenarios import Scenario
from arena.stats import summarize
from arena.tables import Cell, Column, Report, Row, Section, Table, legend

KIND = "http"
# How each metric is shown: header, scale and decimals.
METRICS = {
    "ok_requests": ("successful requests", 1, 0),
    "rps": ("req/s", 1, 1),
    "ok_rps": ("ok req/s", 1, 1),
    "ideal_ratio": ("% of ideal", 100, 0),
    "mean_ms": ("mean ms", 1, 1),
    "p50_ms": ("p50 ms", 1, 1),
    "p66_ms": ("p66", 1, 0),
    "p75_ms": ("p75", 1, 0),
    "p80_ms": ("p80", 1, 0),
    "p90_ms": ("p90", 1, 0),
    "p95_ms": ("p95", 1, 0),
    "p98_ms": ("p98", 1, 0),
    "p99_ms": ("p99 ms", 1, 1),
    "max_ms": ("max ms", 1, 0),
    "mean_s": ("mean s", 1, 2),
    "first_s": ("first s", 1, 2),
    "last_s": ("last s", 1, 2),
    "error_ratio": ("errors %", 100, 1),
    "server_cpu_s": ("server CPU s", 1, 1),
    "server_rss_mb": ("peak RSS MiB", 1, 0),
}
DEFAULT_COLUMNS = ["rps", "ok_requests", "p50_ms", "p99_ms"]
# Kept when the terminal is too narrow for every column (with the experiment's first column).
HEADLINE = {"rps", "ok_requests", "ideal_ratio", "mean_ms", "mean_s", "p50_ms", "p99_ms", "error_ratio"}


def _values(result: HttpResult) -> dict[str, float]:
    values = {k: v for k, v in result.metrics.items() if isinstance(v, int | float)}
    if "mean_ms" in values:
        values["mean_s"] = values["mean_ms"] / 1000
    values["server_cpu_s"] = result.server_cpu_s
    values["server_rss_mb"] = result.server_peak_rss_kb / 1024
    return values


def _label(point: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in point.items())


def _our_rows(scenario: Scenario, measurements: list[Measurement], columns: list[str]) -> tuple[list[Row], list[str]]:
    """A row per implementation, budget and point, and a note per repetition that failed."""
    groups: dict[tuple, list[Measurement]] = defaultdict(list)
    for m in measurements:
        if m.kind == KIND and m.experiment == scenario.id:
            groups[(m.impl, m.cpus, m.point)].append(m)

    def order(item: tuple) -> tuple:
        (impl, cpus, point), _ = item
        return impl, cpus, sorted(json.loads(point).items())

    rows, notes = [], []
    for (impl, cpus, point), group in sorted(groups.items(), key=order):
        values = [_values(m.payload) for m in group if m.measured]
        flags = {flag for m in group for flag in m.flags}
        cells = [Cell(impl), Cell(str(cpus)), Cell(_label(json.loads(point)))]
        for i, column in enumerate(columns):
            samples = [v[column] for v in values if column in v]
            if not samples:
                cells.append(Cell("-"))
                continue
            summary = summarize(samples)
            _, scale, digits = METRICS.get(column, (column, 1, 1))
            cells.append(Cell.value(summary, scale, digits))
            if i == 0 and summary.noisy:
                flags.add("noisy")
        failures = [m for m in group if not m.measured]
        if failures:
            flags.add("failed")
            notes += [f"{impl} cpus={cpus}: {m.reason.splitlines()[0] if m.reason else m.outcome}" for m in failures]
        rows.append(Row(cells, sorted(flags)))
    return rows, notes


def _seed_rows(scenario: Scenario, columns: list[str]) -> list[Row]:
    """The seed's published numbers as rows of their own, in the same columns as ours."""
    found: dict[tuple, dict[str, str]] = defaultdict(dict)
    for published in scenario.published:
        if published.metric not in columns:
            continue
        for entry in published.values:
            point = dict(published.point) | ({"rate": entry["rate"]} if "rate" in entry else {})
            key = (entry["impl"], str(entry.get("cpus", "-")), json.dumps(point, sort_keys=True))
            found[key][published.metric] = str(entry["value"])
    rows = []
    for (impl, cpus, point), values in sorted(found.items(), key=lambda item: str(item[0])):
        labels = [Cell(f"{impl} (seed)"), Cell(cpus), Cell(_label(json.loads(point)))]
        rows.append(Row([*labels, *(Cell(values.get(c, "")) for c in columns)], seed=True))
    return rows


def section(scenario: Scenario, measurements: list[Measurement]) -> Section | None:
    """The section of one experiment; None when nothing of it was measured or skipped."""
    heading = f"{scenario.id}: {scenario.title} ({scenario.source}; reported as {scenario.reported_as})"
    if scenario.pending:
        return Section(heading, skipped=scenario.pending)
    columns = scenario.report_columns or DEFAULT_COLUMNS
    ours, failures = _our_rows(scenario, measurements, columns)
    if not ours:
        return None
    headers = [
        Column(METRICS.get(c, (c, 1, 1))[0], essential=i == 0 or c in HEADLINE, numeric=True)
        for i, c in enumerate(columns)
    ]
    table = Table(
        [Column("impl"), Column("cpus", numeric=True), Column("point"), *headers], ours + _seed_rows(scenario, columns)
    )
    notes = []
    if any(row.seed for row in table.rows):
        tables = "; ".join(dict.fromkeys(p.table for p in scenario.published if p.metric in columns))
        notes.append(f"(seed) rows: {scenario.source}, {tables}")
    if scenario.deviations:
        notes.append(f"deviation: {scenario.deviations}")
    return Section(heading, table, notes + failures)


def report(title: str, scenarios: list[Scenario], measurements: list[Measurement], skipped: list[str]) -> Report:
    sections = [s for s in (section(scenario, measurements) for scenario in scenarios) if s is not None]
    return Report(title, sections=sections, legend=legend(sections), skipped=skipped)
