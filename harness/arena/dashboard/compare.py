"""The dashboard's compare page: the comparison `arena compare` prints (arena/compare/), drawn, with
the latency distributions of the points both sides measured overlaid (REST runs, from the
histograms)."""

from __future__ import annotations

from arena.compare import sides
from arena.compare.model import Side, compare
from arena.compare.report import report
from arena.kind import REST, Kind, main_metrics
from arena.measured.flags import Flag
from arena.measured.store import Store
from arena.report.charts import Chart, Series
from arena.report.tables import Report, Section
from arena.rest import charts as rest_charts


def _distributions(pair: tuple[Side, Side]) -> list[Chart]:
    """Latency by percentile where both sides measured a point: a line per side and implementation."""

    def groups(side: Side) -> dict[tuple, dict[str, list[str]]]:
        found: dict[tuple, dict[str, list[str]]] = {}
        for m in side.measurements:
            if m.kind != REST or not m.measured or Flag.UNSTEADY in m.flags or "*" not in m.payload.histograms:
                continue
            if side.impl is not None and m.impl != side.impl:
                continue
            found.setdefault((m.experiment, m.point, m.cpus), {}).setdefault(m.impl, []).append(
                m.payload.histograms["*"]
            )
        return found

    a, b = groups(pair[0]), groups(pair[1])
    charts = []
    for key in sorted(k for k in a if k in b):
        series = []
        for side, found in zip(pair, (a[key], b[key]), strict=True):
            for impl, histograms in sorted(found.items()):
                xs, values = rest_charts.distribution(histograms)
                name = side.label if side.impl else f"{impl} @ {side.label}"
                series.append(Series(name, values, xs))
        experiment, point, cpus = key
        charts.append(rest_charts.percentile_chart(f"{experiment} {rest_charts.label(point, cpus)}", series))
    return charts


def page(store: Store, names: tuple[str, str], kinds: dict[str, Kind]) -> Report:
    """Sides named as on the command line (`RUN`, `RUN:IMPL`)."""
    pair, differs = sides.read(store, names)
    made = report(compare(*pair, main_metrics(kinds)), differs)
    distributions = _distributions(pair)
    if distributions:
        made.sections.append(Section("latency distributions, overlaid", charts=distributions))
    return made
