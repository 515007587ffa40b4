"""One capacity measurement: a search for the edge (or a sweep of clients) on the start of its
repetition, after the workloads before it on that start; and a measurement in one line, for the
progress display."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from arena.capacity import edge, sweep
from arena.capacity.cells import Cells
from arena.capacity.data import set_up
from arena.capacity.probe import Runner
from arena.capacity.result import CapacitySearch, ClientSweep
from arena.capacity.search import ENGINE_BOUND
from arena.capacity.workloads import WorkloadPoint, search_parameters
from arena.engines.interface import LoadEngine
from arena.frame.attempt import FAILURES, Attempt
from arena.frame.starts import Starts
from arena.host.database import Database
from arena.host.process import ServerError
from arena.kind import Task
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement


def measure(
    task: Task,
    engine: LoadEngine,
    data: dict[str, Path | None],
    db: Database | None,
    starts: Starts,
    cells: Cells,
    phase: Callable[[str], None],
) -> Measurement:
    """One search (or sweep) on the start of the task's repetition, its database (where its
    workload has one) sampled beside the server as in `arena run`; the cells learn what it found."""
    point: WorkloadPoint = task.point
    workload = point.workload
    attempt = Attempt(task)
    attempt.parameters["settings"] = workload.settings
    try:
        sampled_db = attempt.on_database(db) if workload.database and db is not None else None
        server = attempt.start(starts, phase)
        runner = Runner(engine, server, attempt.engine_cores, workload, data[workload.id], sampled_db)
        setup_s = None
        if workload.setup:
            phase("setup")
            setup_s = set_up(runner)
        if point.clients:
            levels = sweep.sweep(runner, search_parameters(), phase)
            result = ClientSweep(
                [dataclasses.asdict(level) for level in levels], len(workload.steps), server.ready_s, setup_s
            )
            attempt.flags += [Flag.ENGINE_BOUND] if any(level.engine_bound for level in levels) else []
        else:
            hint, cost_rate = cells.hint(task), cells.cost_rate(task)
            result = edge.search(task, runner, hint, attempt.parameters, setup_s, phase, cost_rate)
            attempt.flags += [Flag.ENGINE_BOUND] if result.ended == ENGINE_BOUND else []
            attempt.flags += [Flag.PAUSE_BOUND] if result.pause_bound() else []
            attempt.flags += [Flag.STOLEN] if result.stolen() else []
        if not server.alive():
            raise ServerError(f"{task.manifest.name} died during the {workload.id} search")
    except FAILURES as err:
        starts.close()  # a server in an unknown state measures nothing more
        failed = attempt.failed(err, crashed=isinstance(err, ServerError))
        cells.add(failed)
        return failed
    attempt.versions["engine"] = runner.version
    measurement = attempt.measured(result)
    cells.add(measurement)
    return measurement


def outcome(m: Measurement) -> str:
    """A search or a sweep in one line, for the progress display."""
    if not m.measured:
        return f"FAILED: {m.reason.splitlines()[0] if m.reason else 'no reason given'}"
    if isinstance(m.payload, ClientSweep):
        levels = m.payload.level_list()
        return "  ".join(f"{level.clients}: {level.throughput:,.0f}/s" for level in levels)
    search: CapacitySearch = m.payload
    probe = search.at_edge()
    if search.edge is None:
        edge = "no rate passed"
    elif search.holds:
        edge = f"held {search.edge:,.0f} connections"
    else:
        edge = f"edge {search.edge:,.1f}/s"
    spent = f"  p99 {probe.p99_ms:.1f} ms  cpu {probe.server_cpu_s:.1f} s" if probe else ""
    return f"{edge} ({search.ended}, {len(search.probes)} probes){spent}"
