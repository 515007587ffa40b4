"""The section of a concurrency sweep: throughput by clients over the starts, the Universal
Scalability Law fitted to it (measured/usl.py) with its residuals, and the measured points
drawn with the fitted curve over them."""

from __future__ import annotations

import statistics
from collections import defaultdict

from arena.capacity.result import ClientSweep
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.measured.stats import summarize
from arena.measured.usl import MIN_LEVELS, Fit, FitError, fit
from arena.report.charts import LINE, LOG, Chart, Series, Value
from arena.report.tables import Cell, Column, Row, Section, Table, digits

FIT = (
    "USL: X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)) fitted to every steady level of every start that the "
    "engine did not bound; lambda is one client's throughput, sigma contention, kappa crosstalk, N* the clients at "
    "the peak (sqrt((1 - sigma) / kappa); '-' when beyond 10 times the most clients measured)"
)


def _levels(group: list[Measurement]) -> dict[int, list]:
    found: dict[int, list] = defaultdict(list)
    for m in group:
        if m.measured and isinstance(m.payload, ClientSweep):
            for level in m.payload.level_list():
                found[level.clients].append(level)
    return found


def _fit(levels: dict[int, list]) -> Fit | str:
    """The fit over every level that counts, or why there is none."""
    points = [(n, level.throughput) for n, found in levels.items() for level in found if level.steady]
    points = [(n, x) for n, x in points if not any(lv.engine_bound for lv in levels[n])]
    try:
        return fit([n for n, _ in points], [x for _, x in points])
    except FitError as err:
        return str(err)


def section(workload_id: str, title: str, measurements: list[Measurement]) -> Section:
    clients = sorted({level for m in measurements for level in _levels([m])})
    columns = [
        Column("impl"),
        Column("cpus", numeric=True),
        *(Column(f"{n} clients /s", numeric=True, essential=n in (1, clients[-1] if clients else 1)) for n in clients),
        Column("lambda /s", numeric=True),
        Column("sigma", numeric=True),
        Column("kappa", numeric=True),
        Column("N*", numeric=True),
    ]
    rows, notes, series = [], [], []
    for impl, cpus in sorted({(m.impl, m.cpus) for m in measurements}):
        group = [m for m in measurements if (m.impl, m.cpus) == (impl, cpus)]
        levels = _levels(group)
        flags = sorted(
            {flag for m in group for flag in m.flags} | ({Flag.FAILED} if any(not m.measured for m in group) else set())
        )
        cells = [Cell(impl), Cell(str(cpus))]
        for n in clients:
            values = [level.throughput for level in levels.get(n, [])]
            summary = summarize(values) if values else None
            cells.append(Cell.value(summary, 1, digits(summary.median)) if summary else Cell("-"))
        fitted = _fit(levels)
        line = f"{impl} cpus={cpus}"
        xs = sorted(levels)
        series.append(Series(line, [Value(statistics.median(lv.throughput for lv in levels[n])) for n in xs], xs))
        if isinstance(fitted, Fit):
            peak = fitted.peak_n if fitted.peak_n is not None and fitted.peak_n <= 10 * max(clients) else None
            cells += [
                Cell(f"{fitted.lam:,.0f}"),
                Cell(f"{fitted.sigma:.4f}"),
                Cell(f"{fitted.kappa:.2e}"),
                Cell(f"{peak:.1f}" if peak else "-"),
            ]
            worst = max(fitted.residuals, key=abs)
            notes.append(f"{line}: fit residuals at most {worst:+,.1f}/s ({abs(worst) / fitted.lam:.1%} of lambda)")
            curve = [n / 4 for n in range(4, 4 * max(clients) + 1)]
            series.append(Series(f"{line} USL fit", [Value(fitted.throughput(n)) for n in curve], curve))
        else:
            cells += [Cell("-")] * 4
            notes.append(f"{line}: no fit: {fitted}")
        rows.append(Row(cells, flags))
        notes += [f"{line} start {m.repetition + 1}: FAILED: {m.reason}" for m in group if not m.measured]
    chart = Chart(
        f"{workload_id}: throughput against clients",
        LINE,
        "clients (closed model, no think time)",
        "arrivals answered a second",
        series,
        x_scale=LOG,
        note=f"the USL fitted to the measured levels (at least {MIN_LEVELS}) is drawn as a line of its own",
    )
    return Section(
        f"{workload_id}: {title} — throughput against clients", Table(columns, rows), [FIT, *notes], charts=[chart]
    )
