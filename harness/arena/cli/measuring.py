"""The measuring commands, one per kind of measurement (`run`, `micro`, `capacity`, `soak`), each
the run lifecycle of its kind; and `worker`, a Locust worker for a master elsewhere."""

from __future__ import annotations

import argparse

from arena import lifecycle, options
from arena.capacity.kind import CapacityKind
from arena.console import Console
from arena.context import Context
from arena.engines.locust import engine as locust
from arena.gates import assertion
from arena.kind import CAPACITY, FINDINGS, MICRO, REST, SOAK, Kind
from arena.micro.kind import MicroKind
from arena.rest.kind import RestKind
from arena.soak import parameters as soak_parameters
from arena.soak import plan as soak_plan
from arena.soak.kind import SoakKind


def kinds() -> dict[str, Kind]:
    """Every kind of measurement, by the name its runs are stored with."""
    return {kind.name: kind for kind in (RestKind(), MicroKind(), CapacityKind(), SoakKind())}


def _run(kind: Kind, args: argparse.Namespace, console: Console) -> int:
    """The command's run: its options as a plan, checked before the store is claimed, then run."""
    plan = kind.plan(args)
    gates = lifecycle.Gates(args.assertions, args.junit)
    with Context.claimed(console, getattr(args, "db_url", None)) as context:
        return lifecycle.run(kind, plan, context, args.resume, gates)


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    return _run(kinds()[REST], args, console)


def cmd_micro(args: argparse.Namespace, console: Console) -> int:
    return _run(kinds()[MICRO], args, console)


def cmd_capacity(args: argparse.Namespace, console: Console) -> int:
    return _run(kinds()[CAPACITY], args, console)


def cmd_soak(args: argparse.Namespace, console: Console) -> int:
    """The soak, after a capacity run of its workload for the implementations with no stored edge
    (one start each: an edge to take a share of, spec/soak.md). The soak's plan is made once those
    edges are stored: its rates are shares of them."""
    every = kinds()
    soak = every[SOAK]
    gates = lifecycle.Gates(args.assertions, args.junit)
    if args.rate is not None or args.resume:
        return _run(soak, args, console)
    assertion.parse_all(args.assertions, [SOAK])  # refused before the edges are measured
    with Context.claimed(console, args.db_url) as context:
        if missing := soak_plan.without_edge(args):
            workload = soak_parameters.load().workload
            console.line(f"arena soak: no stored {workload} edge for {', '.join(missing)}: measuring it first")
            first = soak_plan.edges_first(missing, workload, args)
            status = lifecycle.run(every[CAPACITY], first, context)
            if status != 0:
                return status
        return lifecycle.run(soak, soak.plan(args), context, gates=gates)


def cmd_worker(args: argparse.Namespace, console: Console) -> int:
    return locust.serve_worker(args.master, args.cpus, console.line)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    # The measuring commands: each kind declares its own options, its stored runs take the rest.
    for kind, func in ((RestKind, cmd_run), (MicroKind, cmd_micro), (CapacityKind, cmd_capacity), (SoakKind, cmd_soak)):
        suites = [options.suites(FINDINGS)] if kind.suited else []
        s = sub.add_parser(
            kind.command, parents=[options.stored_runs(kind.repeat, kind.repeat_help), *suites], help=kind.help
        )
        kind.arguments(s)
        s.set_defaults(func=func)

    s = sub.add_parser(
        "worker", help="a Locust worker for a master elsewhere (arena run --engine locust --remote-workers)"
    )
    s.add_argument("--master", required=True, metavar="HOST[:PORT]", help="the master's address (port default 5557)")
    s.add_argument("--cpus", help="cores to pin it to, e.g. 1 (default: any)")
    s.set_defaults(func=cmd_worker)
