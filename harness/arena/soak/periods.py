"""One soak on one server start (spec/soak.md, "A soak"): period after period, the workload's
arrivals at a fixed rate (open model) and, beside them, long-polls held without pause (closed
model), each period one run of the engine for each; the server's memory and CPU sampled throughout.

A period is a row of the timeline: what the arrivals got (answers, errors, p50 and p99), what the
polls got, what the server spent and held. The engine is started afresh each period, so that each
row's percentiles are exact (not merged from per-second ones); the arrivals pause for the engine's
start between periods, a few milliseconds in a minute.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.capacity.probe import DRAIN_S, Runner
from arena.capacity.workloads import SearchParameters
from arena.engines.interface import EngineError, EngineRun, LoadEngine
from arena.host.process import Sampler, ServerError
from arena.soak.parameters import Parameters

SAMPLE_S = 1.0  # the server's memory and CPU, sampled this often


@dataclass(frozen=True)
class Period:
    index: int
    t_s: float  # when its window opened, from the soak's start
    seconds: float
    warmup: bool  # left out of the trends
    offered: int  # requests the arrivals' schedule asked for
    ok: int
    errors: int
    dropped: int  # arrivals not sent: as many as capacity's max_in_flight were in flight
    ok_rps: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    polls: int  # long-polls answered or failed
    poll_errors: int
    poll_p99_ms: float
    cpu_s: float  # the server's over the window
    peak_rss_mib: float
    engine_busy: float  # both engine runs' CPU over the engine's cores


@dataclass
class Held:
    """What one soak measured: its periods, and the points its trends are fitted on."""

    periods: list[Period] = field(default_factory=list)
    memory: list[tuple[float, float]] = field(default_factory=list)  # (s from the start, MiB): every sample
    p99s: list[tuple[float, float]] = field(default_factory=list)  # (s, ms): the arrivals' p99, each second
    version: str = ""  # the engine's


def _errors(result: dict) -> int:
    return sum(result["requests"]["errors"].values())


def hold(
    arrivals: Runner,
    rate: float,
    load: SearchParameters,
    parameters: Parameters,
    periods: int,
    phase: Callable[[str], None],
    held: Held | None = None,
) -> Held:
    """Holds the runner's server at `rate` of its workload's arrivals, beside its long-polls, for
    `periods` periods, the load shaped as capacity's probes shape it (`load.open_model`: its
    connections, its bound in flight); `held` collects as it goes, so that a caller cut short
    (Ctrl-C) keeps the periods that ended. A server that died is a ServerError."""
    held = held if held is not None else Held()
    engine, server, engine_cores, workload = arrivals.engine, arrivals.server, arrivals.engine_cores, arrivals.workload
    polls = Runner(engine, server, engine_cores, workload, None)
    period_s = parameters.period_s
    open_model = load.open_model(rate, period_s)
    closed_model = {"kind": "closed", "users": parameters.pollers, "duration_s": period_s}
    documents = [
        arrivals.document(open_model, workload.steps, period_s + DRAIN_S),
        polls.document(closed_model, [parameters.poll], period_s + DRAIN_S),
    ]
    with Sampler(server, interval=SAMPLE_S) as sampler:
        began = sampler.samples[0][0]
        for index in range(periods):
            ran = _both(engine, documents, engine_cores)
            if not server.alive():
                raise ServerError(f"the server died in minute {index * period_s / 60 + 1:.0f} of its soak")
            offered = round(rate * period_s) * len(workload.steps)
            warmup = index < parameters.warmup_periods
            period = _period(index, warmup, began, offered, ran, sampler, len(engine_cores))
            held.periods.append(period)
            new = sampler.samples[len(held.memory) :]  # one point of held.memory a sample taken so far
            held.memory += [(t - began, rss / 1024) for t, _, rss, _ in new]
            if not period.warmup:
                opened = ran[0].result["started_unix_ms"] / 1000
                held.p99s += [(opened - began + s["t"], s["p99_us"] / 1000) for s in ran[0].result["series"]]
            held.version = ran[0].version
            phase(
                f"{'warm-up ' if period.warmup else ''}period {index + 1}/{periods}: p99 {period.p99_ms:.1f} ms, "
                f"{period.peak_rss_mib:,.0f} MiB"
            )
    return held


def _both(engine: LoadEngine, documents: list[dict], cores: list[int]) -> list[EngineRun]:
    """The arrivals' run and the polls' run, at once on the engine's cores."""
    runs: list[EngineRun | BaseException | None] = [None, None]

    def one(i: int) -> None:
        try:
            runs[i] = engine.run(documents[i], cores, documents[i]["max_duration_s"] + 30)
        except BaseException as err:  # handed to the caller's thread below
            runs[i] = err

    # Daemons: a harness stopped by a signal does not wait for them (their engines end with their period).
    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for run in runs:
        if isinstance(run, BaseException):
            raise run
        if run is None:
            raise EngineError("an engine run of the soak ended without a result")
    return runs  # type: ignore[return-value]


def _period(
    index: int, warmup: bool, began: float, offered: int, ran: list[EngineRun], sampler: Sampler, engine_cores: int
) -> Period:
    mix, polls = ran[0].result, ran[1].result
    opened = mix["started_unix_ms"] / 1000
    cpu_s, peak_rss_kb = sampler.window(opened, opened + mix["elapsed_s"])
    latency = mix["all"]["latency_us"]
    return Period(
        index=index,
        t_s=round(opened - began, 3),
        seconds=mix["elapsed_s"],
        warmup=warmup,
        offered=offered,
        ok=mix["requests"]["ok"],
        errors=_errors(mix),
        dropped=mix["iterations"]["dropped"],
        ok_rps=mix["ok_rps"],
        p50_ms=latency["p50"] / 1000,
        p99_ms=latency["p99"] / 1000,
        max_ms=latency["max"] / 1000,
        polls=polls["requests"]["total"],
        poll_errors=_errors(polls),
        poll_p99_ms=polls["all"]["latency_us"]["p99"] / 1000,
        cpu_s=round(cpu_s, 3),
        peak_rss_mib=round(peak_rss_kb / 1024, 1),
        engine_busy=round(sum(run.cpu_s for run in ran) / (max(run.wall_s for run in ran) * engine_cores), 3),
    )
