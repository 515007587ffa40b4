"""The Universal Scalability Law (Gunther) fitted to throughput against concurrency or cores:

    X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))

lambda is the throughput of one (client or core) without interference, sigma the share serialized
(contention), kappa the cost of keeping the others coherent (crosstalk); with kappa > 0 the
throughput peaks at N* = sqrt((1 - sigma) / kappa) and falls beyond it. The fit is a nonlinear least squares of the
measured throughputs (scipy's curve_fit), as Baron Schwartz's *Practical Scalability Analysis with
the Universal Scalability Law* fits it; tests/test_usl.py reproduces the book's example.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MIN_LEVELS = 4  # three coefficients need at least one level more to say anything of the fit


class FitError(ValueError):
    """The measurements cannot give a fit: too few levels, or the solver found none."""


@dataclass(frozen=True)
class Fit:
    lam: float  # lambda: throughput at N = 1 without interference
    sigma: float  # contention
    kappa: float  # crosstalk
    residuals: list[float]  # measured minus fitted, at each level in the order given

    def throughput(self, n: float) -> float:
        return model(n, self.lam, self.sigma, self.kappa)

    @property
    def peak_n(self) -> float | None:
        """N*, where throughput is highest; None when it keeps growing (kappa = 0)."""
        return math.sqrt((1 - self.sigma) / self.kappa) if self.kappa > 0 and self.sigma < 1 else None

    @property
    def peak_throughput(self) -> float | None:
        return self.throughput(self.peak_n) if self.peak_n is not None else None


def model(n, lam: float, sigma: float, kappa: float):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def fit(levels: list[float], throughputs: list[float]) -> Fit:
    """lambda, sigma and kappa from throughputs measured at `levels` (clients or cores), sigma and
    kappa kept in [0, 1]."""
    if len(set(levels)) < MIN_LEVELS or len(levels) != len(throughputs):
        raise FitError(f"a fit needs throughput at {MIN_LEVELS} or more levels; got {len(set(levels))}")
    # Imported here, not with the module: numpy and scipy take tens of MiB that every command would
    # carry, and a micro-benchmark's child inherits its parent's peak memory as its kernel floor.
    import numpy as np
    from scipy.optimize import curve_fit

    n, x = np.asarray(levels, dtype=float), np.asarray(throughputs, dtype=float)
    # lambda starts at the best throughput a level gives per unit of it, sigma and kappa small.
    start = (float(np.max(x / n)), 0.01, 0.0001)
    try:
        (lam, sigma, kappa), _ = curve_fit(model, n, x, p0=start, bounds=([0, 0, 0], [np.inf, 1, 1]), maxfev=10_000)
    except (RuntimeError, ValueError) as err:
        raise FitError(f"no fit: {err}") from err
    fitted = model(n, lam, sigma, kappa)
    return Fit(float(lam), float(sigma), float(kappa), [float(r) for r in x - fitted])
