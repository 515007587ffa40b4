"""The summary of a REST run as the table model: one section per experiment.

Each cell is the median over repetitions with the half-width of its 95% interval; a point whose
main metric varies by more than 10% (CoV) is flagged noisy, and every flag of any repetition is
shown on its row. The seed's published numbers stand beside ours, as rows of their own.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict

from arena.engines.interface import ENGINE_BUSY_MAX
from arena.impls import setups
from arena.kind import REST as KIND
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.measured.stats import ratio, summarize
from arena.report import pivot
from arena.report.charts import Chart
from arena.report.tables import Cell, Column, Report, Row, Section, Table, legend
from arena.rest import charts as rest_charts
from arena.rest.result import MAIN_METRICS, RestResult, counted
from arena.rest.scenarios import Scenario

# How each metric is shown: header, scale and decimals.
METRICS = {
    "ok_requests": ("successful requests", 1, 0),
    "rps": ("req/s", 1, 1),
    "ok_rps": ("ok req/s", 1, 1),
    "ceiling_share": ("% of ceiling", 100, 0),
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
    "cpu_per_1k": ("CPU s/1k ok", 1, 2),
    "engine_cpu_per_1k": ("engine CPU s/1k ok", 1, 2),
    "db_cpu_per_1k": ("DB CPU s/1k ok", 1, 2),
    "db_pss_mb": ("DB peak PSS MiB", 1, 0),
    "steady_s": ("warm-up s", 1, 1),  # its own load, until steady
}
DEFAULT_COLUMNS = ["rps", "ok_requests", "p50_ms", "p99_ms"]
# Every table has these too: the share of the point's ceiling after its first column, then its cost
# and how long its own load took to be steady.
SHARE, TRAILING = "ceiling_share", ["cpu_per_1k", "server_rss_mb", "engine_cpu_per_1k", "steady_s"]
# Kept when the terminal is too narrow for every column (with the experiment's first column).
HEADLINE = {"rps", "ok_requests", "ceiling_share", "mean_ms", "mean_s", "p50_ms", "p99_ms", "error_ratio"}


DATABASE = ["db_cpu_per_1k", "db_pss_mb"]  # and, for experiments on PostgreSQL, its cost too


def columns_of(scenario: Scenario) -> list[str]:
    own = scenario.report_columns or DEFAULT_COLUMNS
    trailing = [*TRAILING[:2], *DATABASE, *TRAILING[2:]] if scenario.database else TRAILING
    return list(dict.fromkeys([own[0], SHARE, *own[1:], *trailing]))


def _values(result: RestResult) -> dict[str, float]:
    values = {k: v for k, v in result.exported().items() if isinstance(v, int | float) and not isinstance(v, bool)}
    values["server_rss_mb"] = result.server_peak_rss_kb / 1024
    if values.get("ok_requests"):
        values["cpu_per_1k"] = result.server_cpu_s / values["ok_requests"] * 1000
        values["engine_cpu_per_1k"] = result.engine_cpu_s / values["ok_requests"] * 1000
    if result.db_cpu_s is not None and values.get("ok_requests"):
        values["db_cpu_per_1k"] = result.db_cpu_s / values["ok_requests"] * 1000
    if result.db_peak_pss_kb is not None:
        values["db_pss_mb"] = result.db_peak_pss_kb / 1024
    return values


def _steady_from_start(result: RestResult) -> float | None:
    """Seconds from the server process's start until this point's load was steady (stores from
    before shared starts have no process age: their warm-up began once the server answered)."""
    steady_s = (result.warmup or {}).get("steady_s")
    age_s = result.process_age_s if result.process_age_s is not None else result.ready_s
    return None if steady_s is None or age_s is None else age_s + steady_s


def steady(m: Measurement) -> bool:
    """Measured, and after a warm-up that became steady (runs from before warm-ups count as steady)."""
    return m.measured and Flag.UNSTEADY not in m.flags


def _warmup_note(impl: str, cpus: int, group: list[Measurement]) -> str:
    """How the repetitions warmed up, when any of them was not flat, with the longest one's series:
    a row below its peers shows there whether its runtime was still climbing when measured."""
    measured = [m for m in group if m.measured and (m.payload.warmup or {}).get("classification")]
    shown = [m.payload.warmup["classification"] for m in measured]
    if all(c == "flat" for c in shown):
        return ""
    counts = ", ".join(f"{c} x{shown.count(c)}" for c in dict.fromkeys(shown))
    steadied = [m for m in measured if steady(m)]  # the unsteady ones have a note each
    if not steadied:
        return f"{impl} cpus={cpus} warm-ups: {counts}"
    longest = max(steadied, key=lambda m: m.payload.warmup.get("seconds", 0.0))
    return f"{impl} cpus={cpus} warm-ups: {counts}; the longest, {_series(longest)}"


def _series(m: Measurement) -> str:
    """A repetition's warm-up slice by slice, '|' where its steady window began (if it did), and
    what was measured after it."""
    warmup = m.payload.warmup or {}
    slices, at = warmup.get("slices", []), warmup.get("steady_at")

    def values(key: str, digits: int) -> str:
        shown = [f"{s[key]:.{digits}f}" for s in slices]
        if at is None:
            return ", ".join(shown)
        return " | ".join([", ".join(shown[:at]), ", ".join(shown[at:])] if at else ["", ", ".join(shown)]).strip()

    return (
        f"rep {m.repetition + 1}, a slice each: ok req/s {values('ok_rps', 0)}; p50 ms {values('p50_ms', 1)}; "
        f"then measured: {m.payload.metrics['ok_rps']:.1f} ok req/s"
    )


def _workers_note(impl: str, cpus: int, point: dict, group: list[Measurement]) -> str:
    """How busy an engine of several processes was (Locust's workers), repetition by repetition."""
    shown = [
        "+".join(f"{w['cpu_s'] / w['wall_s']:.2f}" for w in m.payload.engine_workers if w["wall_s"] > 0)
        for m in group
        if m.measured and m.payload.engine_workers
    ]
    if not shown:
        return ""
    return (
        f"{impl} cpus={cpus} {_label(point)}: each engine worker's share of a core, by repetition: "
        f"{'; '.join(shown)} (a core above {ENGINE_BUSY_MAX:.2f} flags the point engine-bound)"
    )


def _label(point: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in point.items())


def _our_rows(scenario: Scenario, measurements: list[Measurement], columns: list[str]) -> tuple[list[Row], list[str]]:
    """A row per implementation, budget and point, and a note per repetition that failed; a row of
    an implementation with several setups named by its setup, as the seed's rows and the findings
    name it (`node:express-cluster`)."""
    groups: dict[tuple, list[Measurement]] = defaultdict(list)
    for m in measurements:
        if m.kind == KIND and m.experiment == scenario.id:
            groups[(setups.known().canonical(m.impl), m.cpus, m.point)].append(m)

    def order(item: tuple) -> tuple:
        (impl, cpus, point), _ = item
        return impl, cpus, sorted(json.loads(point).items())

    rows, notes = [], []
    for (impl, cpus, point), group in sorted(groups.items(), key=order):
        values = [_values(m.payload) for m in group if counted(m)]
        flags = {flag for m in group for flag in m.flags}
        bounded = any(Flag.ENGINE_BOUND in m.flags for m in group if counted(m))
        cells = [Cell(impl), Cell(str(cpus)), Cell(_label(json.loads(point)))]
        unsteady = [m for m in group if m.measured and not steady(m)]
        if unsteady:
            notes.append(
                f"{impl} cpus={cpus}: {len(unsteady)} of {len(group)} repetition(s) never became steady "
                "within the warm-up's bound; they are not in the medians"
            )
            notes += [f"{impl} never steady, {_series(m)}" for m in unsteady]
        crashed = [m for m in group if m.measured and Flag.CRASHED in m.flags]
        if crashed:
            notes.append(
                f"{impl} cpus={cpus}: {len(crashed)} of {len(group)} repetition(s) lost their server "
                "during the measurement; they are not in the medians"
            )
        if note := _warmup_note(impl, cpus, group):
            notes.append(note)
        for i, column in enumerate(columns):
            samples = [v[column] for v in values if column in v]
            if not samples:
                cells.append(Cell("unsteady" if unsteady and not values else "-"))
                continue
            resolution = max((v.get(f"{column}_resolution", 0.0) for v in values), default=0.0)
            summary = summarize(samples, resolution, column)
            _, scale, digits = METRICS.get(column, (column, 1, 1))
            if column in MAIN_METRICS and bounded:  # the engine's limit: the server's own is beyond it
                cells.append(Cell(summary.show_bound(MAIN_METRICS[column], scale, digits)))
            else:
                cells.append(Cell.value(summary, scale, digits))
            if i == 0 and summary.noisy():
                flags.add(Flag.NOISY)
        if note := _workers_note(impl, cpus, json.loads(point), group):
            notes.append(note)
        failures = [m for m in group if not m.measured]
        if failures:
            flags.add(Flag.FAILED)
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
    columns = columns_of(scenario)
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
    drawn = _bar_charts(scenario, table, columns)
    drawn += rest_charts.distributions(scenario.id, measurements) + rest_charts.timelines(scenario.id, measurements)
    return Section(heading, table, _ceiling_notes(scenario, measurements) + notes + failures, charts=drawn)


# Charts of a section's table, beyond its first column and the seed's metrics: its cost.
CHARTED = [SHARE, "cpu_per_1k", "server_rss_mb", *DATABASE, "engine_cpu_per_1k"]
LABELS = 3  # impl, cpus, point: the cells before the metrics


def _category(cells: list[Cell]) -> str:
    """A bar's place: the budget and the point, as the seed's figures lay them out."""
    cpus, point = cells[1].show(), cells[2].show()
    return " ".join(part for part in (f"cpus={cpus}" if cpus != "-" else "", point) if part) or "-"


def _bar_charts(scenario: Scenario, table: Table, columns: list[str]) -> list[Chart]:
    """The first column and every metric the seed published, as the seed's figures drew them (our
    bars with their intervals beside the seed's), then the point's ceiling share and cost: all but
    the first folded."""
    seeded = {p.metric for p in scenario.published}
    shown = [c for c in columns if c == columns[0] or c in seeded] + [c for c in CHARTED if c in columns]
    # Runtimes are named on the axis, each with its own bar: alone when every row of ours is at one
    # budget and point, else beside it.
    one_place = len({_category(row.cells) for row in table.rows if not row.seed}) <= 1

    def place(cells: list[Cell]) -> str:
        return cells[0].show() if one_place else f"{cells[0].show()} · {_category(cells)}"

    made = []
    for i, column in enumerate(dict.fromkeys(shown)):
        header = METRICS.get(column, (column, 1, 1))[0]
        tables = "; ".join(dict.fromkeys(p.table for p in scenario.published if p.metric == column))
        note = f"(seed): {scenario.source}, {tables}" if tables else ""
        chart = pivot.bars(
            table,
            LABELS + columns.index(column),
            0,
            place,
            f"{scenario.id}: {header}",
            header,
            "runtime" if one_place else "runtime · core budget and point",
            note=note,
            folded=i > 0,  # the first column answers the experiment's question; the rest are its details
        )
        made += [chart] if chart else []
    return made


def _ceiling_notes(scenario: Scenario, measurements: list[Measurement]) -> list[str]:
    """What each point's ceiling is, once when it is the same for every server, else per server."""
    found: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        if m.kind == KIND and m.experiment == scenario.id and m.measured and m.payload.ceiling:
            limit = m.payload.ceiling
            found[_label(json.loads(m.point))][f"{limit['why']}"].append(limit["rps"])
    notes = []
    for label, whys in found.items():
        if len(whys) == 1:
            ((why, rates),) = whys.items()
            notes.append(f"ceiling at {label}: {statistics.median(rates):,.1f} req/s, from {why}")
        else:
            rates = [rate for values in whys.values() for rate in values]
            notes.append(
                f"ceiling at {label}: {min(rates):,.1f} to {max(rates):,.1f} req/s, from each server's own "
                f"measurement ({next(iter(whys))}, ...)"
            )
    return notes


def cold_start(measurements: list[Measurement]) -> Section | None:
    """Per implementation and budget, over every server start: from the process's start to its
    first correct answer, and to a steady state under the load of the start's first point."""
    mine = [m for m in measurements if m.kind == KIND and m.measured and m.payload.ready_s is not None]
    openers = [m for m in mine if m.payload.points_before == 0]
    if not openers:
        return None
    rows = []
    for impl, cpus, experiment in sorted({(m.impl, m.cpus, m.experiment) for m in openers}):
        starts = [m for m in openers if (m.impl, m.cpus, m.experiment) == (impl, cpus, experiment)]
        reached = [t for t in (_steady_from_start(m.payload) for m in starts) if t is not None]
        rows.append(
            Row(
                [
                    Cell(impl),
                    Cell(str(cpus)),
                    Cell.value(summarize([m.payload.ready_s for m in starts]), 1, 2),
                    Cell.value(summarize(reached, metric="steady_s"), 1, 1) if reached else Cell("never"),
                    Cell(experiment),
                ]
            )
        )
    columns = [
        Column("impl"),
        Column("cpus", numeric=True),
        Column("first answer s", numeric=True),
        Column("steady s", numeric=True),
        Column("under the load of"),
    ]
    notes = [
        "first answer: from the process's start to its first correct answer to GET /, polled every 10 ms",
        "steady: from the process's start until the load of its first point was steady (rest/warmup.py); "
        "every start then serves the repetition's other points in turn (frame/starts.py)",
    ]
    return Section(
        "cold start: seconds from process start, over every start of the run", Table(columns, rows, flags=False), notes
    )


# What the cross-check compares, Locust's over loadgen's.
CROSS_CHECKED = {"ok_rps": "ok req/s", "p50_ms": "p50", "p99_ms": "p99", "engine_cpu_per_1k": "engine CPU s/1k ok"}
CROSS_CHECK_NOTES = [
    "cells: Locust's median over loadgen's, ± the half-width of the ratio's 95% interval (delta method)",
    "a closed model's throughput is set by its users and their think time, so while neither engine is saturated "
    "the ok req/s ratio is 1 within noise; it drops below 1 when a Locust worker (one Python thread) saturates",
    "latency ratios above 1 are mostly Locust's own time: a user's request waits for its worker's single thread "
    "behind every other user that woke at the same moment, and is timed in Python around gevent's I/O; loadgen "
    "times each request on its own connection task with microsecond timers, so its percentiles are the server's",
    "engine CPU per 1,000 answers shows what each engine pays for the same load (and why Locust needs a worker "
    "per core, on more machines, for loads loadgen makes on one core)",
]


def cross_check(measurements: list[Measurement]) -> Section | None:
    """Points measured by both engines in one run (--engine both), side by side as ratios."""
    found: dict[tuple, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    for m in measurements:
        if m.kind == KIND and steady(m):
            params = json.loads(m.point)
            engine = params.pop("engine", "loadgen")
            found[(m.experiment, m.impl, m.cpus, json.dumps(params, sort_keys=True))][engine].append(_values(m.payload))
    rows = []
    for (experiment, impl, cpus, point), by_engine in sorted(found.items()):
        if not {"loadgen", "locust"} <= by_engine.keys():
            continue
        cells = [Cell(experiment), Cell(impl), Cell(str(cpus)), Cell(_label(json.loads(point)))]
        for metric in CROSS_CHECKED:
            ours, theirs = ([v[metric] for v in by_engine[e] if metric in v] for e in ("loadgen", "locust"))
            made = ratio(summarize(ours), summarize(theirs)) if ours and theirs else None
            cells.append(Cell(made.show() if made else "-"))
        rows.append(Row(cells))
    if not rows:
        return None
    columns = [
        Column("experiment"),
        Column("impl"),
        Column("cpus", numeric=True),
        Column("point"),
        *(Column(f"{header} Locust/loadgen", numeric=True) for header in CROSS_CHECKED.values()),
    ]
    return Section(
        "cross-check: the same points measured by Locust and by loadgen in this run",
        Table(columns, rows, flags=False),
        CROSS_CHECK_NOTES,
    )


def report(title: str, scenarios: list[Scenario], measurements: list[Measurement], skipped: list[str]) -> Report:
    sections = [s for s in (section(scenario, measurements) for scenario in scenarios) if s is not None]
    extra = [s for s in (cold_start(measurements), cross_check(measurements)) if s is not None]
    return Report(title, sections=sections + extra, legend=legend(sections), skipped=skipped)
