"""`arena compare A B`: two stored runs, or two implementations of runs, point by point in the
terminal (or as JSON), with a gate for CI: `--fail-on slower` exits 1 when a point got slower; and
`arena history IMPL`: every stored run of an implementation in time order, with its changes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from arena import options
from arena.capacity import tables as capacity_tables
from arena.cli.measuring import kinds
from arena.compare import history, history_report, sides
from arena.compare.model import THRESHOLD, Comparison, Verdict, compare
from arena.compare.report import report
from arena.console import Console
from arena.errors import UsageError
from arena.gates import junit
from arena.kind import Kind, main_metrics
from arena.measured.store import Store
from arena.report.render import terminal


def cases(comparison: Comparison, fail_on: list[str]) -> list[junit.Case]:
    """A case per point and metric: failed when its verdict is one `--fail-on` names."""
    return [
        junit.Case(
            f"{c.kind}.{c.experiment}",
            f"{c.where} {c.metric}",
            failure=f"{c.verdict}: B/A {c.ratio:.3f} [{c.low:.3f}, {c.high:.3f}], p {c.p:.3f}"
            if str(c.verdict) in fail_on
            else "",
            skipped=c.why if c.verdict is Verdict.UNTESTED else "",
        )
        for c in comparison.changes
    ]


def run(args: argparse.Namespace, kinds: dict[str, Kind], console: Console) -> int:
    if not 0 <= args.threshold < 1:
        raise UsageError(f"--threshold {args.threshold}: give a share between 0 and 1, e.g. 0.05 for 5%")
    store = Store()
    try:
        (a, b), differs = sides.read(store, (args.a, args.b))
    finally:
        store.close()
    made = compare(a, b, main_metrics(kinds), args.threshold)
    if args.json:
        sys.stdout.write(json.dumps(made.document() | {"differs": differs}, indent=2) + "\n")
    else:
        shown = report(made, differs)
        if orders := capacity_tables.orders_compared(a.measurements, b.measurements):
            shown.sections.append(orders)
        terminal.report(console, shown)
    if args.junit:
        junit.write(Path(args.junit), f"arena compare {a.label} {b.label}", cases(made, args.fail_on))
        if not args.json:
            console.line(f"JUnit XML: {args.junit}")
    failed = [c for c in made.changes if str(c.verdict) in args.fail_on]
    if failed:
        console.error(f"{len(failed)} point(s) {' or '.join(args.fail_on)}: failing (--fail-on)")
        return 1
    return 0


def add_parser(sub: argparse._SubParsersAction, tables: argparse.ArgumentParser) -> argparse.ArgumentParser:
    s = sub.add_parser(
        "compare",
        parents=[tables],
        help="B against A, point by point, with a verdict: two runs (last~1 last) or implementations (RUN:go RUN:rust)",
    )
    s.add_argument(
        "a", help="A: a run (last, last~1, a name), RUN:IMPL, or reference (the runs kept in reference/ of its kind)"
    )
    s.add_argument("b", help="B: the same form as A")
    s.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        help=f"the smallest change that counts, as a share (default {THRESHOLD}: {THRESHOLD * 100:g}%%)",
    )
    s.add_argument(
        "--fail-on",
        nargs="+",
        default=[],
        choices=[str(Verdict.SLOWER), str(Verdict.FASTER)],
        help="exit 1 when any point has this verdict (a CI gate: --fail-on slower)",
    )
    s.add_argument("--junit", metavar="FILE", help="write every point's verdict as JUnit XML")
    s.add_argument("--json", action="store_true", help="the comparison as JSON (spec/compare.md) instead of a table")
    return s


def show_history(args: argparse.Namespace, kinds: dict[str, Kind], console: Console) -> int:
    store = Store()
    try:
        found = history.read(store, args.impl, args.scenario, main_metrics(kinds))
    finally:
        store.close()
    terminal.report(console, history_report.report(args.impl, found))
    return 0


def add_history_parser(sub: argparse._SubParsersAction, tables: argparse.ArgumentParser) -> argparse.ArgumentParser:
    s = sub.add_parser(
        "history", parents=[tables], help="every stored run of one implementation in time order, with change points"
    )
    s.add_argument("impl", help="the implementation, e.g. go")
    s.add_argument("--scenario", nargs="*", default=[], help="only these experiments (scenarios, benches, workloads)")
    return s


def add_parsers(sub: argparse._SubParsersAction) -> None:
    add_parser(sub, options.wide()).set_defaults(func=lambda args, console: run(args, kinds(), console))
    add_history_parser(sub, options.wide()).set_defaults(
        func=lambda args, console: show_history(args, kinds(), console)
    )
