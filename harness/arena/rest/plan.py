"""An `arena run`'s plan: the experiments, points, budgets and repetitions asked for, and the load
engine that measures them, its options checked against each other and against the scenarios; and
how long a point takes, for the ETA."""

from __future__ import annotations

import argparse
import ipaddress
import math
from dataclasses import dataclass, field

from arena import options
from arena.engines.locust.engine import Locust
from arena.errors import UsageError
from arena.host import cores
from arena.impls import catalog
from arena.kind import Plan, repetitions
from arena.rest import measure, scenarios
from arena.rest.order import nominal_rps

ENGINES = ("loadgen", "locust", "both")  # --engine: both measures every point Locust can run twice
MAX_WORKERS = 64
START_S = 3  # starting and stopping a server, for the ETA (once per repetition: frame/starts.py)


def estimate(point: scenarios.ScenarioPoint, cpus: int, first: bool) -> float:
    """The start (for a repetition's first point), a warm-up that is steady at once, the measured
    run: as the engine plans it, or a fixed count's requests at the most its load allows."""
    rule = point.warmup()
    length = measure.run_length(point)
    if point.planned_s is None and math.isfinite(rate := nominal_rps(point, cpus)):
        length = point.model()["requests"] * len(point.scenario.steps) / rate
    return START_S * first + (rule.window * rule.slice_s if rule else 0.0) + length


@dataclass(frozen=True)
class RestPlan(Plan):
    suite: str = "quick"
    scenario: list[str] = field(default_factory=list)  # none named: every experiment
    point: list[int] = field(default_factory=list)  # only these points of its profile, by number
    # The load engine and Locust's workers (a plan stored before Locust has none: loadgen on loopback).
    engine: str = "loadgen"
    workers: int | None = None
    remote_workers: bool = False
    host: str = "127.0.0.1"


def engine_options(options: argparse.Namespace, chosen: list[scenarios.Scenario]) -> dict:
    """--engine, --workers, --remote-workers and --host, checked against each other and the scenarios."""
    engine = getattr(options, "engine", "loadgen")
    workers, remote = getattr(options, "workers", None), getattr(options, "remote_workers", False)
    host = getattr(options, "host", "127.0.0.1")
    if engine not in ENGINES:
        raise UsageError(f"--engine {engine}: choose one of {', '.join(ENGINES)}")
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--workers {workers}: choose 1..{MAX_WORKERS}")
    if engine == "loadgen" and (workers is not None or remote):
        raise UsageError("--workers and --remote-workers are Locust's: add --engine locust (or both)")
    if remote and workers is None:
        raise UsageError("--remote-workers needs --workers N: how many to wait for")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise UsageError(f"--host {host}: an IP address the server listens on and the workers reach") from None
    if not address.is_loopback and engine != "locust":
        raise UsageError(f"--host {host}: loadgen sends only to loopback; another address is for --engine locust")
    if engine == "locust":
        refused = [
            f"{s.id} ({s.profiles[options.suite]['model']['kind']})"
            for s in chosen
            if options.suite in s.profiles and not Locust.runs(s.profiles[options.suite]["model"])
        ]
        if refused:
            raise UsageError(
                f"Locust runs closed models only, not {', '.join(refused)}: choose closed-model "
                "scenarios with --scenario, or --engine loadgen"
            )
    return {"engine": engine, "workers": workers, "remote_workers": remote, "host": host}


def planned(options: argparse.Namespace) -> RestPlan:
    """The plan of the command line's options; unknown names and contradictions fail here."""
    chosen = [s for s in scenarios.load(options.scenario) if not s.pending]
    catalog.rows(options.impl, catalog.load, lambda _: None)  # unknown names fail here; warnings come later
    if options.point and len(options.scenario) != 1:
        raise UsageError("--point numbers the points of one scenario's profile: name that one with --scenario")
    return RestPlan(
        suite=options.suite,
        impl=options.impl,
        cpus=cores.measured_budgets(options.cpus),
        repeat=repetitions(options.repeat),
        scenario=options.scenario,
        point=options.point,
        **engine_options(options, chosen),
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's options: the shared ones of options.py and its own."""
    options.impls(
        parser,
        f"implementations; {options.SETUPS}",
        "of each implementation the setups its experiment's study measured, else its default",
    )
    parser.add_argument("--scenario", nargs="*", default=[], help="experiments of spec/scenarios/ (default: all)")
    options.points(parser, "the scenario")
    options.budgets(parser)
    options.db_url(parser)
    parser.add_argument(
        "--engine",
        choices=["loadgen", "locust", "both"],
        default="loadgen",
        help="the load engine: Arena's own (default), Locust's master and workers (closed models "
        "only), or both for a cross-check",
    )
    parser.add_argument("--workers", type=int, help="Locust workers (default: one per core left for the engine)")
    parser.add_argument(
        "--remote-workers",
        action="store_true",
        help="wait for --workers N started with `arena worker` instead of starting them",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address servers listen on and Locust's master binds (default 127.0.0.1)",
    )
