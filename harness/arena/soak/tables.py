"""The summary of a soak run as the table model: a row per implementation, budget and start with
what it held, what it got, and the two trends with their intervals; the memory and p99 timelines
drawn, one line per runtime, the warm-up dashed."""

from __future__ import annotations

from arena.capacity.search import FOUND
from arena.kind import SOAK as KIND
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.report.charts import LINE, LINEAR, Chart, Series, Value
from arena.report.pivot import scale_for
from arena.report.tables import Cell, Column, Report, Row, Section, Table, legend
from arena.soak.parameters import Parameters
from arena.soak.periods import Period
from arena.soak.result import Soak
from arena.soak.trend import Trend

COLUMNS = [
    Column("impl"),
    Column("cpus", numeric=True),
    Column("start", numeric=True, essential=False),
    Column("rate /s", numeric=True),
    Column("min", numeric=True, essential=False),
    Column("ok/s", numeric=True, essential=False),
    Column("p50 ms", numeric=True, essential=False),
    Column("p99 ms", numeric=True),
    Column("errors %", numeric=True, essential=False),
    Column("poll p99 ms", numeric=True, essential=False),
    Column("MiB first→last", numeric=True, essential=False),
    Column("MiB/h [95% CI]", numeric=True),
    Column("p99 drift [95% CI]", numeric=True),
]


def telling(soak: Soak, found: Trend | None, bound: float, parameters: Parameters) -> bool | None:
    """Whether a trend is past its bound (spec/soak.md, "Trends"): True when its interval lies past
    it over enough measured periods, or far past it over fewer; None when it lies past it, but the
    soak was too short to tell; False otherwise."""
    if found is None or not found.past(bound):
        return False
    if len(soak.measured()) >= parameters.trend_periods or found.past(parameters.far_beyond * bound):
        return True
    return None


def trend_flags(soak: Soak, parameters: Parameters) -> list[str]:
    """The trends past their bounds, and errors past theirs: a server that stopped answering has
    flat memory and no p99 to drift, and must not pass for a steady one."""
    memory = telling(soak, soak.memory_trend(), parameters.memory_bound_mib_h, parameters)
    drift = telling(soak, soak.drift(), parameters.drift_bound, parameters)
    failed = [soak.error_ratio(), soak.poll_error_ratio()]
    return (
        ([Flag.MEMORY_GROWS] if memory else [])
        + ([Flag.P99_DRIFTS] if drift else [])
        + ([Flag.ERRORS] if any(ratio is not None and ratio > parameters.error_bound for ratio in failed) else [])
    )


def trend_shown(soak: Soak, found: Trend | None, bound: float, parameters: Parameters, share: bool = False) -> str:
    if found is None:
        return "too short"
    shown = (
        f"{found.value:+.0%} [{found.low:+.0%}, {found.high:+.0%}]"
        if share
        else f"{found.value:+,.1f} [{found.low:+,.1f}, {found.high:+,.1f}]"
    )
    return shown + (" too short to tell" if telling(soak, found, bound, parameters) is None else "")


def _row(m: Measurement, parameters: Parameters) -> Row:
    if not m.measured:
        return Row(
            [Cell(m.impl), Cell(str(m.cpus)), Cell(str(m.repetition + 1)), *[Cell("-")] * 10], [*m.flags, Flag.FAILED]
        )
    soak: Soak = m.payload
    values = soak.exported()
    held = f"{soak.rate:,.0f}" + (f" ({soak.share:.0%})" if soak.share else "")
    first, last = values["memory_first_mib"], values["memory_last_mib"]
    return Row(
        [
            Cell(m.impl),
            Cell(str(m.cpus)),
            Cell(str(m.repetition + 1)),
            Cell(held),
            Cell(f"{values['minutes']:.1f}"),
            Cell(f"{values['ok_rps']:,.0f}" if values["ok_rps"] is not None else "-"),
            Cell(f"{values['p50_ms']:.2f}" if values["p50_ms"] is not None else "-"),
            Cell(f"{values['p99_ms']:.2f}" if values["p99_ms"] is not None else "-"),
            Cell(f"{values['error_ratio']:.2%}" if values["error_ratio"] is not None else "-"),
            Cell(f"{values['poll_p99_ms']:.0f}" if values["poll_p99_ms"] is not None else "-"),
            Cell(f"{first:,.0f}→{last:,.0f}" if first is not None else "-"),
            Cell(trend_shown(soak, soak.memory_trend(), parameters.memory_bound_mib_h, parameters)),
            Cell(trend_shown(soak, soak.drift(), parameters.drift_bound, parameters, share=True)),
        ],
        sorted(m.flags),
    )


def _middle(period: Period) -> float:
    """A period's middle, in minutes."""
    return (period.t_s + period.seconds / 2) / 60


def _timelines(measurements: list[Measurement]) -> list[Chart]:
    """Memory and p99 against time, a line per implementation, budget and start."""
    memory, p99 = [], []
    for m in measurements:
        soak: Soak = m.payload
        line = f"{m.impl} cpus={m.cpus}" + (f" start {m.repetition + 1}" if m.repetition else "")
        measured = soak.measured()
        warm_end = measured[0].t_s / 60 if measured else None
        memory.append(
            Series(
                line, [Value(mib) for _, mib in soak.memory], [t / 60 for t, _ in soak.memory], dashed_before=warm_end
            )
        )
        # A point a period, at its middle: the line into the first measured one leaves the warm-up.
        # A period with no answer has no p99 (a gap, not a zero).
        periods = soak.period_list()
        p99.append(
            Series(
                line,
                [Value(p.p99_ms) if p.ok else None for p in periods],
                [_middle(p) for p in periods],
                dashed_before=_middle(measured[0]) if measured else None,
            )
        )
    return [
        Chart(
            "Resident memory of the server's processes",
            LINE,
            "minutes",
            "MiB",
            memory,
            x_scale=LINEAR,
            note="dashed: the warm-up",
        ),
        Chart(
            "The arrivals' p99 in each period",
            LINE,
            "minutes",
            "p99 ms",
            p99,
            x_scale=LINEAR,
            # Logarithmic where the p99s span more than a decade (a cold JVM's seconds beside warm
            # milliseconds); a narrow span on a log axis would have no tick to read it by.
            y_scale=scale_for([v.y for series in p99 for v in series.values if v]),
            note="dashed: the warm-up",
        ),
    ]


def report(title: str, measurements: list[Measurement], skipped: list[str], parameters: Parameters) -> Report:
    ours = sorted((m for m in measurements if m.kind == KIND), key=lambda m: (m.impl, m.cpus, m.repetition))
    notes = [f"{m.impl} cpus={m.cpus} start {m.repetition + 1}: FAILED: {m.reason}" for m in ours if not m.measured]
    held = [m for m in ours if m.measured]
    sources = sorted({(m.payload.edge_run, m.payload.share) for m in held if m.payload.edge_run})
    notes += [f"rates: {share:.0%} of the {parameters.workload} edge of capacity run {run}" for run, share in sources]
    notes += [
        f"{m.impl} cpus={m.cpus}: its edge's search ended {m.payload.edge_ended}: the rate is a share of the highest "
        "rate it sustained, a lower bound of its edge"
        for m in held
        if m.payload.edge_ended not in (None, FOUND)
    ]
    notes.append(
        f"each arrival sends the {parameters.workload} workload's requests (spec/capacity.toml); beside them "
        f"{parameters.pollers} connections poll /longPoll without pause (poll p99 includes its wait); the first "
        f"{parameters.warmup_periods} period(s) of {parameters.period_s:g} s warm up and are left out of the trends"
    )
    section = Section(
        f"soak: the {parameters.workload} workload held for minutes, with long-polls beside it",
        Table(COLUMNS, [_row(m, parameters) for m in ours]),
        notes,
        charts=_timelines(held) if held else [],
    )
    trends = (
        f"trends: Theil-Sen slopes over {parameters.bin_s:g} s medians after the warm-up, with their 95% interval; "
        f"memory-grows when the memory slope's interval lies above {parameters.memory_bound_mib_h:g} MiB/h, "
        f"p99-drifts when p99's change over the measured periods lies above {parameters.drift_bound:+.0%}, "
        f"interval and all, over at least {parameters.trend_periods} measured periods or past "
        f"{parameters.far_beyond:g} times the bound over fewer; else 'too short to tell' (spec/soak.md)"
    )
    cells = "Cells: each row is one soak on one server start; p50 and p99 are medians over its measured periods."
    return Report(title, sections=[section], legend=legend([section], (), (trends,), cells), skipped=skipped)
