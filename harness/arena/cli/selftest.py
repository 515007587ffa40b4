"""`arena test`: the project's own tests (jobs/self_test.py), for every implementation or those named."""

from __future__ import annotations

import argparse

from arena.console import Console
from arena.engines.loadgen import Loadgen
from arena.jobs import self_test


def cmd_test(args: argparse.Namespace, console: Console) -> int:
    return self_test.run(args.impl, Loadgen(), console)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("test", help="unit tests, each implementation's own tests, conformance")
    s.add_argument("impl", nargs="*")
    s.set_defaults(func=cmd_test)
