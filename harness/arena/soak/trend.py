"""The trends a soak reports (spec/soak.md, "Trends"): how fast memory grows, in MiB an hour, and
how far p99 drifted over the measured span, as a share, each with its 95% interval. Memory's is a
rate, since a leak goes on at its pace; p99's is what the soak saw, never extrapolated: a drift of
seconds grown by a factor to an hour says nothing.

Both are Theil-Sen slopes (the median of the slopes between every pair of points; scipy's
`theilslopes`, whose interval is Sen's): a collector's pause or a scheduler's hiccup moves a few
points far, which moves a least-squares line and barely moves a median. The points are medians of
bins (`bin_s`), which keeps hours of samples to a few hundred points. Their interval treats the bins
as independent; successive bins of one process are not quite, so it is somewhat narrower than the
truth, which is why a trend is flagged only when its whole interval lies past the bound.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from scipy.stats import theilslopes

MIN_POINTS = 4  # fewer bins than this give no trend
HOUR_S = 3600.0


@dataclass(frozen=True)
class Trend:
    value: float  # MiB an hour for memory; for p99, its change over the span (0.1: 10% higher at the end)
    low: float  # its 95% interval
    high: float
    points: int  # the bins it rests on

    def past(self, bound: float) -> bool:
        """Whether the whole interval lies above `bound`: a growth the noise cannot explain."""
        return self.low > bound


def binned(points: Iterable[tuple[float, float]], bin_s: float) -> list[tuple[float, float]]:
    """(time, value) points as the median value of each bin of `bin_s`, at the bin's middle."""
    bins: dict[int, list[float]] = {}
    for t, value in points:
        bins.setdefault(math.floor(t / bin_s), []).append(value)
    return [((index + 0.5) * bin_s, statistics.median(values)) for index, values in sorted(bins.items())]


def slope(points: list[tuple[float, float]], over_s: float = HOUR_S) -> Trend | None:
    """The Theil-Sen slope of (seconds, value) points times `over_s`, with its 95% interval."""
    if len(points) < MIN_POINTS:
        return None
    times, values = zip(*points, strict=True)
    found = theilslopes(values, times, alpha=0.95)
    scaled = [float(value) * over_s for value in (found.slope, found.low_slope, found.high_slope)]
    return Trend(*scaled, len(points))


def memory(samples: Iterable[tuple[float, float]], bin_s: float) -> Trend | None:
    """MiB an hour, from (seconds, MiB) samples of the server's resident memory."""
    return slope(binned(samples, bin_s))


def drift(p99s: Iterable[tuple[float, float]], bin_s: float) -> Trend | None:
    """p99's change from the first point to the last as a share (0.25: a quarter higher at the end),
    from (seconds, ms) points: fitted on the logarithm, since latency grows and shrinks by factors;
    a second without answers (p99 0) says nothing and is left out."""
    answered = [(t, math.log(ms)) for t, ms in p99s if ms > 0]
    span = answered[-1][0] - answered[0][0] if answered else 0.0
    found = slope(binned(answered, bin_s), over_s=span)
    if found is None:
        return None
    return Trend(math.expm1(found.value), math.expm1(found.low), math.expm1(found.high), found.points)
