"""A capacity run's plan: the implementations, workloads, budgets and objective asked for, and the
most starts a cell may take (fewer once its place in the order is decided: capacity/precision.py);
and how long a measurement takes, for the ETA."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from arena import options
from arena.capacity.workloads import WorkloadPoint, all_workloads, chosen, parse_slo, search_parameters
from arena.host import cores
from arena.impls import catalog
from arena.kind import Plan, repetitions


@dataclass(frozen=True)
class CapacityPlan(Plan):
    workload: list[str] = field(default_factory=list)  # none named: every default workload
    slo: dict = field(default_factory=dict)  # an objective for every workload instead of its own
    scaling: bool = False  # a sweep of clients after the searches
    # Where a setup other than its runtime's default is measured; None: wherever it is named.
    setups_on: list[str] | None = None

    def measures(self, manifest: catalog.Manifest, workload: str) -> bool:
        """Whether the plan measures the row on the workload."""
        return manifest.default or self.setups_on is None or workload in self.setups_on


def planned(options: argparse.Namespace) -> CapacityPlan:
    """The plan of the command line's options; unknown names fail here."""
    chosen(options.workload)
    rows = catalog.rows(options.impl, catalog.load, lambda _: None)
    # None named: each runtime's default setup and its lightest, ordered like for like, the
    # lightest only on the workloads that measure the framework's own cost (spec/capacity.md,
    # "Setups"); the other workloads' work is the handler's, and a JVM setup's start costs its
    # 20 s warm-up again on each.
    every_setup = [w.id for w in all_workloads().values() if w.every_setup]
    return CapacityPlan(
        impl=options.impl or catalog.names(catalog.compared(rows)),
        setups_on=None if options.impl else every_setup,
        cpus=cores.measured_budgets(options.cpus),
        repeat=repetitions(options.repeat) if options.repeat is not None else search_parameters().starts.most,
        workload=options.workload,
        slo=parse_slo(options.slo) if options.slo else {},
        scaling=options.scaling,
    )


# For the ETA, as measured here (spec/capacity.md, "Time"): starting, saturating and stopping a
# server (beyond its own warm_s); saturating it again for a later workload; a probe, its warm-up and
# window and the wait for the server to idle; the probes of a first start's search and its curve,
# and of a later one's.
START_S = 5
SATURATE_S = 3
PROBE_S = 4
FIRST_PROBES, HINTED_PROBES = 11, 5  # the medians of run 20261206-130605 (spec/capacity.md, "Time")
# How likely a start beyond the least a cell takes is needed, and each one after it by as much
# again: of the 60 cells of run 20261206-093231, 12 had a step beside them that three starts could
# decide after their first two (spec/capacity.md, "Starts where the order is open").
LIKELY_MORE = 0.2


def estimate(manifest: catalog.Manifest, point: WorkloadPoint, repetition: int, first: bool, least: int) -> float:
    """Seconds a measurement takes, for the ETA: its start's when it is the first on it, else its
    saturation, each with a JIT's warm_s; and a first search, a hinted one or a sweep; a start
    beyond the least a cell takes, by how likely it is needed."""
    start_s = (START_S if first else SATURATE_S) + manifest.warm_s
    if point.clients:
        return start_s + len(point.clients) * PROBE_S
    likely = LIKELY_MORE ** max(repetition - least + 1, 0)
    probes = HINTED_PROBES if repetition else FIRST_PROBES
    # A workload with a cost rate takes one probe more there, its window the cost's.
    cost_s = PROBE_S + search_parameters().cost_window_s if point.workload.cost else 0.0
    return likely * (start_s + PROBE_S * probes + cost_s)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options: the shared ones of options.py and its own."""
    options.impls(
        parser,
        f"implementations; {options.SETUPS}",
        "each implementation's default setup, and its lightest on plaintext and json",
    )
    parser.add_argument(
        "--workload",
        nargs="*",
        default=[],
        help="plaintext json bcrypt compute database longpoll mix: the workloads of spec/capacity.toml "
        "(default: all but the soak's mix)",
    )
    options.budgets(parser)
    parser.add_argument(
        "--slo", help="an objective for every workload instead of its own, e.g. p99=50ms or p99=50ms,p999=200ms"
    )
    parser.add_argument(
        "--scaling",
        action="store_true",
        help="also sweep 1, 2, 4, … 64 clients without think time after the searches; fit the USL",
    )
    options.db_url(parser)
