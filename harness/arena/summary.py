"""The summary of a run: one table per experiment, in the terminal and in results/<run>/summary.md.

Each cell is the median over repetitions with the half-width of its 95% interval; a point whose
main metric varies by more than 10% (CoV) is flagged noisy, and every flag of any repetition is
shown on its row. The seed's published numbers stand beside ours where the seed gives them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from arena.report import table
from arena.scenarios import Scenario
from arena.stats import Summary, summarize
from arena.store import Measurement

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


@dataclass
class Row:
    impl: str
    cpus: int
    point: dict
    values: dict[str, Summary]
    flags: set[str]
    failures: list[str]


def _values(m: Measurement) -> dict[str, float]:
    values = {k: v for k, v in m.metrics.items() if isinstance(v, int | float)}
    if "mean_ms" in values:
        values["mean_s"] = values["mean_ms"] / 1000
    if m.server_cpu_s is not None:
        values["server_cpu_s"] = m.server_cpu_s
    if m.server_peak_rss_kb is not None:
        values["server_rss_mb"] = m.server_peak_rss_kb / 1024
    return values


def rows_of(scenario: Scenario, measurements: list[Measurement], columns: list[str]) -> list[Row]:
    groups: dict[tuple, list[Measurement]] = defaultdict(list)
    for m in measurements:
        if m.experiment == scenario.id and m.kind == "http":
            groups[(m.impl, m.cpus, m.point)].append(m)
    rows = []

    def order(item: tuple) -> tuple:
        (impl, cpus, point), _ = item
        return impl, cpus, sorted(json.loads(point).items())

    for (impl, cpus, point), group in sorted(groups.items(), key=order):
        good = [m for m in group if "failure" not in m.metrics]
        flags = {flag for m in group for flag in m.flags}
        values = {}
        for column in columns:
            samples = [v[column] for v in map(_values, good) if column in v]
            if samples:
                values[column] = summarize(samples)
        if columns and columns[0] in values and values[columns[0]].noisy:
            flags.add("noisy")
        failures = [m.metrics["failure"].splitlines()[0] for m in group if "failure" in m.metrics]
        rows.append(Row(impl, cpus, json.loads(point), values, flags, failures))
    return rows


def seed_rows(scenario: Scenario, columns: list[str]) -> list[list[str]]:
    """The seed's published numbers as rows of their own, in the same columns as ours."""
    found: dict[tuple, dict[str, str]] = defaultdict(dict)
    for published in scenario.published:
        if published.metric not in columns:
            continue
        for entry in published.values:
            point = dict(published.point) | ({"rate": entry["rate"]} if "rate" in entry else {})
            key = (entry["impl"], entry.get("cpus", "-"), json.dumps(point, sort_keys=True))
            found[key][published.metric] = str(entry["value"])
    rows = []
    for (impl, cpus, point), values in sorted(found.items(), key=lambda item: str(item[0])):
        label = " ".join(f"{k}={v}" for k, v in json.loads(point).items())
        rows.append([f"{impl} (seed)", cpus, label, *(values.get(c, "") for c in columns), ""])
    return rows


def experiment_table(scenario: Scenario, measurements: list[Measurement]) -> tuple[str, list[str]] | None:
    """The table of one experiment and its notes; None when nothing was measured."""
    columns = scenario.report_columns or DEFAULT_COLUMNS
    rows = rows_of(scenario, measurements, columns)
    if not rows:
        return None
    headers = ["impl", "cpus", "point"] + [METRICS.get(c, (c, 1, 1))[0] for c in columns] + ["flags"]
    body = []
    for row in rows:
        cells = [row.impl, row.cpus, " ".join(f"{k}={v}" for k, v in row.point.items())]
        for column in columns:
            _, scale, digits = METRICS.get(column, (column, 1, 1))
            cells.append(row.values[column].show(scale, digits) if column in row.values else "-")
        flags = sorted(row.flags) + (["failed"] if row.failures else [])
        cells.append(", ".join(flags))
        body.append(cells)
    seeds = seed_rows(scenario, columns)
    notes = []
    if seeds:
        tables = "; ".join(dict.fromkeys(p.table for p in scenario.published if p.metric in columns))
        notes.append(f"(seed) rows: {scenario.source}, {tables}")
    if scenario.deviations:
        notes.append(f"deviation: {scenario.deviations}")
    for row in rows:
        for failure in row.failures:
            notes.append(f"{row.impl} cpus={row.cpus}: {failure}")
    return table(headers, body + seeds), notes


FLAG_MEANINGS = {
    "noisy": "coefficient of variation of the first column over repetitions > 10%",
    "engine-bound": "the load engine used > 90% of its cores: the number may measure the engine",
    "errors": "more than 1% of requests failed",
    "crashed": "the server exited or could not be measured",
    "shared-cores": "no core was left for the engine: it shared the server's cores",
    "failed": "a repetition produced no measurement (see the note)",
}


def render(
    title: str, scenarios: list[Scenario], measurements: list[Measurement], skipped: list[str]
) -> tuple[str, str]:
    """(terminal text, markdown) of the whole run."""
    terminal, markdown = [title, ""], [f"# {title}", ""]
    for scenario in scenarios:
        heading = f"{scenario.id}: {scenario.title} ({scenario.source}; reported as {scenario.reported_as})"
        if scenario.pending:
            terminal += [heading, f"  skipped: {scenario.pending}", ""]
            markdown += [f"## {heading}", "", f"Skipped: {scenario.pending}.", ""]
            continue
        made = experiment_table(scenario, measurements)
        if made is None:
            continue
        text, notes = made
        terminal += [heading, text] + [f"  {note}" for note in notes] + [""]
        markdown += [f"## {heading}", "", markdown_table(text), ""] + [f"- {note}" for note in notes] + [""]
    used = sorted({flag for m in measurements for flag in m.flags} | {"noisy"})
    legend = [f"{flag}: {FLAG_MEANINGS[flag]}" for flag in used if flag in FLAG_MEANINGS]
    cells = "Cells: median over repetitions ± half-width of the 95% confidence interval of the mean (Student's t)."
    terminal += [cells, *legend, *skipped]
    markdown += [cells, "", *[f"- {line}" for line in legend + skipped]]
    return "\n".join(terminal), "\n".join(markdown) + "\n"


def markdown_table(text: str) -> str:
    """The aligned terminal table as a Markdown table (columns are separated by two spaces)."""
    lines = text.splitlines()
    header, rule, *body = lines
    starts = [0] + [i + 2 for i in range(len(rule) - 1) if rule[i : i + 2] == "  " and rule[i + 2 : i + 3] == "-"]

    def split(line: str) -> list[str]:
        bounds = [*starts, len(line) + 1]
        return [line[bounds[i] : bounds[i + 1]].strip() for i in range(len(starts))]

    out = ["| " + " | ".join(split(header)) + " |", "|" + "---|" * len(starts)]
    out += ["| " + " | ".join(split(line)) + " |" for line in body]
    return "\n".join(out)
