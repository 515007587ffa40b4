"""Overload and recovery: an open model at twice the rate the server sustains for `OVERLOAD_S`,
then its normal rate again. The server must not crash, and the time its latency takes to come back
is reported, never judged against what a runtime is expected to do. The method, its bounds and why
each is so: docs/reliability.md, "Overload and recovery"."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from arena.checks.client import Client
from arena.checks.expect import Context
from arena.checks.result import Problem, Severity
from arena.engines.interface import ENGINE_BUSY_MAX, EngineError, LoadEngine
from arena.engines.warmup_rule import Rule
from arena.host.process import Server

SORT_N = 500
USERS = 32
SUSTAIN_S = 5
BASELINE_S = 10
OVERLOAD_S = 10
RECOVERY_S = 30
QUEUE_S = 1.0  # the client pool: at most this many seconds of the server's work in flight
HOLD_S = 3  # good seconds in a row that make a recovery
FACTOR = 2.0
FLOOR_MS = 10.0
TIMEOUT_MS = 10_000  # far above the queueing QUEUE_S allows: a timeout means the server stalled
WARMUP = Rule(slice_s=1.0, max_s=20.0, window=3)
SLACK_S = 60  # beyond the planned load: warm-up, the last answers, the engine's start and exit


@dataclass(frozen=True)
class Second:
    """One second of the open model's window, as the engine's `series` reports it."""

    t: int  # seconds since the schedule's start
    completed: int
    errors: int
    p99_ms: float

    def good(self, bound_ms: float) -> bool:
        return self.completed > 0 and self.errors == 0 and self.p99_ms <= bound_ms


def seconds_of(series: list[dict]) -> dict[int, Second]:
    return {s["t"]: Second(s["t"], s["completed"], s["errors"], s["p99_us"] / 1000) for s in series}


def bound_ms(baseline_ms: float) -> float:
    """The p99 a second may have and still count as recovered."""
    return max(FACTOR * baseline_ms, baseline_ms + FLOOR_MS)


def recovery_s(seconds: dict[int, Second], overload_end: int, window_end: int, bound: float) -> int | None:
    """Seconds from `overload_end` to the end of the first second that starts `HOLD_S` good ones in
    a row, all before `window_end`; None when none does. A missing second had no answers."""
    empty = Second(0, 0, 0, 0.0)
    for start in range(overload_end, window_end - HOLD_S + 1):
        if all(seconds.get(t, empty).good(bound) for t in range(start, start + HOLD_S)):
            return start - overload_end + 1
    return None


@dataclass(frozen=True)
class Overload:
    """What one overload run measured."""

    sustained_rps: float
    sustained_p99_ms: float  # the closed model's, its users always waiting: the latency of a full load
    baseline_p99_ms: float
    worst_p99_ms: float  # the worst second's, from the overload's start to the recovery's start
    overload_ok_rps: float  # answered while overloaded: below sustained_rps, the overload cost throughput
    recovered_s: int | None  # None: not within RECOVERY_S
    overload_errors: int  # failed requests from the overload's start to the window's end
    error_kinds: dict[str, int]  # the whole staged window's errors by kind (loadgen/README.md)
    dropped: int  # arrivals over the client pool's bound, never sent
    warm: bool  # both warm-ups reached a steady state
    engine_busy: float  # the engine's share of its cores, the busier of its two runs

    def summary(self) -> str:
        recovered = (
            f"recovered in {self.recovered_s} s"
            if self.recovered_s is not None
            else (f"did not recover within {RECOVERY_S} s")
        )
        kinds = ", ".join(f"{kind} {count:,}" for kind, count in self.error_kinds.items())
        return (
            f"sustained {self.sustained_rps:,.0f} req/s; p99 baseline {self.baseline_p99_ms:,.1f} ms, "
            f"under overload {self.overload_ok_rps:,.0f} req/s, worst p99 {self.worst_p99_ms:,.0f} ms; {recovered}; "
            f"{self.overload_errors:,} errors"
            + (f" ({kinds})" if kinds else "")
            + f", {self.dropped:,} arrivals dropped; engine {self.engine_busy:.0%} busy"
        )


def _document(port: int, model: dict, planned_s: float) -> dict:
    step = {"name": "sort", "path": f"/long-operation?n={SORT_N}", "expect_json": {"message": "done"}}
    return {
        "target": f"http://127.0.0.1:{port}",
        "model": model,
        "steps": [step],
        "timeout_ms": TIMEOUT_MS,
        "max_duration_s": WARMUP.max_s + planned_s + SLACK_S,
        "warmup": WARMUP.document(),
    }


def _run(engine: LoadEngine, document: dict, cores: list[int]) -> tuple[dict, float]:
    """The engine's result document and how busy it was."""
    run = engine.run(document, cores, document["max_duration_s"] + SLACK_S)
    return run.result, run.busy(len(cores))


def stages(sustained_rps: float) -> list[dict]:
    normal, over = sustained_rps / 2, 2 * sustained_rps
    return [
        {"rate": normal, "duration_s": BASELINE_S},
        {"rate": over, "duration_s": OVERLOAD_S},
        {"rate": normal, "duration_s": RECOVERY_S},
    ]


def measure(engine: LoadEngine, port: int, cores: list[int]) -> Overload | None:
    """The sustained rate, then the staged open model; None when the server sustained nothing."""
    closed = {"kind": "closed", "users": USERS, "duration_s": SUSTAIN_S}
    sustained, closed_busy = _run(engine, _document(port, closed, SUSTAIN_S), cores)
    rate = sustained["ok_rps"]
    if rate <= 0:
        return None
    model = {"kind": "open", "stages": stages(rate), "max_in_flight": math.ceil(rate * QUEUE_S)}
    staged, open_busy = _run(engine, _document(port, model, BASELINE_S + OVERLOAD_S + RECOVERY_S), cores)
    return assess(sustained, staged, max(closed_busy, open_busy))


def assess(sustained: dict, staged: dict, engine_busy: float) -> Overload:
    """What the closed model's and the staged open model's result documents say."""
    seconds = seconds_of(staged["series"])
    overload_start, overload_end = BASELINE_S, BASELINE_S + OVERLOAD_S
    answered = [seconds[t].p99_ms for t in range(overload_start) if t in seconds and seconds[t].completed]
    baseline = statistics.median(answered) if answered else 0.0
    recovered = recovery_s(seconds, overload_end, overload_end + RECOVERY_S, bound_ms(baseline))
    worst_until = overload_end + (recovered - 1 if recovered is not None else RECOVERY_S)
    overloaded = [s for t, s in seconds.items() if overload_start <= t < overload_end]
    return Overload(
        sustained_rps=sustained["ok_rps"],
        sustained_p99_ms=sustained["all"]["latency_us"]["p99"] / 1000,
        baseline_p99_ms=baseline,
        worst_p99_ms=max((s.p99_ms for t, s in seconds.items() if overload_start <= t < worst_until), default=0.0),
        overload_ok_rps=sum(s.completed - s.errors for s in overloaded) / OVERLOAD_S,
        recovered_s=recovered,
        overload_errors=sum(s.errors for t, s in seconds.items() if t >= overload_start),
        error_kinds={kind: count for kind, count in staged["requests"]["errors"].items() if count},
        dropped=staged["iterations"]["dropped"],
        warm=all(r["warmup"]["steady_at"] is not None for r in (sustained, staged)),
        engine_busy=engine_busy,
    )


def check(engine: LoadEngine, server: Server, engine_cores: list[int], shared: bool, ctx: Context) -> str:
    """The overload run on `server` as a conformance check: a failure only for a crash (the caller
    checks the process), no answer afterwards, no sustained load or no recovery; the numbers are its
    note, whatever the outcome."""
    try:
        found = measure(engine, server.port, engine_cores)
    except EngineError as err:
        ctx.skip(f"the engine measured nothing: {err}")  # not the server's doing
        return ""
    if found is None:
        ctx.fail(f"{USERS} users, GET /long-operation?n={SORT_N}", "some answers a second", "none")
        return ""
    if server.alive():
        ctx.expect(Client(server.port, timeout=5).call("GET", "/"), 200, b"OK")
    if found.recovered_s is None:
        ctx.fail(
            f"overload at 2x {found.sustained_rps:,.0f} req/s for {OVERLOAD_S} s, then half that",
            f"{HOLD_S} s in a row with a p99 within {bound_ms(found.baseline_p99_ms):.1f} ms and no errors",
            f"not within {RECOVERY_S} s ({found.summary()})",
        )
    if not found.warm:
        said = "a warm-up was not steady within its bound: the baseline may be a cold server's"
        ctx.problems.append(Problem(Severity.WARN, said))
    if found.baseline_p99_ms > bound_ms(found.sustained_p99_ms):
        said = (
            f"the baseline p99 ({found.baseline_p99_ms:,.1f} ms at half the sustained rate) would not be a good "
            f"second of the full load (p99 {found.sustained_p99_ms:,.1f} ms): the normal rate was not normal for "
            "this server, and its recovery is measured against a slow baseline"
        )
        ctx.problems.append(Problem(Severity.WARN, said))
    if shared:
        said = "no core was left for the engine: it shared the server's, so the server's rate is lower"
        ctx.problems.append(Problem(Severity.WARN, said))
    if found.engine_busy > ENGINE_BUSY_MAX:
        said = f"the engine was {found.engine_busy:.0%} busy: it, not the server, may have limited the load"
        ctx.problems.append(Problem(Severity.WARN, said))
    return found.summary()
