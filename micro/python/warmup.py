"""The warm-up of spec/micro.md: repeat the bench in-process until its metric is steady or the time is up.

The rule (`steady`) and the loop (`warm_up`) know nothing about processes: an iteration is any callable
that runs the bench once, all its processes gone when it returns, and gives back its Result.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import median
from time import perf_counter

STEADY_LAST = 5  # steady: at least this many iterations, and the last this many ...
STEADY_BAND = 0.10  # ... all within this fraction of their median
THROUGHPUT_WARMUP_S = 0.1  # a throughput warm-up iteration lasts min(D, this)


class CountMismatch(Exception):
    """A warm-up iteration reported counts other than the bench's parameters ask for."""


def steady(series: list[float]) -> bool:
    """At least 5 values, and the last 5 all within ±10% of their median."""
    if len(series) < STEADY_LAST:
        return False
    last = series[-STEADY_LAST:]
    middle = median(last)
    return all(abs(value - middle) <= STEADY_BAND * abs(middle) for value in last)


@dataclass
class Warmup:
    iterations: int = 0
    seconds: float = 0
    steady: bool = False
    series: list[float] = field(default_factory=list)
    first: object = None  # the first iteration's result, for spawn's memory

    def document(self) -> dict:
        return {"iterations": self.iterations, "seconds": self.seconds, "steady": self.steady, "series": self.series}


def warm_up(
    iteration: Callable[[], object],
    value: Callable[[object], float],
    budget_s: float,
    clock: Callable[[], float] = perf_counter,
) -> Warmup:
    """Runs iteration() until the values taken from its results are steady, or until budget_s seconds have
    passed since the first began (the iteration under way is finished). budget_s = 0 runs none."""
    if budget_s <= 0:
        return Warmup()
    done = Warmup()
    start = clock()
    while True:
        result = iteration()
        if done.first is None:
            done.first = result
        done.series.append(value(result))
        done.steady = steady(done.series)
        if done.steady or clock() - start >= budget_s:
            break
    done.iterations = len(done.series)
    done.seconds = clock() - start
    return done


def verify_check(bench: str, params, check: dict) -> None:
    """Raises CountMismatch unless `check` holds the counts a run of `bench` with `params` must report
    (throughput: a positive total that its per_pair list, one count per pair, sums to)."""
    if bench == "throughput":
        per_pair = check["per_pair"]
        if check["messages"] > 0 and len(per_pair) == params.pairs and sum(per_pair) == check["messages"]:
            return
        raise CountMismatch(f"warm-up counts {check}, for {params.pairs} pairs")
    expected = {
        "pingping": {"received": 2 * params.rounds},
        "pingpong": {"round_trips": params.rounds},
        "spawn": {"alive": params.procs},
        "ring": {"laps": params.rounds, "hops": params.procs * params.rounds},
    }[bench]
    if check != expected:
        raise CountMismatch(f"warm-up counts {check}, expected {expected}")
