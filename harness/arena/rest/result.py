"""What one REST measurement holds (its payload), and the summary numbers taken from the engine's
result document."""

from __future__ import annotations

from dataclasses import dataclass

from arena.measured.flags import Flag
from arena.measured.measurement import Measurement, payload
from arena.rest.ceiling import own_work

HISTOGRAM_RESOLUTION = 0.001  # the share within which the engine's histograms tell two latencies apart


@payload
@dataclass(frozen=True)
class RestResult:
    metrics: dict  # the summary numbers below (metrics_of): rps, ok_requests, p50_ms, ...
    histograms: dict  # step name -> serialized HdrHistogram; "*" for every request
    series: list  # per second: completed, ok, errors, p50_us, p99_us
    server_cpu_s: float  # the server's whole process tree, during the measured run
    server_peak_rss_kb: int
    engine_cpu_s: float
    # Since warm-ups and ceilings (stores written before have none of these):
    ready_s: float | None = None  # cold start: process start to the first correct answer
    warmup: dict | None = None  # rest.warmup.Warmup as stored: slices, steady_at, seconds, classification
    ceiling: dict | None = None  # rest.ceiling.Ceiling as stored: rps and why
    # Since shared starts (frame/starts.py); before, every point had a start of its own:
    points_before: int = 0  # points its server start had measured before this one
    process_age_s: float | None = None  # the server process's age when this point's warm-up began
    # Since /record: the database's whole process tree over the measured window (scenarios that use
    # it, on a database the harness started; None otherwise), its memory as proportional set size
    # (the shared buffers every backend maps, counted once):
    db_cpu_s: float | None = None
    db_peak_pss_kb: int | None = None
    # Since Locust: an engine of several processes reports each one's CPU and wall seconds (its
    # workers, where one saturated worker flags the point engine-bound); None for loadgen.
    engine_workers: list | None = None

    def exported(self) -> dict:
        """Its numbers, flat, for `arena export` (spec/export.md)."""
        flat = {name: value for name, value in self.metrics.items() if not isinstance(value, dict)}
        if "mean_ms" in flat:  # the honours study reports its long operations' means in seconds
            flat["mean_s"] = flat["mean_ms"] / 1000
        flat |= {f"errors.{kind}": count for kind, count in self.metrics.get("error_kinds", {}).items()}
        flat |= {
            "server_cpu_s": self.server_cpu_s,
            "server_peak_rss_kb": self.server_peak_rss_kb,
            "engine_cpu_s": self.engine_cpu_s,
            "ready_s": self.ready_s,
            "db_cpu_s": self.db_cpu_s,
            "db_peak_pss_kb": self.db_peak_pss_kb,
            "steady_s": (self.warmup or {}).get("steady_s"),
            "warmup": (self.warmup or {}).get("classification"),
            "ceiling_rps": (self.ceiling or {}).get("rps"),
            "ceiling_why": (self.ceiling or {}).get("why"),
            "ceiling_own": own_work(self.ceiling) if self.ceiling else None,
        }
        # A count tells values apart only to one of it: ten requests is ten give or take one.
        flat |= {f"{name}_resolution": 1 / count for name, count in self._counts().items() if count}
        # A latency percentile is the engine's histogram's, to its 3 significant digits (loadgen/README.md).
        flat |= {name + "_resolution": HISTOGRAM_RESOLUTION for name in self._percentiles()}
        return flat

    def _percentiles(self) -> list[str]:
        return [name for name in self.metrics if name.startswith("p") and name.endswith("_ms")] + ["max_ms"]

    def _counts(self) -> dict[str, int]:
        """The count each counted number rests on: requests for their rate, answers for theirs."""
        requests, ok = self.metrics.get("requests", 0), self.metrics.get("ok_requests", 0)
        return {"requests": requests, "rps": requests, "ok_requests": ok, "ok_rps": ok}


def metrics_of(result: dict) -> dict:
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
    if result.get("first_last_us"):
        metrics["first_s"] = result["first_last_us"][0] / 1e6
        metrics["last_s"] = result["first_last_us"][1] / 1e6
    return metrics


# The numbers `arena compare`, `--assert` and the export's bounds look at first, and whether more
# is better: the kind's main metrics (arena/kind.py).
MAIN_METRICS = {"rps": True, "p50_ms": False, "p99_ms": False}


def counted(m: Measurement) -> bool:
    """A repetition that counts in the medians and charts: measured after a warm-up that became
    steady, on a server that did not die during it (what a crashed one measured stays stored)."""
    return m.measured and not {Flag.UNSTEADY, Flag.CRASHED} & set(m.flags)
