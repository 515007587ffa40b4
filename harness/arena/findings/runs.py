"""The stored runs a ledger of verdicts reads: those named, or the newest of each kind (`arena run`,
`arena micro`, `arena capacity`), suite and set of experiments — so that the findings suite's runs,
a scenario or bench each, are read beside a quick run of everything; where two runs measured the
same point, the newer one's."""

from __future__ import annotations

from arena.findings import catalog
from arena.findings.judge import Judgement, judge_all
from arena.findings.values import Index
from arena.measured.measurement import Measurement
from arena.measured.store import Run, Store


def newest_of_each_kind(store: Store) -> list[Run]:
    """The newest run that holds a measurement of each kind, suite and set of experiments."""
    found: dict[tuple, Run] = {}
    for run, measured, _ in store.runs():  # newest first
        if measured:
            experiments = run.plan.get("scenario") or run.plan.get("bench") or run.plan.get("workload") or []
            found.setdefault((run.kind, run.suite, tuple(sorted(experiments))), run)
    return list(found.values())


def measurements(store: Store, runs: list[Run]) -> list[Measurement]:
    """Every measurement of the runs, each point (kind, experiment, implementation, point, budget)
    from the newest run that measured it: repetitions of two runs are never mixed."""
    taken: dict[tuple, int] = {}
    kept = []
    for run in sorted(runs, key=lambda r: r.started, reverse=True):
        for m in store.measurements(run.id):
            key = (m.kind, m.experiment, m.impl, m.point, m.cpus)
            if taken.setdefault(key, run.id) == run.id:
                kept.append(m)
    return kept


def ledger(store: Store, names: list[str]) -> tuple[list[Judgement], list[Run]]:
    """A verdict on every finding from the runs named (their names, or 'last'), or from the newest
    run of each kind; and the runs read."""
    read = [store.named(name) for name in names] if names else newest_of_each_kind(store)
    return judge_all(Index(measurements(store, read)), catalog.load()), read
