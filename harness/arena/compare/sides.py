"""The two sides a command line or a page names, read from the store (or, for `reference`, from the
runs kept in reference/), and what differs between where and how they were measured.

A side is a run (`last`, `last~1`, a run's name) or one implementation of a run (`RUN:go`). Both
sides are runs, or both are implementations: a run against one implementation would match points
by implementation on one side only.
"""

from __future__ import annotations

import json

from arena.compare.model import Side
from arena.errors import UsageError
from arena.kind import COMMANDS
from arena.measured import kept
from arena.measured.store import Run, Store
from arena.report.provenance import shown

REFERENCE = "reference"  # the side of the runs kept in reference/


def read(store: Store, names: tuple[str, str]) -> tuple[tuple[Side, Side], list[tuple[str, str, str]]]:
    """Both sides, and the facts in which they differ: (what, on A, on B). A side named `reference`
    is the runs kept in reference/ of the other side's kind (measured/kept.py), read as they are."""
    if all(name == REFERENCE for name in names):
        raise UsageError("compare the reference with a run of yours: ./arena compare reference last")
    mine = {name: _side(store, name) for name in names if name != REFERENCE}
    found = [mine.get(name) or _reference(next(iter(mine.values()))[1]) for name in names]
    (a, run_a), (b, run_b) = found
    if (a.impl is None) != (b.impl is None):
        raise UsageError(
            f"compare two runs (last~1 last) or two implementations (RUN:go RUN:rust), not {' and '.join(names)}"
        )
    if run_a.kind != run_b.kind:
        raise UsageError(f"{a.label} is an {run_a.kind} run and {b.label} a {run_b.kind} run: compare runs of one kind")
    return (a, b), differences((a, run_a), (b, run_b))


def _side(store: Store, name: str) -> tuple[Side, Run]:
    run_name, _, impl = name.partition(":")
    run = store.named(run_name)
    measurements = store.measurements(run.id)
    if not impl:
        return Side(run.name, measurements), run
    impls = sorted({m.impl for m in measurements})
    if impl not in impls:
        raise UsageError(f"run {run.name} has no measurement of {impl!r}; it has {', '.join(impls) or 'none'}")
    return Side(f"{run.name}:{impl}", measurements, impl), run


def _reference(other: Run) -> tuple[Side, Run]:
    """The kept runs of the other side's kind as one side: the reference of the command that runs
    that kind (`arena run`'s for a REST run), else those of `arena findings --measure`, which measure
    the kind at the seeds' points. Its first run stands for its provenance, with what has changed
    since in the code that measured it. Never both: one point measured by two commands, on two
    commits, is not one side."""
    folders = kept.newest()
    with kept.imported(folders) as (held, imported):
        found = [(command, run) for command, runs in imported.items() for run in runs if run.kind == other.kind]
        own = [(command, run) for command, run in found if command == COMMANDS.get(other.kind)]
        found = own or found
        if not found:
            commands = ", ".join(imported) or "nothing"
            raise UsageError(f"reference/ keeps no {other.kind} run to compare {other.name} with (it keeps {commands})")
        measurements = [m for _, run in found for m in held.measurements(run.id)]
    command, first = min(found, key=lambda pair: pair[1].started)
    since = kept.since(folders[command], sorted({m.impl for m in measurements}))
    label = f"reference ({first.name[:8]}, commit {first.git_commit[:7]}: {since})"
    return Side(label, measurements), first


def facts(run: Run, side: Side) -> dict[str, str]:
    """Where and how a side was measured, one fact a line: its run's commit, host and options, and
    the versions its measurements recorded (of its implementation alone when it is one)."""
    found = {
        "commit": run.git_commit + (" (with uncommitted changes)" if run.git_dirty else ""),
        **{f"host {key}": str(value) for key, value in run.host.items()},
        **{f"option {key}": json.dumps(value) for key, value in run.plan.items() if key != "kind"},
    }
    for m in side.measurements:
        if side.impl in (None, m.impl):
            for key, value in (m.versions or {}).items():
                found.setdefault(key if side.impl else f"{m.impl} {key}", shown(value))
    return found


def differences(a: tuple[Side, Run], b: tuple[Side, Run]) -> list[tuple[str, str, str]]:
    fa, fb = facts(a[1], a[0]), facts(b[1], b[0])
    return [
        (key, fa.get(key, "-"), fb.get(key, "-")) for key in dict.fromkeys([*fa, *fb]) if fa.get(key) != fb.get(key)
    ]
