"""Histories as a report of the table model: per host, point and number, a table of every run in
time order with the change points marked (the terminal), and the same drawn as a line with its
intervals and the changes as marks, each run's commit and versions on hover (the dashboard)."""

from __future__ import annotations

import statistics
import time

from arena.compare.history import History
from arena.report.charts import LINE, LINEAR, Chart, Series, Value
from arena.report.tables import Cell, Column, Report, Row, Section, Table


def _number(x: float) -> str:
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _change(h: History, i: int) -> str:
    """At the first run of a new level: how far its level (its runs' mean) is from the one before."""
    if i not in h.changes:
        return ""
    bounds = [0, *h.changes, len(h.entries)]
    k = bounds.index(i)
    before, after = h.entries[bounds[k - 1] : i], h.entries[i : bounds[k + 1]]
    shift = statistics.fmean(e.median for e in after) / statistics.fmean(e.median for e in before) - 1
    better = (shift > 0) == h.higher_is_better
    return f"new level: {shift:+.1%} ({'better' if better else 'worse'})"


def _tip(h: History, i: int) -> str:
    e = h.entries[i]
    versions = ", ".join(f"{k} {v}" for k, v in e.versions.items())
    return f"run {e.run}, commit {e.commit[:10]}" + (f"; {versions}" if versions else "")


def _section(h: History) -> Section:
    rows = []
    for i, e in enumerate(h.entries):
        interval = f" [{_number(e.low)}, {_number(e.high)}]" if e.n > 1 else ""
        change = _change(h, i)
        rows.append(
            Row(
                [
                    Cell(e.run),
                    Cell(time.strftime("%Y-%m-%d %H:%M", time.localtime(e.started))),
                    Cell(e.commit[:10]),
                    Cell(str(e.versions.get("runtime", "-"))),
                    Cell(f"{_number(e.median)}{interval} (n={e.n})"),
                    Cell(change, tone="" if not change else "good" if "better" in change else "bad"),
                ]
            )
        )
    columns = [Column("run"), Column("started"), Column("commit"), Column("runtime", essential=False)]
    table = Table([*columns, Column(h.metric, numeric=True), Column("change")], rows, flags=False)
    xs = [float(i + 1) for i in range(len(h.entries))]
    line = [Value(e.median, e.low, e.high, tip=_tip(h, i)) for i, e in enumerate(h.entries)]
    series = [Series(h.impl, line, xs)]
    if h.changes:
        series.append(Series("change", [line[i] for i in h.changes], [xs[i] for i in h.changes], mark_of=h.impl))
    arrow = "↑" if h.higher_is_better else "↓"
    chart = Chart(
        f"{h.where}: {h.metric}",
        LINE,
        "run, oldest first (hover: its name, commit and versions)",
        f"{h.metric} {arrow}",
        series,
        x_scale=LINEAR,
        note="median of each run with its 95% interval; a mark where a new level begins (PELT, spec/compare.md)",
    )
    changes = f"{len(h.changes)} change(s)" if h.changes else "no change"
    heading = f"{h.where} · {h.metric} {arrow} on {h.host}: {len(h.entries)} run(s), {changes}"
    return Section(heading, table, charts=[chart])


def report(impl: str, histories: list[History]) -> Report:
    hosts = sorted({h.host for h in histories})
    preamble = [f"hosts: {', '.join(hosts)} (a host's runs are never mixed into another's history)"] if hosts else []
    sections = [_section(h) for h in histories]
    if not sections:
        sections = [Section("no history", notes=[f"no stored run measured {impl} (at these experiments)"])]
    legend = [
        "Each row: a run's median over the repetitions that count, with the 95% interval of the mean and n; "
        "change: where a new level begins, by PELT on the medians (spec/compare.md), and by how much it "
        "moved from the level before."
    ]
    return Report(f"Arena: the history of {impl}", preamble=preamble, sections=sections, legend=legend)
