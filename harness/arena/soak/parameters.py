"""The soak's parameters, read from spec/soak.toml (the method is spec/soak.md)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache

from arena.errors import UsageError
from arena.paths import SPEC

SPEC_FILE = SPEC / "soak.toml"


@dataclass(frozen=True)
class Parameters:
    workload: str  # the workload of spec/capacity.toml held, whose edge sets the rate
    share: float  # of the edge
    minutes: float  # the quick soak's length, warm-up included
    period_s: float  # one run of the engine: a row of the timeline
    warmup_periods: int  # left out of the trends
    pollers: int  # long-polls held beside the arrivals
    poll: dict  # their step
    bin_s: float  # the trends are fitted on medians of bins this long
    memory_bound_mib_h: float
    drift_bound: float  # p99's change over the measured periods, a share
    error_bound: float  # of the measured arrivals and polls that may fail
    trend_periods: int  # a trend flags over at least this many measured periods...
    far_beyond: float  # ...or when its interval lies past this many times its bound

    def periods(self, minutes: float) -> int:
        return max(round(minutes * 60 / self.period_s), 1)


@cache
def load() -> Parameters:
    try:
        found = Parameters(**tomllib.loads(SPEC_FILE.read_text(encoding="utf-8")))
        if not 0 < found.share <= 1:
            raise ValueError(f"share {found.share}: want 0 < share <= 1")
    except (OSError, tomllib.TOMLDecodeError, TypeError, ValueError) as err:
        raise UsageError(f"{SPEC_FILE.name}: {err}") from err
    return found
