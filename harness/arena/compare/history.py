"""Every stored run's value of one implementation's points, in time order, and where it changed.

A history is one implementation, point, core budget and main number on one host (a host is never
mixed into another's history): each run that measured it gives its median over the repetitions
that count, with the 95% interval. Change points are found by PELT (ruptures, pinned) on the
medians for a change in mean, scaled by the noise of the series — the larger of the spread between
successive runs (median absolute difference, a robust estimate that a step barely moves) and the
runs' own standard errors — with a penalty of 4·ln(n), and a level of three runs at least. On
synthetic series of 6 to 20 runs of three repetitions each (spec/compare.md): a change is marked in
1 to 3% of series of pure noise, and a step of four standard errors is found at its run in 71% (6
runs) to 90% (20 runs).
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from arena.compare.model import MainMetrics, point_label
from arena.errors import UsageError
from arena.measured.export import counted_values
from arena.measured.measurement import Measurement
from arena.measured.stats import summarize, t95
from arena.measured.store import Run, Store

PENALTY = 4.0  # times ln(n)
MIN_SEGMENT = 3  # runs: a level rests on three runs at least (two runs that agree by chance are not a level)


@dataclass(frozen=True)
class Entry:
    run: str
    started: float
    commit: str
    versions: dict
    median: float
    low: float | None  # the 95% interval; None for one repetition
    high: float | None
    n: int


@dataclass(frozen=True)
class History:
    host: str
    kind: str
    experiment: str
    point: str
    cpus: int
    impl: str
    metric: str
    higher_is_better: bool
    entries: list[Entry] = field(default_factory=list)
    changes: list[int] = field(default_factory=list)  # the entries that begin a new level

    @property
    def where(self) -> str:
        return point_label(self.experiment, self.point, self.cpus, self.impl, self.kind)


def host_of(run: Run) -> str:
    return str(run.host.get("name") or "unknown host")


def change_points(medians: list[float], errors: list[float]) -> list[int]:
    """Indices where a new level begins; `errors` are the runs' standard errors (0 when unknown)."""
    import numpy as np  # imported here: numpy and ruptures take tens of MiB other commands do without
    import ruptures

    if len(medians) < 2 * MIN_SEGMENT:
        return []
    steps = [abs(b - a) for a, b in itertools.pairwise(medians)]
    noise = max(1.4826 * statistics.median(steps) / math.sqrt(2), statistics.median(errors))
    noise = noise or 1e-9 * (abs(statistics.fmean(medians)) or 1.0)  # a flat series: any step is real
    signal = (np.array(medians) - statistics.fmean(medians)) / noise
    found = ruptures.Pelt(model="l2", min_size=MIN_SEGMENT, jump=1).fit(signal.reshape(-1, 1))
    return found.predict(pen=PENALTY * math.log(len(medians)))[:-1]


def histories(
    runs: list[tuple[Run, list[Measurement]]], impl: str, experiments: list[str], main_metrics: MainMetrics
) -> list[History]:
    """`impl`'s histories over the runs given (oldest first), of `experiments` (all when empty)."""
    groups: dict[tuple, list[tuple[Run, list[Measurement]]]] = defaultdict(list)
    for run, measurements in sorted(runs, key=lambda pair: pair[0].started):
        by_point: dict[tuple, list[Measurement]] = defaultdict(list)
        for m in measurements:
            if m.impl == impl and (not experiments or m.experiment in experiments):
                by_point[(m.kind, m.experiment, m.point, m.cpus)].append(m)
        for key, group in by_point.items():
            groups[(host_of(run), *key)].append((run, group))
    made = []
    for (host, kind, experiment, point, cpus), found in sorted(groups.items()):
        metrics: dict[str, bool] = {}
        for _, group in found:
            for m in group:
                metrics |= main_metrics(m) if m.measured else {}
        for metric, higher in metrics.items():
            entries = [entry for run, group in found if (entry := _entry(run, group, metric))]
            if entries:
                errors = [(e.high - e.low) / 2 / t95(e.n - 1) if e.low is not None else 0.0 for e in entries]
                changes = change_points([e.median for e in entries], errors)
                made.append(History(host, kind, experiment, point, cpus, impl, metric, higher, entries, changes))
    return made


def _entry(run: Run, group: list[Measurement], metric: str) -> Entry | None:
    samples = counted_values(group, metric)
    if not samples:
        return None
    summary = summarize(samples, metric=metric)
    versions = next((m.versions for m in group if m.versions), {})
    low, high = summary.ci_low, summary.ci_high
    return Entry(run.name, run.started, run.git_commit, versions, summary.median, low, high, summary.n)


def read(store: Store, impl: str, experiments: list[str], main_metrics: MainMetrics) -> list[History]:
    """`impl`'s histories from every stored run that measured it; a UsageError for names no run has."""
    listed = store.runs()
    known = sorted({name for _, _, impls in listed for name in impls})
    if impl not in known:
        raise UsageError(f"no stored run measured {impl!r}; runs here measured {', '.join(known) or 'nothing yet'}")
    runs = [(run, store.measurements(run.id)) for run, _, impls in listed if impl in impls]
    measured = {m.experiment for _, ms in runs for m in ms if m.impl == impl}
    unknown = sorted(set(experiments) - measured)
    if unknown:
        raise UsageError(f"{impl} was never measured at {', '.join(unknown)}; it was at {', '.join(sorted(measured))}")
    return histories(runs, impl, experiments, main_metrics)
