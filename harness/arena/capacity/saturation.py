"""The most a server start answers with work always waiting (spec/capacity.md, "Where a search
begins"): its workload from many clients without think time, in short runs until one answers no
more than the best before it. It warms the start at full load (a JIT compiles, pools grow), and
bounds its edge from above: a search begins just below it."""

from __future__ import annotations

from arena.capacity import sweep
from arena.capacity.probe import Runner
from arena.capacity.workloads import SearchParameters
from arena.measured.plateau import until_plateau


def saturate(runner: Runner, search: SearchParameters, at_least: float = 0.0) -> tuple[sweep.Level, float]:
    """Runs of `saturation_s` each from `saturation_clients` clients, until one answers at most
    `saturation_rise` more than the best run before it (a server still compiling answers more each
    run), after at least `at_least` seconds (a JIT's warm_s: its tiers plateau between them) and
    for at most `warm_max_s` or `at_least`. Returns the best run and the seconds they all took."""
    runs = until_plateau(
        lambda: sweep.level(runner, search.saturation_clients, None, search.saturation_s),
        lambda run: run.throughput,
        search.saturation_s,
        at_least,
        search.warm_max_s,
        search.saturation_rise,
    )
    return max(runs, key=lambda r: r.throughput), len(runs) * search.saturation_s
