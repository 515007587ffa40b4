"""When a start has stopped climbing: short runs, one after another, until one answers no more than
the best before it. A JIT still compiling, or pools still growing, answer more with each run; the
first run that does not is where a measurement may begin (capacity's saturation, the abuse checks'
warm-up)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

Run = TypeVar("Run")


def until_plateau(
    run: Callable[[], Run], answered: Callable[[Run], float], each_s: float, least_s: float, most_s: float, rise: float
) -> list[Run]:
    """Runs of `each_s` seconds until one answers at most `rise` more than the best run before it,
    after at least `least_s` seconds (a JIT's tiers plateau between them) and for at most `most_s`
    or `least_s`, whichever is longer; every run, in order."""
    runs: list[Run] = []
    while len(runs) * each_s < max(most_s, least_s):
        got = run()
        rising = not runs or answered(got) > (1 + rise) * max(answered(r) for r in runs)
        runs.append(got)
        if len(runs) * each_s >= least_s and not rising:
            break
    return runs
