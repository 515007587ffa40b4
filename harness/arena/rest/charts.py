"""The charts of a REST experiment that no table holds, from its stored measurements: latency
percentile distributions from the engine's histograms, and per-second timelines from the start of
the warm-up to the end of the measured window.

Both are drawn per point and core budget with a line per implementation. A distribution merges the
histograms of every steady repetition (HdrHistogram adds them losslessly); a timeline shows one
repetition, the first steady one, since averaging seconds across server starts would blur the
warm-ups it is there to show.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict

from hdrh.histogram import HdrHistogram

from arena.kind import REST
from arena.measured.measurement import Measurement
from arena.report.charts import LINE, LINEAR, LOG, PERCENTILE, Chart, Series, Value
from arena.rest.result import counted

# Points of a distribution: x = 1/(1-p) from 1 (p = 0) up by quarter decades, and the median
# (x = 2), as far as the histogram holds requests (x < count), then its maximum.
STEPS_PER_DECADE, MEDIAN = 4, 2.0
# The merged histogram's range, µs: each repetition's own (the engine's grow as needed) fits in it.
LOWEST_US, HIGHEST_US, DIGITS = 1, 3_600_000_000, 3


def label(point: str, cpus: int) -> str:
    shown = " ".join(f"{k}={v}" for k, v in json.loads(point).items())
    return f"{shown}, cpus={cpus}" if shown else f"cpus={cpus}"


def _groups(experiment: str, measurements: list[Measurement]) -> dict[tuple, dict[str, list[Measurement]]]:
    """(point, cpus) -> impl -> its counted measurements, in repetition order."""
    found: dict[tuple, dict[str, list[Measurement]]] = defaultdict(lambda: defaultdict(list))
    for m in sorted(measurements, key=lambda m: m.repetition):
        if m.kind == REST and m.experiment == experiment and counted(m):
            found[(m.point, m.cpus)][m.impl].append(m)
    return found


def distribution(histograms: list[str]) -> tuple[list[float], list[Value | None]]:
    """The merged histograms' latency (ms) at x = 1/(1-p) for quarter decades of x and the median,
    and its maximum."""
    merged = HdrHistogram(LOWEST_US, HIGHEST_US, DIGITS)
    for encoded in histograms:
        merged.add(HdrHistogram.decode(encoded))
    count = merged.get_total_count()
    if not count:
        return [], []
    steps = (10 ** (k / STEPS_PER_DECADE) for k in range(int(STEPS_PER_DECADE * math.log10(count)) + 1))
    xs = sorted({x for x in (*steps, MEDIAN) if x < count})
    values = [Value(merged.get_value_at_percentile(100 * (1 - 1 / x)) / 1000) for x in xs]
    xs.append(float(count))
    values.append(Value(merged.get_max_value() / 1000))
    return xs, values


def distributions(experiment: str, measurements: list[Measurement]) -> list[Chart]:
    charts = []
    for (point, cpus), impls in sorted(_groups(experiment, measurements).items()):
        series = []
        for impl, group in sorted(impls.items()):
            xs, values = distribution([m.payload.histograms["*"] for m in group if "*" in m.payload.histograms])
            if xs:
                series.append(Series(impl, values, xs))
        if series:
            note = "every request of every steady repetition, merged; the last point of a line is its slowest request"
            charts.append(percentile_chart(label(point, cpus), series, note))
    return charts


def percentile_chart(point: str, series: list[Series], note: str = "") -> Chart:
    """Latency against percentile on the HdrHistogram plot's axes, a line for each series."""
    title = f"latency by percentile: {point}"
    return Chart(title, LINE, "percentile", "latency ms", series, x_scale=PERCENTILE, y_scale=LOG, note=note)


# What a timeline shows: from a warm-up slice, and from a measured second. Throughput is drawn
# open; the others are folded under it.
THROUGHPUT = "successful requests per second"
TIMELINES = {
    THROUGHPUT: (
        lambda s: s["ok_rps"],
        lambda t: t["ok"],
    ),
    "errors %": (
        lambda s: 100 * s.get("error_ratio", 0.0),
        lambda t: 100 * t["errors"] / t["completed"] if t["completed"] else None,
    ),
    "p50 ms": (lambda s: s["p50_ms"], lambda t: t["p50_us"] / 1000 if t["completed"] else None),
    "p99 ms": (lambda s: s["p99_ms"], lambda t: t["p99_us"] / 1000 if t["completed"] else None),
}


def timeline(m: Measurement, of_slice, of_second) -> Series:
    """One repetition's warm-up slices (at their start) and then its measured seconds."""
    warmup = m.payload.warmup or {}
    start = warmup.get("seconds", 0.0)
    xs = [s["seconds"] for s in warmup.get("slices", [])] + [start + t["t"] for t in m.payload.series]
    ys = [of_slice(s) for s in warmup.get("slices", [])] + [of_second(t) for t in m.payload.series]
    values = [Value(y) if y is not None else None for y in ys]
    return Series(f"{m.impl} rep {m.repetition + 1}", values, xs, dashed_before=start if warmup else None)


def timelines(experiment: str, measurements: list[Measurement]) -> list[Chart]:
    charts = []
    note = "dashed: the warm-up, a point per slice of its own load; solid: the measured window, a point per second"
    for (point, cpus), impls in sorted(_groups(experiment, measurements).items()):
        firsts = [group[0] for _, group in sorted(impls.items())]
        for metric, (of_slice, of_second) in TIMELINES.items():
            series = [timeline(m, of_slice, of_second) for m in firsts]
            y_scale = LOG if metric.startswith("p") else LINEAR
            charts.append(
                Chart(
                    f"{metric} over time: {label(point, cpus)}",
                    LINE,
                    "seconds from the warm-up's start",
                    metric,
                    series,
                    x_scale=LINEAR,
                    y_scale=y_scale,
                    note=note,
                    folded=metric != THROUGHPUT,
                )
            )
    return charts
