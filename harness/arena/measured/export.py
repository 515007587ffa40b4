"""`arena export`: a stored run as documents scripts and notebooks read without SQLite, in the
versioned schema of spec/export.md — every measurement with its flat values and its whole payload,
and a summary per implementation, experiment, point and budget over the repetitions that count."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections import defaultdict
from collections.abc import Callable

from arena.impls import setups
from arena.measured.flags import Flag
from arena.measured.measurement import MICRO, Measurement
from arena.measured.stats import NOISY_COV, summarize
from arena.measured.store import Run

SCHEMA = "arena.export/3"
# The schemas `arena import` reads: version 1 named the REST kind `http` and its payload `HttpResult`,
# version 2 a capacity or soak run's kind as its suite (spec/export.md): read as version 3 writes them.
READABLE = ("arena.export/1", "arena.export/2", SCHEMA)
# A repetition with one of these flags is kept in the measurements but left out of the summaries,
# as the tables leave it out of their medians.
UNCOUNTED = {Flag.UNSTEADY, Flag.CRASHED}
ENVELOPE = ["kind", "impl", "experiment", "point", "cpus", "repetition", "outcome", "reason", "flags"]
# A kind's main numbers of a measurement, metric -> whether higher is better (arena/kind.py).
MainMetrics = Callable[[Measurement], dict[str, bool]]
# The coefficient of variation above which a measurement's main number is flagged noisy (arena/kind.py).
Noisy = Callable[[Measurement], float]


def _usual(_: Measurement) -> float:
    return NOISY_COV


def values_of(m: Measurement) -> dict[str, float | str | None]:
    """The measurement's numbers as its payload gives them, flat (`exported()`)."""
    return m.payload.exported() if m.payload is not None else {}


def counted_values(measurements: list[Measurement], metric: str) -> list[float]:
    """A metric's finite numbers over the repetitions that count: the samples of a point."""
    return [
        float(v)
        for m in measurements
        if m.measured and not UNCOUNTED & set(m.flags)
        if isinstance(v := values_of(m).get(metric), int | float) and not isinstance(v, bool) and math.isfinite(v)
    ]


def engine_bound(m: Measurement, metric: str) -> bool:
    """Whether the load engine bounded the metric: as its own `NAME_engine_bound` says where it has
    one (a capacity start's saturation, measured apart from its search), else the measurement's flag."""
    own = values_of(m).get(f"{metric}_engine_bound")
    return own if isinstance(own, bool) else Flag.ENGINE_BOUND in m.flags


def summary_of(measurements: list[Measurement], metric: str, higher_is_better: bool | None = None) -> dict | None:
    """A metric's summary over the repetitions that count, as every report gives it: the median and
    its 95% interval (stats.summarize) widened to the metric's resolution (`NAME_resolution`, the
    widest of its repetitions'); where the engine bounded a repetition's main number (one whose
    better direction is known: `higher_is_better`), the interval open on the better side (`bound`
    "at least" with `high` null, or "at most" with `low` null), as the tables show "≥" or "≤" and
    the findings judge it. None without a number."""
    found = counted_values(measurements, metric)
    if not found:
        return None
    resolution = max(counted_values(measurements, f"{metric}_resolution"), default=0.0)
    summary = summarize(found, resolution, metric)
    made = {"median": summary.median, "low": summary.ci_low, "high": summary.ci_high, "n": summary.n}
    made["cov"] = summary.cov
    counted = [m for m in measurements if m.measured and not UNCOUNTED & set(m.flags)]
    if higher_is_better is not None and any(engine_bound(m, metric) for m in counted):
        low, high = summary.bound(higher_is_better)
        made |= {"low": low, "high": high, "bound": "at least" if higher_is_better else "at most"}
    return made


def measurement_row(m: Measurement) -> dict:
    return {
        "kind": m.kind,
        "impl": m.impl,
        "setup": setups.known().setup(m.impl, m.versions) if m.kind != MICRO else "",
        "experiment": m.experiment,
        "point": json.loads(m.point),
        "cpus": m.cpus,
        "repetition": m.repetition,
        "outcome": str(m.outcome),
        "reason": m.reason,
        "flags": m.flags,
        "versions": m.versions,
        "parameters": m.parameters,
        "values": values_of(m),
        "payload_type": type(m.payload).__name__ if m.payload is not None else None,
        "payload": dataclasses.asdict(m.payload) if m.payload is not None else None,
    }


def summaries(measurements: list[Measurement], main: MainMetrics = lambda _: {}, noisy: Noisy = _usual) -> list[dict]:
    """Per kind, implementation, experiment, point and budget: every numeric value over the
    repetitions that count, as a median with its 95% interval (`summary_of`), and the flags of any
    repetition, with `noisy` where the first of its kind's main numbers varies by more than its kind
    allows."""
    groups: dict[tuple, list[Measurement]] = defaultdict(list)
    for m in measurements:
        groups[(m.kind, m.impl, m.experiment, m.point, m.cpus)].append(m)
    made = []
    for (kind, impl, experiment, point, cpus), group in sorted(groups.items()):
        counted = [m for m in group if m.measured and not UNCOUNTED & set(m.flags)]
        names = dict.fromkeys(name for m in counted for name in values_of(m))
        higher = {metric: better for m in counted for metric, better in main(m).items()}
        shown = {name: given for name in names if (given := summary_of(group, name, higher.get(name))) is not None}
        flags = {flag for m in group for flag in m.flags}
        first = next(iter(main(counted[0])), None) if counted else None
        if first in shown and (shown[first]["cov"] or 0) > noisy(counted[0]):
            flags.add(Flag.NOISY)
        made.append(
            {
                "kind": kind,
                "impl": impl,
                "setup": setups.known().setup(impl, group[0].versions) if kind != MICRO else "",
                "experiment": experiment,
                "point": json.loads(point),
                "cpus": cpus,
                "repetitions": len(group),
                "counted": len(counted),
                "flags": sorted(flags),
                "values": shown,
            }
        )
    return made


def document(
    run: Run,
    measurements: list[Measurement],
    main: MainMetrics,
    noisy: Noisy,
    findings: list[dict] | None = None,
    notes: list[str] | None = None,
    orders: list[dict] | None = None,
) -> dict:
    """The run, its measurements, their summaries, the orders of a capacity run's workloads and the
    verdicts on the seeds' findings they give (capacity/order.py and arena/findings, computed by
    the caller)."""
    return {
        "schema": SCHEMA,
        "run": {
            "name": run.name,
            "kind": run.kind,
            "suite": run.suite,
            "started": run.started,
            "finished": run.finished,
            "interrupted": run.interrupted,
            "paused": run.paused,
            "git_commit": run.git_commit,
            "git_dirty": run.git_dirty,
            "host": run.host,
            "plan": run.plan,
            "notes": notes or [],
        },
        "measurements": [measurement_row(m) for m in measurements],
        "summaries": summaries(measurements, main, noisy),
        "orders": orders or [],
        "findings": findings or [],
    }


def as_json(made: dict) -> str:
    """A document (`document`) as the JSON file the export writes."""
    return json.dumps(made, indent=1, default=str) + "\n"


def as_csv(run: Run, measurements: list[Measurement], rows: str, main: MainMetrics, noisy: Noisy) -> str:
    """One CSV table: a row per measurement (its envelope and flat values), or per summary (its
    envelope and each value's median, low and high)."""
    if rows == "summaries":
        made = []
        for s in summaries(measurements, main, noisy):
            row = {key: s[key] for key in ("kind", "impl", "experiment", "point", "cpus", "repetitions", "counted")}
            row["flags"] = s["flags"]
            for name, value in s["values"].items():
                row |= {f"{name}.median": value["median"], f"{name}.low": value["low"], f"{name}.high": value["high"]}
            made.append(row)
    else:
        made = [{key: getattr(m, key) for key in ENVELOPE} | {"point": m.point} | values_of(m) for m in measurements]
    head = ["run", *dict.fromkeys(key for row in made for key in row)]
    out = io.StringIO()
    writer = csv.DictWriter(out, head, lineterminator="\n")
    writer.writeheader()
    for row in made:
        writer.writerow({"run": run.name} | {k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: object) -> object:
    """Lists and objects as JSON text in a cell; the rest as they are."""
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    return "" if value is None else value
