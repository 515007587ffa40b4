"""What one soak measurement holds (its payload): the rate it held and where that came from, every
period, and the points its trends are fitted on; the trends themselves are computed from those
whenever they are read, never stored."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass

from arena.measured.measurement import payload
from arena.soak import trend
from arena.soak.parameters import Parameters
from arena.soak.periods import Held, Period
from arena.soak.trend import Trend


@payload
@dataclass(frozen=True)
class Soak:
    rate: float  # arrivals a second held
    edge: float | None  # the capacity edge it is a share of; None when --rate gave the rate
    edge_run: str | None  # the capacity run the edge came from
    share: float | None
    steps: int  # requests an arrival sends
    pollers: int
    period_s: float
    periods: list[dict]  # periods.Period's fields, in order
    memory: list[list[float]]  # [s from the start, MiB], every sample of the server's resident memory
    p99s: list[list[float]]  # [s, ms]: the arrivals' p99 each second of the periods after the warm-up
    bin_s: float
    ready_s: float  # the server's cold start
    cut_short: bool = False  # Ctrl-C ended it before its last period
    edge_ended: str | None = None  # how the edge's capacity search ended: short of found, the edge is a lower bound

    @classmethod
    def of(
        cls,
        held: Held,
        rate: float,
        given: dict,
        share: float | None,
        steps: int,
        parameters: Parameters,
        ready_s: float,
        cut_short: bool,
    ) -> Soak:
        """What `held` holds, at `rate`; `given` is the stored edge the rate is a share of (empty
        when the rate was given)."""
        return cls(
            rate=rate,
            edge=given.get("edge"),
            edge_run=given.get("run"),
            edge_ended=given.get("ended"),
            share=share,
            steps=steps,
            pollers=parameters.pollers,
            period_s=parameters.period_s,
            periods=[asdict(p) for p in held.periods],
            memory=[list(point) for point in held.memory],
            p99s=[list(point) for point in held.p99s],
            bin_s=parameters.bin_s,
            ready_s=ready_s,
            cut_short=cut_short,
        )

    def period_list(self) -> list[Period]:
        return [Period(**period) for period in self.periods]

    def measured(self) -> list[Period]:
        """The periods after the warm-up."""
        return [p for p in self.period_list() if not p.warmup]

    def memory_trend(self) -> Trend | None:
        """MiB an hour after the warm-up."""
        measured = self.measured()
        if not measured:
            return None
        return trend.memory([(t, mib) for t, mib in self.memory if t >= measured[0].t_s], self.bin_s)

    def drift(self) -> Trend | None:
        """p99's change over the periods after the warm-up, as a share."""
        return trend.drift([(t, ms) for t, ms in self.p99s], self.bin_s)

    def error_ratio(self) -> float | None:
        """Of the arrivals' requests after the warm-up, the share that failed or was never sent (its
        arrival dropped: a server fallen behind holds the most in flight)."""
        measured = self.measured()
        ok = sum(p.ok for p in measured)
        failed = sum(p.errors + p.dropped * self.steps for p in measured)
        return failed / (ok + failed) if ok + failed else None

    def poll_error_ratio(self) -> float | None:
        """Of the long-polls after the warm-up, the share that failed."""
        measured = self.measured()
        polls = sum(p.polls for p in measured)
        return sum(p.poll_errors for p in measured) / polls if polls else None

    def exported(self) -> dict:
        """Its numbers, flat, for `arena export` (spec/export.md)."""
        measured = self.measured()
        answered = [p for p in measured if p.ok]  # a period without answers has no latency
        polled = [p for p in measured if p.polls > p.poll_errors]
        memory, drift = self.memory_trend(), self.drift()
        return {
            "rate": self.rate,
            "share": self.share,
            "edge": self.edge,
            "minutes": sum(p.seconds for p in self.period_list()) / 60,
            "measured_minutes": sum(p.seconds for p in measured) / 60,
            "ok_rps": statistics.fmean(p.ok_rps for p in measured) if measured else None,
            "p50_ms": statistics.median(p.p50_ms for p in answered) if answered else None,
            "p99_ms": statistics.median(p.p99_ms for p in answered) if answered else None,
            "poll_p99_ms": statistics.median(p.poll_p99_ms for p in polled) if polled else None,
            "error_ratio": self.error_ratio(),
            "poll_error_ratio": self.poll_error_ratio(),
            "memory_first_mib": measured[0].peak_rss_mib if measured else None,
            "memory_last_mib": measured[-1].peak_rss_mib if measured else None,
            "memory_slope_mib_h": memory.value if memory else None,
            "memory_slope_low": memory.low if memory else None,
            "memory_slope_high": memory.high if memory else None,
            "p99_drift": drift.value if drift else None,
            "p99_drift_low": drift.low if drift else None,
            "p99_drift_high": drift.high if drift else None,
        }
