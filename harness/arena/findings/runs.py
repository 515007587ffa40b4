"""The stored runs a ledger of verdicts reads: those named, or the newest of each kind (`arena run`,
`arena micro`, `arena capacity`), suite, set of experiments and of points asked for — so that the
findings suite's runs, a scenario or bench each (and a scenario's slow point in a run of its own),
are read beside a quick run of everything; where two runs measured the same point, the newer one's."""

from __future__ import annotations

from arena.findings import catalog
from arena.findings.judge import Judgement, judge_all
from arena.findings.values import Index
from arena.kind import FINDINGS
from arena.measured.measurement import Measurement
from arena.measured.stats import SMALLEST_CHANGE
from arena.measured.store import Run, Store
from arena.report.tables import Cell, Column, Row, Table


def newest_of_each_kind(store: Store) -> list[Run]:
    """The newest run that holds a measurement of each kind, suite, set of experiments and of points."""
    return [runs[0] for runs in _by_kind(store).values()]


def last_two_findings_suites(store: Store) -> tuple[list[Run], list[Run]]:
    """The findings suite's runs before its newest ones, and its newest ones: of each scenario or
    bench it measured, the run before the newest (the newest where there is none before it, so
    that both sides read every experiment) and the newest (`arena findings --changes`). No runs
    before where no experiment was measured twice."""
    suites = [runs for (_, suite, *_), runs in _by_kind(store).items() if suite == FINDINGS]
    if not any(len(runs) > 1 for runs in suites):
        return [], [runs[0] for runs in suites]
    return [runs[1] if len(runs) > 1 else runs[0] for runs in suites], [runs[0] for runs in suites]


def paces(before: list[Run], after: list[Run]) -> Table:
    """Each experiment's run before and now (as `last_two_findings_suites` pairs them) with the
    machine's pace at its start (host/pace.py), where both recorded one: a verdict that moved with a
    machine that ran slower or faster for one of its runs shows that here, not in its own numbers."""
    rows = []
    for was, now in zip(before, after, strict=True):
        then, pace = was.host.get("pace_mib_s"), now.host.get("pace_mib_s")
        if was is now or not then or not pace:
            continue
        moved = _moved(then, pace)
        experiments = " ".join(_experiments(now))
        points = " ".join(str(p) for p in now.plan.get("point") or [])
        rows.append(
            Row(
                [
                    Cell(f"{experiments} {points}".strip()),
                    Cell(was.name),
                    Cell(now.name),
                    Cell(f"{then:,.0f}"),
                    Cell(f"{pace:,.0f}"),
                    Cell(f"x{pace / then:.2f}", tone="bad" if moved else ""),
                ]
            )
        )
    columns = [Column(c) for c in ("experiment", "run before", "run now", "MiB/s before", "MiB/s now", "now/before")]
    return Table(columns, rows, flags=False)


def pace_moved(runs: list[Run]) -> str | None:
    """What the machine's pace at the runs' starts (host/pace.py) says of verdicts that compare
    them, where it moved between them by the smallest change that counts."""
    paces = sorted(r.host["pace_mib_s"] for r in runs if r.host.get("pace_mib_s"))
    if len(paces) < 2 or not _moved(paces[0], paces[-1]):
        return None
    # A virtual machine's host may give it less of a core from one hour to the next. Implementations
    # compared within one run share its pace; a value held to a seed's number does not.
    return (
        f"the machine's pace moved between these runs: {paces[0]:,.0f} to {paces[-1]:,.0f} MiB/s at their "
        f"starts (x{paces[-1] / paces[0]:.2f}; SHA-256 on one core, host/pace.py): a time or a rate held "
        "to a seed's number may move with it"
    )


def _moved(then: float, now: float) -> bool:
    """Whether the machine's pace moved from `then` to `now` by the smallest change that counts."""
    return abs(now / then - 1) >= SMALLEST_CHANGE


def _experiments(run: Run) -> list[str]:
    """The scenarios, benches or workloads the run's plan asked for (none: all of its suite's)."""
    return run.plan.get(catalog.PLANNED.get(run.kind, "")) or []


def _by_kind(store: Store) -> dict[tuple, list[Run]]:
    """The runs that hold a measurement, newest first, by kind, suite, set of experiments and the
    points asked for (`--point`; none: all): a run of one point does not hide a run of the others."""
    found: dict[tuple, list[Run]] = {}
    for run, measured, _ in store.runs():  # newest first
        if measured:
            experiments = _experiments(run)
            points = run.plan.get("point") or []
            found.setdefault((run.kind, run.suite, tuple(sorted(experiments)), tuple(sorted(points))), []).append(run)
    return found


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


def judged(store: Store, runs: list[Run]) -> list[Judgement]:
    return judge_all(index(store, runs), catalog.load())


def index(store: Store, runs: list[Run]) -> Index:
    """The runs' measurements as the judge reads them, each with how many times its run's numbers
    were read for a verdict: once, and once more each time the findings suite extended it."""
    return Index(measurements(store, runs), {r.id: 1 + len(r.plan.get("looked", [])) for r in runs})


def ledger(store: Store, names: list[str]) -> tuple[list[Judgement], list[Run]]:
    """A verdict on every finding from the runs named (their names, or 'last'), or from the newest
    run of each kind; and the runs read."""
    read = [store.named(name) for name in names] if names else newest_of_each_kind(store)
    return judged(store, read), read
