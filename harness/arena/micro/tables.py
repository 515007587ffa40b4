"""The summary of a micro run as the table model: one section per bench, laid out as the seeds'
figures.

Rows are a runtime in one payload mode and core budget; columns sweep the bench's axis (message
size for pingping and pingpong, processes for spawn and ring, pairs for throughput), so a row reads
as one line of Valkov's Figures 3-5 or Varjão's plots. Each cell is the median over repetitions
with its 95% interval (as every table gives one); a failed point says so, and the larger points it stopped
say "not run". The seeds' published figures are rows marked "(seed)".
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from arena.kind import MICRO as KIND
from arena.measured.export import counted_values
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement, Outcome
from arena.measured.stats import summarize
from arena.micro.benchmarks import MAX, Bench
from arena.micro.result import ProgramRun, SpawnSearch
from arena.report import pivot
from arena.report.tables import Cell, Column, Report, Row, Section, Table, digits, legend

PAYLOAD = (
    "payload: what a send does in that row — 'shared' passes a reference (or a reference-counted "
    "binary), 'copied' copies the bytes; copy mode makes a fresh buffer for every send."
)
NOT_RUN = "not run: a larger point of a row whose smaller point failed is not attempted"


def _cell(group: list[Measurement], metric: str) -> tuple[Cell, bool]:
    """The cell of one point over its repetitions, and whether it is noisy."""
    good = [m.payload.metric[metric] for m in group if m.measured]
    if not good:
        return Cell("not run" if all(m.outcome is Outcome.NOT_RUN for m in group) else "FAILED"), False
    resolution = max(counted_values(group, f"{metric}_resolution"), default=0.0)
    summary = summarize(good, resolution, metric)
    failed = len(group) - len(good)
    return Cell.value(summary, 1, digits(summary.median), f" ({failed} failed)" if failed else ""), summary.noisy()


def _steady(m: Measurement) -> bool:
    """Whether the measured run followed a steady warm-up (runs from before warm-ups count as steady,
    and a cold start, which claims none, is not unsteady)."""
    warmup = m.payload.warmup if isinstance(m.payload, ProgramRun) else None
    return warmup is None or bool(warmup.get("steady")) or m.parameters.get("start") == "cold"


def warmup_section(benches: list[Bench], measurements: list[Measurement]) -> Section | None:
    """What each row's programs needed before their measured runs: iterations and seconds
    (medians over every point and repetition) and how many became steady; a cold start had none."""
    runs = [m for m in measurements if m.kind == KIND and m.measured and isinstance(m.payload, ProgramRun)]
    runs = [m for m in runs if m.payload.warmup and m.parameters.get("start") != "cold"]
    if not runs:
        return None
    ids = [b.id for b in benches if any(m.experiment == b.id for m in runs)]
    rows = []
    for impl, mode, cpus in sorted({(m.impl, m.parameters["mode"], m.cpus) for m in runs}):
        mine = [m for m in runs if (m.impl, m.parameters["mode"], m.cpus) == (impl, mode, cpus)]
        cells, flags = [Cell(impl), Cell(mode), Cell(str(cpus))], set()
        for bench in ids:
            warmups = [m.payload.warmup for m in mine if m.experiment == bench]
            if not warmups:
                cells.append(Cell("-"))
                continue
            iterations = statistics.median(w["iterations"] for w in warmups)
            seconds = statistics.median(w["seconds"] for w in warmups)
            steady = sum(bool(w["steady"]) for w in warmups)
            flags |= {Flag.UNSTEADY} if steady < len(warmups) else set()
            cells.append(Cell(f"{iterations:.0f} it, {seconds:.2f} s, {steady}/{len(warmups)} steady"))
        rows.append(Row(cells, sorted(flags)))
    columns = [Column("impl"), Column("mode"), Column("cpus", numeric=True), *(Column(b) for b in ids)]
    note = (
        "each program repeats its bench in-process before the measured run until the last 5 iterations are "
        "within ±10% of their median, or its warm-up bound passes (spec/micro.md, Warm-up); cells: median "
        "iterations and seconds, and how many runs became steady"
    )
    return Section("warm-up before the measured runs", Table(columns, rows), [note])


def _payload(m: Measurement) -> str:
    return "copied" if m.parameters.get("mode") == "copy" else m.parameters.get("payload", "?")


def _max_cell(search: Measurement | None) -> Cell:
    if search is None:
        return Cell("-")
    found: SpawnSearch = search.payload
    return Cell(f"{found.max_procs:,} ({found.budget_mb:,} MiB)")


def section(bench: Bench, measurements: list[Measurement]) -> Section | None:
    mine = [m for m in measurements if m.kind == KIND and m.experiment == bench.id]
    if not mine:
        return None
    searches = {(m.impl, m.cpus): m for m in mine if isinstance(m.payload, SpawnSearch)}
    points = [m for m in mine if m.parameters["params"].get("procs") != MAX]

    rows: dict[tuple, dict] = defaultdict(lambda: defaultdict(list))
    axis_values: set = set()
    for m in points:
        params = m.parameters["params"]
        fixed = " ".join([*(f"{k}={v}" for k, v in params.items() if k != bench.axis), m.parameters.get("start", "")])
        fixed = fixed.strip()
        rows[(m.impl, m.parameters["mode"], m.cpus, fixed)][params[bench.axis]].append(m)
        axis_values.add(params[bench.axis])
    axis_values |= {p.point[bench.axis] for p in bench.published if p.metric == bench.metric}
    columns = sorted(axis_values)
    with_max = bench.id == "spawn"
    headers = [
        Column("impl"),
        Column("payload"),
        Column("mode"),
        Column("cpus", numeric=True),
        Column("fixed", essential=False),
        *(Column(f"{bench.axis}={v:,}", numeric=True) for v in columns),
    ]
    if with_max:
        headers += [Column("bytes/process", numeric=True), Column("max processes", numeric=True)]

    body, notes = [], []
    for (impl, mode, cpus, fixed), cells in sorted(rows.items()):
        any_m = next(iter(cells.values()))[0]
        line, flags = [Cell(impl), Cell(_payload(any_m)), Cell(mode), Cell(str(cpus)), Cell(fixed or "-")], set()
        for value in columns:
            group = cells.get(value, [])
            if not group:
                line.append(Cell("-"))
                continue
            cell, noisy = _cell(group, bench.metric)
            line.append(cell)
            flags |= {Flag.NOISY} if noisy else set()
            flags |= {Flag.UNSTEADY} if any(not _steady(m) for m in group if m.measured) else set()
            for m in group:
                if m.outcome is Outcome.FAILED:
                    flags.add(Flag.FAILED)
                    notes.append(f"{impl} {mode} cpus={cpus} {bench.axis}={value:,}: {m.reason}")
        if with_max:
            largest: list[Measurement] = cells[max(cells)]
            sizes = [
                m.payload.metric["bytes_per_process"]
                for m in largest
                if m.measured and isinstance(m.payload, ProgramRun)
            ]
            line.append(Cell(f"{summarize(sizes).median:,.0f}" if sizes else "-"))
            search = searches.pop((impl, cpus), None)
            line.append(_max_cell(search))
            if search is not None:
                notes.append(f"{impl} cpus={cpus} max: stopped by {search.payload.stopped_by}")
        body.append(Row(line, sorted(flags)))
    for (impl, cpus), search in sorted(searches.items()):
        body.append(
            Row(
                [
                    Cell(impl),
                    Cell(_payload(search)),
                    Cell("idiomatic"),
                    Cell(str(cpus)),
                    Cell("-"),
                    *(Cell("-") for _ in columns),
                    Cell("-"),
                    _max_cell(search),
                ]
            )
        )
        notes.append(f"{impl} cpus={cpus} max: stopped by {search.payload.stopped_by}")
    body += _seed_rows(bench, columns, with_max)
    notes += [f"seed: {note}" for note in bench.notes]
    notes += [f"(seed) rows: {name}" for name in dict.fromkeys(p.table for p in bench.published)]
    heading = f"{bench.id}: {bench.title} ({bench.source}); cells: {bench.unit}"
    table = Table(headers, body)
    # The seeds' figures: the bench's metric against its axis, a line per row.
    first = len(headers) - len(columns) - (2 if with_max else 0)
    drawn = pivot.lines(
        table,
        {first + i: float(v) for i, v in enumerate(columns)},
        _line_label,
        f"{bench.id}: {bench.title}",
        bench.axis,
        bench.unit,
    )
    return Section(heading, table, notes, charts=[drawn] if drawn else [])


def _line_label(cells: list[Cell]) -> str:
    """A row as a line's name: impl, mode, budget and fixed parameters (a seed row has its impl only)."""
    impl, _, mode, cpus, fixed = (cell.show() for cell in cells[:5])
    return " ".join(part for part in (impl, mode, f"cpus={cpus}" if cpus else "", fixed) if part and part != "-")


def _seed_rows(bench: Bench, columns: list, with_max: bool) -> list[Row]:
    found: dict[str, dict] = defaultdict(dict)
    for published in bench.published:
        for entry in published.values:
            if published.metric == bench.metric:
                found[entry["impl"]][published.point[bench.axis]] = entry["value"]
            elif published.metric == "max_procs":
                found[entry["impl"]][MAX] = entry["value"]
    rows = []
    for impl, values in sorted(found.items()):
        cells = [Cell(str(values.get(v, ""))) for v in columns]
        extra = [Cell(""), Cell(f"~{values[MAX]:,}" if MAX in values else "")] if with_max else []
        rows.append(Row([Cell(f"{impl} (seed)"), Cell(""), Cell(""), Cell(""), Cell(""), *cells, *extra], seed=True))
    return rows


def report(title: str, benches: list[Bench], measurements: list[Measurement], skipped: list[str], host: dict) -> Report:
    machine = f"Machine: {host.get('cores')} cores, {host.get('memory_gb')} GiB"
    if host.get("pid_max"):
        machine += (
            f"; kernel.pid_max {host['pid_max']:,} and threads-max {host.get('threads_max') or 0:,} "
            "cap OS threads machine-wide, so they also cap rows whose process is an OS thread"
        )
    sections = [s for s in (section(bench, measurements) for bench in benches) if s is not None]
    if warmups := warmup_section(benches, measurements):
        sections.append(warmups)
    not_run = any(m.outcome is Outcome.NOT_RUN for m in measurements)
    extra = (PAYLOAD, NOT_RUN) if not_run else (PAYLOAD,)
    return Report(title, [machine], sections, legend(sections, (Flag.NOISY, Flag.FAILED), extra), skipped)
