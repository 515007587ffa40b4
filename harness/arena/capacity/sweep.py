"""Throughput against concurrency on one server start (spec/capacity.md, "Scaling"): the workload
as a closed model of N clients without think time, N = 1, 2, 4, … 64, each level warmed until
steady and measured, for the Universal Scalability Law's fit over the starts (measured/usl.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.capacity.probe import DRAIN_S, Runner
from arena.capacity.workloads import SearchParameters
from arena.engines.interface import ENGINE_BUSY_MAX
from arena.engines.warmup_rule import Rule

CLIENTS = (1, 2, 4, 8, 16, 32, 64)
WINDOW_S = 2.0


@dataclass(frozen=True)
class Level:
    clients: int
    throughput: float  # arrivals (iterations) answered with success a second
    ok_rps: float  # requests a second
    p50_ms: float
    p99_ms: float
    error_ratio: float
    steady: bool
    engine_bound: bool
    engine_busy: float
    server_cpu_s: float
    server_peak_rss_kb: int
    warmup_s: float | None = None  # None in records from before it was kept
    # The share of the server's and engine's cores' time the hypervisor took over its window
    # (host/steal.py): a level the host stalled answered less; None in records from before.
    stolen: float | None = None


def sweep(runner: Runner, search: SearchParameters, phase: Callable[[str], None]) -> list[Level]:
    """Every level of CLIENTS in turn on the runner's start."""
    levels = []
    for clients in CLIENTS:
        phase(f"{clients} client(s)")
        levels.append(level(runner, clients, search.warmup, WINDOW_S))
    return levels


def level(runner: Runner, clients: int, rule: Rule | None, window_s: float) -> Level:
    """The workload as `clients` clients without think time, warmed by `rule` (when there is one)
    and measured for `window_s`."""
    model = {"kind": "closed", "users": clients, "think_ms": [0, 0], "duration_s": window_s, "ramp_per_s": 0}
    warming_s = rule.max_s if rule else 0.0
    document = runner.document(model, runner.workload.steps, warming_s + window_s + DRAIN_S, rule)
    ran = runner.run(document, f"the level of {clients} client(s)")
    result, requests = ran.result, ran.result["requests"]
    errors = sum(requests["errors"].values())
    return Level(
        clients=clients,
        throughput=result["ok_rps"] / len(runner.workload.steps),
        ok_rps=result["ok_rps"],
        p50_ms=result["all"]["latency_us"]["p50"] / 1000,
        p99_ms=result["all"]["latency_us"]["p99"] / 1000,
        error_ratio=errors / requests["total"] if requests["total"] else 1.0,
        steady=rule is None or result["warmup"]["steady_at"] is not None,
        engine_bound=ran.busy > ENGINE_BUSY_MAX,
        engine_busy=round(ran.busy, 3),
        server_cpu_s=ran.server_cpu_s,
        server_peak_rss_kb=ran.server_peak_rss_kb,
        warmup_s=result["warmup"]["seconds"] if rule else 0.0,
        stolen=ran.stolen,
    )
