"""A soak run's plan: its options checked, and each implementation's rate, given or a share of its
stored capacity edge, fixed when the run begins (spec/soak.md)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from dataclasses import dataclass, field

from arena import options
from arena.capacity.plan import CapacityPlan
from arena.errors import UsageError
from arena.host import cores
from arena.impls import catalog
from arena.kind import SOAK as KIND
from arena.kind import Plan, repetitions
from arena.measured.store import Store
from arena.soak import edges
from arena.soak.parameters import load


@dataclass(frozen=True)
class SoakPoint:
    """The soak of an implementation: at a share of its edge, or at a rate given, for so long."""

    minutes: float
    share: float | None
    rate: float | None

    experiment = KIND

    @property
    def key(self) -> str:
        held = {"rate": self.rate} if self.rate else {"share": self.share}
        return json.dumps({**held, "minutes": self.minutes}, sort_keys=True)

    @property
    def label(self) -> str:
        held = f"{self.rate:g}/s" if self.rate else f"{self.share:.0%} of its edge"
        return f"{held} for {self.minutes:g} min"


def rate_key(impl: str, cpus: int) -> str:
    return f"{impl}@{cpus}"


def _stored_edges() -> dict[tuple[str, int], edges.Edge]:
    store = Store()
    try:
        return edges.stored(store, load().workload)
    finally:
        store.close()


@dataclass(frozen=True)
class SoakPlan(Plan):
    minutes: float = 0.0  # each soak's length, warm-up included
    share: float | None = None  # of each implementation's stored edge; None with a rate
    rate: float | None = None  # arrivals a second for every implementation, instead of a share
    rates: dict = field(default_factory=dict)  # each implementation's rate, fixed when the run began


def checked(options: argparse.Namespace) -> SoakPlan:
    """The command line's options, each checked (a UsageError names the bad one), before anything
    is measured: the soak's own, and, when it must measure edges first, capacity's."""
    parameters = load()
    minutes = options.minutes if options.minutes is not None else parameters.minutes
    least = (parameters.warmup_periods + 1) * parameters.period_s / 60
    if minutes < least:
        raise UsageError(f"--minutes {minutes:g}: at least {least:g} (a warm-up period and one measured)")
    if options.rate is not None and options.rate <= 0:
        raise UsageError(f"--rate {options.rate:g}: give arrivals a second above 0")
    share = options.share if options.share is not None else parameters.share
    if not 0 < share <= 1:
        raise UsageError(f"--share {share:g}: give a share of the edge in (0, 1]")
    return SoakPlan(
        # None named: each implementation's default setup (a soak of every setup would take hours more).
        impl=options.impl or catalog.names([m for m in catalog.rows([], catalog.load, lambda _: None) if m.default]),
        cpus=cores.measured_budgets(options.cpus),
        repeat=repetitions(options.repeat),
        minutes=minutes,
        share=None if options.rate else share,
        rate=options.rate,
    )


def without_edge(options: argparse.Namespace) -> list[str]:
    """The rows the soak measures (each default setup: none named) with no stored edge of the soak's
    workload at some budget: `arena soak` measures those first."""
    found = _stored_edges()
    plan = checked(options)
    rows = catalog.rows(plan.impl, catalog.load, lambda _: None)
    return catalog.names([m for m in rows if any((m.name, cpus) not in found for cpus in plan.cpus)])


def edges_first(missing: list[str], workload: str, options: argparse.Namespace) -> CapacityPlan:
    """The capacity run a soak takes its rates from where no edge is stored (`without_edge`): the
    soak's workload on the soak's budgets, one start each (spec/soak.md)."""
    return CapacityPlan(impl=missing, cpus=checked(options).cpus, repeat=1, workload=[workload])


def planned(options: argparse.Namespace) -> SoakPlan:
    """The options, and each implementation's rate: given, or its share of the stored edge (looked
    up now, so that a resumed soak holds the rates it began with)."""
    plan = checked(options)
    manifests = catalog.rows(options.impl, catalog.load, lambda _: None)
    return dataclasses.replace(plan, rates={} if plan.rate else _edge_shares(manifests, plan.cpus, plan.share))


def _edge_shares(manifests: list[catalog.Manifest], budgets: list[int], share: float) -> dict:
    found = _stored_edges()
    return {
        rate_key(m.name, cpus): {"rate": share * edge.rate, "edge": edge.rate, "run": edge.run, "ended": edge.ended}
        for m in manifests
        for cpus in budgets
        if (edge := found.get((m.name, cpus)))
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options: the shared ones of options.py and its own."""
    options.impls(parser, f"implementations; {options.SETUPS}", "each implementation's default setup")
    options.budgets(parser)
    parser.add_argument("--minutes", type=float, help="how long each soak lasts, warm-up included (default 4: quick)")
    parser.add_argument("--share", type=float, help="of each implementation's stored edge (default 0.7)")
    parser.add_argument("--rate", type=float, help="arrivals a second for every implementation, instead of a share")
    options.db_url(parser)
