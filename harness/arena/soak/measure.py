"""One soak: a fresh start of an implementation held at its rate for the soak's length, period after
period, the database on the engine's cores; and a soak in one line, for the progress display."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.capacity.probe import Runner
from arena.capacity.saturation import saturate
from arena.capacity.workloads import SearchParameters, Workload
from arena.engines.interface import LoadEngine
from arena.frame.attempt import FAILURES, Attempt
from arena.host.database import Database
from arena.host.process import ServerError, free_port, running
from arena.kind import Cut, Task
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.soak import tables
from arena.soak.parameters import Parameters, load
from arena.soak.periods import Held, hold
from arena.soak.plan import SoakPlan, rate_key
from arena.soak.result import Soak


def measure(
    task: Task,
    plan: SoakPlan,
    engine: LoadEngine,
    parameters: Parameters,
    search: SearchParameters,
    workload: Workload,
    data: Path | None,
    db: Database,
    phase: Callable[[str], None],
) -> Measurement:
    """One soak on a fresh start of the task's implementation, the database on the engine's cores."""
    attempt = Attempt(task)
    server_cores, engine_cores = attempt.server_cores, attempt.engine_cores
    given = plan.rates.get(rate_key(task.manifest.name, task.cpus), {})
    rate = plan.rate or given["rate"]
    attempt.parameters |= {"settings": workload.settings, "workload": workload.id}
    held = Held()
    settings = {**workload.settings, "ARENA_DB_URL": db.url}
    periods = parameters.periods(plan.minutes)

    def measured(cut_short: bool, ready_s: float) -> Measurement:
        soak = Soak.of(held, rate, given, plan.share, len(workload.steps), parameters, ready_s, cut_short)
        attempt.versions["engine"] = held.version
        attempt.flags += ([Flag.CUT_SHORT] if cut_short else []) + tables.trend_flags(soak, parameters)
        return attempt.measured(soak)

    ready_s = 0.0
    try:
        attempt.on_database(db)
        with running(task.manifest, task.cpus, free_port(), settings, server_cores) as server:
            ready_s = server.ready_s
            # Warmed as the capacity search warmed the start whose edge sets the rate (its JIT's
            # warm_s included): the rate is a share of a warm start's capacity.
            phase(f"saturating with {search.saturation_clients} clients")
            runner = Runner(engine, server, engine_cores, workload, data)
            saturate(runner, search, task.manifest.warm_s)
            hold(runner, rate, search, parameters, periods, phase, held)
    except KeyboardInterrupt:
        if held.periods:
            raise Cut(measured(True, ready_s)) from None
        raise
    except FAILURES as err:
        return attempt.failed(err, crashed=isinstance(err, ServerError))
    return measured(False, ready_s)


def outcome(m: Measurement) -> str:
    if not m.measured:
        return f"FAILED: {m.reason.splitlines()[0] if m.reason else 'no reason given'}"
    soak: Soak = m.payload
    values = soak.exported()
    p99 = f"p99 {values['p99_ms']:.1f} ms" if values["p99_ms"] is not None else "no answer measured"
    if values["error_ratio"]:
        p99 += f", errors {values['error_ratio']:.2%}"
    if values["poll_error_ratio"]:
        p99 += f", poll errors {values['poll_error_ratio']:.2%}"
    parameters = load()
    memory = tables.trend_shown(soak, soak.memory_trend(), parameters.memory_bound_mib_h, parameters)
    drift = tables.trend_shown(soak, soak.drift(), parameters.drift_bound, parameters, True)
    return f"{p99}, memory {memory} MiB/h, drift {drift}"
