"""`arena bench-engine`: the load engine against wrk, or its open model against oha's
(jobs/engine_bench.py)."""

from __future__ import annotations

import argparse

from arena.console import Console
from arena.engines.loadgen import Loadgen
from arena.jobs import engine_bench


def cmd_bench_engine(args: argparse.Namespace, console: Console) -> int:
    if args.open:
        return engine_bench.open_check(args.impl, args.open, args.seconds, args.repeat, Loadgen(), console)
    return engine_bench.run(args.impl, args.seconds, args.repeat, Loadgen(), console)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("bench-engine", help="the load engine against wrk (or oha's open model) on one server core")
    s.add_argument("--impl", default="go", help="server to load (default: go)")
    s.add_argument("--seconds", type=int, default=5, help="length of each measurement (default 5)")
    s.add_argument("--repeat", type=int, default=3, help="alternating runs of each tool (default 3)")
    s.add_argument(
        "--open",
        nargs="+",
        type=float,
        metavar="RATE",
        help="instead: the open model against oha's (-q RATE --latency-correction) at each rate, p50 and p99",
    )
    s.set_defaults(func=cmd_bench_engine)
