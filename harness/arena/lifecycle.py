"""One run's life, the same for every kind of measurement (arena/kind.py): given a plan and a context
(arena/context.py: the console, the store it claimed, the database, the engine), open or resume
the run, record its provenance, prepare, measure every task not yet stored with progress and an
ETA, keep everything finished on Ctrl-C, write the summary at the end and judge its gates.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from arena.console import Console
from arena.context import Context
from arena.errors import ArenaError, UsageError
from arena.findings import catalog as findings_catalog
from arena.findings import runs as findings_runs
from arena.findings import section as findings_section
from arena.findings.judge import judge_all
from arena.gates import assertion, junit
from arena.gates.assertion import Assertion
from arena.host.busy import busy_others
from arena.kind import Batch, Cut, Kind, Plan
from arena.measured.measurement import Measurement
from arena.measured.store import Run, Store, StoreError
from arena.paths import RESULTS
from arena.report import provenance
from arena.report.render import html, markdown, terminal
from arena.report.tables import Report


@dataclass(frozen=True)
class Gates:
    """The bounds a run's own numbers are held to once it ends (`--assert`), and where their
    outcomes are written as JUnit XML (`--junit`)."""

    assertions: list[str] = field(default_factory=list)
    junit: str | None = None


def run(kind: Kind, plan: Plan, context: Context, resume: str | None = None, gates: Gates = Gates()) -> int:
    """One run of `plan`, or the continuation of the stored run `resume` names ("last": the last
    unfinished one of its kind), with the plan it began with; 0 when it ends and its gates hold."""
    store, console = context.store, context.console
    resumed = _resumed(store, kind, resume)
    plan = kind.plans.of(resumed.plan) if resumed else plan
    kind.check(plan)
    assertions = assertion.parse_all(gates.assertions, kind.experiments(plan))
    console.line(f"arena {kind.command}: {kind.headline(plan)}")
    # A new run is recorded once it is prepared: one whose preparation fails leaves nothing behind.
    batch = kind.prepare(plan, store.measurements(resumed.id) if resumed else [], context)
    try:  # what the batch started (a server, a database) is stopped however measuring ends
        current = store.resume_run(resumed.id) if resumed else _start(store, kind, plan)
        console.line(f"\nrun {current.name}, in {store.path}: Ctrl-C keeps what is finished, --resume continues")
        _warn_if_busy(store, current, console)
        try:
            _measure(batch, kind, store, current, console)
        except KeyboardInterrupt:
            store.interrupt_run(current.id)
            console.line(f"\ninterrupted: {_kept(store, kind, current)}")
            return 130
        except StoreError as err:  # a full disk: the measurements stored before it stand
            raise StoreError(f"{err.line()}; {_kept(store, kind, current)} once there is room") from err
    finally:
        batch.close()
    # The summary is written from the run as marked finished, so that its provenance says when.
    write_summary(kind, store, store.finish_run(current.id), console)
    return _asserted(assertions, store.measurements(current.id), gates.junit, console)


def _warn_if_busy(store: Store, current: Run, console: Console) -> None:
    """Says, and notes in the run, which other processes are busy as it begins to measure: its
    servers share the cores with them (host/busy.py)."""
    me = psutil.Process()
    if busy := busy_others({me.pid, *(child.pid for child in me.children(recursive=True))}):
        line = "other processes were busy as measuring began, sharing the cores with its servers: "
        line += "; ".join(b.line() for b in busy)
        console.warn(line)
        store.add_note(current.id, line)


def _asserted(
    assertions: list[Assertion], measurements: list[Measurement], junit_file: str | None, console: Console
) -> int:
    """The run's `--assert`s judged on what it stored: 1 when any is breached, else 0."""
    if not assertions:
        return 0
    judged = [j for a in assertions for j in assertion.judge(a, measurements)]
    breached = sum(not j.ok for j in judged)
    console.line(f"\nassertions: {breached} breached of {len(judged)}", style="bold")
    terminal.table(console, assertion.table(judged))
    if junit_file:
        junit.write(Path(junit_file), "arena assertions", assertion.cases(judged))
        console.line(f"JUnit XML: {junit_file}")
    return 1 if breached else 0


def _kept(store: Store, kind: Kind, current: Run) -> str:
    """What an unfinished run kept, and how to continue it."""
    kept = len(store.done_keys(current.id))
    resume = f"./arena {kind.command} --resume {current.name}"
    return f"{kept} measurement(s) of run {current.name} are stored; continue with {resume}"


def _resumed(store: Store, kind: Kind, resume: str | None) -> Run | None:
    """The run named by --resume (or the last unfinished one of this kind); None without --resume."""
    if not resume:
        return None
    found = store.last_unfinished(kind.name) if resume == "last" else store.run_by_name(resume)
    if found is None:
        raise UsageError(f"no {kind.name} run to resume ({resume}); start one without --resume")
    if found.kind != kind.name:
        raise UsageError(f"run {found.name} is a {found.kind} run; resume it with its own command")
    if found.finished is not None:
        raise UsageError(f"run {found.name} is already complete; see ./arena report {found.name}")
    return found


def _start(store: Store, kind: Kind, plan: Plan) -> Run:
    commit, dirty = provenance.git_state()
    name = time.strftime("%Y%m%d-%H%M%S")
    return store.start_run(
        name, plan.suite, {"kind": kind.name, **plan.document()}, provenance.host_facts(), commit, dirty
    )


def _measure(batch: Batch, kind: Kind, store: Store, current: Run, console: Console) -> None:
    for line in batch.skipped:
        store.add_note(current.id, line)
    done = store.done_keys(current.id)
    todo = [task for task in batch.tasks if task.key not in done]
    with console.progress(todo, stored=len(batch.tasks) - len(todo)) as loop:
        for task in todo:
            if why := batch.needless(task):
                loop.skip(task, why)
                continue
            loop.start(task)
            try:
                measurement = batch.measure(task, loop.phase)
            except Cut as cut:
                store.add(current.id, cut.measurement)
                raise
            store.add(current.id, measurement)
            loop.finish(task, kind.outcome(measurement))


def build_report(kind: Kind, store: Store, current: Run) -> Report:
    """A stored run's report: the kind's tables and charts, then the run's provenance."""
    host = current.host
    title = (
        f"Arena {kind.command} {current.name}{f' ({current.suite} suite)' if current.suite else ''} "
        f"on {host.get('cpu_model')}, "
        f"{host.get('cores')} cores, commit {current.git_commit[:10]}"
        f"{' (modified)' if current.git_dirty else ''}"
    )
    measurements = store.measurements(current.id)
    made = kind.report(current, title, measurements, store.notes(current.id))
    # First, what the run says of the studies' findings its kind tests (`arena findings` reads
    # every kind's newest run at once); what it cannot test is one line before its results and a
    # folded list after them.
    tested = [f for f in findings_catalog.load() if any(t.kind == current.kind for t in f.tests)]
    if tested:
        judged = judge_all(findings_runs.index(store, [current]), tested)
        said, line, silent = findings_section.for_run(judged, [current])
        if said is not None:
            made.sections.insert(0, said)
        elif line:
            made.preamble.append(line)
        if silent is not None:
            made.appendix.insert(0, silent)
    made.appendix += provenance.sections(current, measurements)
    return made


def write_summary(kind: Kind, store: Store, current: Run, console: Console) -> None:
    """Prints a stored run's summary and writes it to results/<run>/summary.md and report.html."""
    made = build_report(kind, store, current)
    folder = RESULTS / current.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.md").write_text(markdown.report(made), encoding="utf-8")
    console.line()
    terminal.report(console, made)
    console.line(f"\nsummary: {folder / 'summary.md'}")
    try:
        (folder / "report.html").write_text(html.report(made), encoding="utf-8")
    except ArenaError as err:  # the charting library could not be had: the summary above still stands
        console.line(f"report.html not written: {err}")
    else:
        console.line(f"report: {folder / 'report.html'} (one file: open it in a browser, no network needed)")


def report(name: str, kinds: dict[str, Kind], console: Console) -> int:
    """`arena report [RUN]`: a stored run's summary again, whatever its kind."""
    store = Store()
    try:
        found = store.named(name)
        if found.kind not in kinds:
            raise UsageError(f"run {found.name} is a {found.kind} run, which this version of arena cannot report")
        write_summary(kinds[found.kind], store, found, console)
        return 0
    finally:
        store.close()
