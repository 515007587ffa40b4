"""What one REST measurement holds (its payload), and the summary numbers taken from the engine's
result document."""

from __future__ import annotations

from dataclasses import dataclass

from arena.measurement import payload
from arena.rest.scenarios import Point


@payload
@dataclass(frozen=True)
class HttpResult:
    metrics: dict  # the summary numbers below (metrics_of): rps, ok_requests, p50_ms, ...
    histograms: dict  # step name -> serialized HdrHistogram; "*" for every request
    series: list  # per second: completed, ok, errors, p50_us, p99_us
    server_cpu_s: float  # the server's whole process tree, during the measured run
    server_peak_rss_kb: int
    engine_cpu_s: float


def ideal_closed_requests(model: dict, wait_s: float) -> int:
    """Iterations a perfect server completes in a closed run whose every iteration waits `wait_s`.

    User i starts at i / ramp, then completes at start + wait + k x (wait + think) while that is
    within the duration: exactly what an ideal server allows, edges of the window included.
    """
    think_s = sum(model["think_ms"]) / 2 / 1000
    ramp = model.get("ramp_per_s") or 0
    total = 0
    for user in range(model["users"]):
        first = (user / ramp if ramp else 0.0) + wait_s
        if first <= model["duration_s"]:
            total += int((model["duration_s"] - first) // (wait_s + think_s)) + 1
    return total


def metrics_of(result: dict, point: Point) -> dict:
    """The summary numbers the reports use, from the engine's result document."""
    everything = result["all"]["latency_us"]
    requests = result["requests"]
    errors = sum(requests["errors"].values())
    metrics = {
        "elapsed_s": result["elapsed_s"],
        "requests": requests["total"],
        "ok_requests": requests["ok"],
        "errors": errors,
        "error_kinds": requests["errors"],
        "error_ratio": errors / requests["total"] if requests["total"] else 1.0,
        "rps": result["throughput_rps"],
        "ok_rps": result["ok_rps"],
        "dropped": result["iterations"]["dropped"],
        "mean_ms": everything["mean"] / 1000,
        **{f"{name}_ms": everything[name] / 1000 for name in everything if name.startswith("p")},
        "max_ms": everything["max"] / 1000,
    }
    if result.get("achieved_arrival_rate") is not None:
        metrics["arrival_rate"] = result["achieved_arrival_rate"]
    wait_s = point.scenario.profiles[point.suite].get("ideal_wait_s")
    if wait_s is not None:
        ideal = ideal_closed_requests(result["scenario"]["model"], wait_s) * len(point.scenario.steps)
        metrics["ideal_requests"] = ideal
        metrics["ideal_ratio"] = metrics["ok_requests"] / ideal if ideal else 0.0
    if result.get("first_last_us"):
        metrics["first_s"] = result["first_last_us"][0] / 1e6
        metrics["last_s"] = result["first_last_us"][1] / 1e6
    return metrics
