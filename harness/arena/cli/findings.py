"""`arena findings`: a verdict on every finding of the seed studies from the newest runs (or those
named), and the findings suite that measures what they need (jobs/findings_suite.py), each of its
runs a plan of its kind on one context."""

from __future__ import annotations

import argparse

from arena import lifecycle
from arena.cli.measuring import kinds
from arena.console import Console
from arena.context import Context
from arena.errors import ArenaError, UsageError
from arena.findings import calibrate, runs
from arena.findings import catalog as findings_catalog
from arena.findings import section as findings_section
from arena.findings.catalog import STUDIES
from arena.findings.verdict import ALPHA, Verdict
from arena.jobs import findings_suite
from arena.kind import repetitions
from arena.measured.store import Store
from arena.report.render import terminal


def cmd_findings(args: argparse.Namespace, console: Console) -> int:
    kinds()  # every kind's payload type is known before a measurement is read back
    if (args.measure or args.plan or args.changes) and args.run:
        raise UsageError("--measure, --plan and --changes read the findings suite's runs: name no runs with them")
    if args.resume and not args.measure:
        raise UsageError("--resume continues a --measure")
    if args.draws < 20:
        raise UsageError("--draws must be 20 or more: a rate of fewer draws says next to nothing")
    if args.calibrate:
        return _calibrate(args, console)
    if args.measure or args.plan:
        made = findings_suite.plan(findings_catalog.load(), findings_suite.machine(), repetitions(args.repeat))
        if args.plan:
            findings_suite.show(made, console)
            return 0
        with Context.claimed(console) as context:
            status = findings_suite.measure(made, args.resume, _runner(context), console)
        if status != 0:
            return status
    store = Store()
    try:
        if args.changes:
            return _changes(store, console)
        judged, read = runs.ledger(store, args.run)
    finally:
        store.close()
    shown = [
        j
        for j in findings_section.grouped(judged)
        if (not args.study or j.finding.study in args.study) and (not args.verdict or j.verdict in args.verdict)
    ]
    made = findings_section.section(shown, read)
    console.line(made.heading, style="bold")
    terminal.table(console, made.table)
    for note in made.notes:
        console.line(note)
    return 0


def _runner(context: Context) -> findings_suite.RunItem:
    """How the suite runs an item: its plan, by its kind's lifecycle on the suite's context. A run
    that ends in an error says so and stops the suite, which says how to continue."""
    every = kinds()

    def run(item: findings_suite.Item, resume: str | None) -> int:
        try:
            return lifecycle.run(every[item.kind], item.plan(), context, resume)
        except ArenaError as err:
            context.console.error(err.line())
            return err.status

    return run


def _calibrate(args: argparse.Namespace, console: Console) -> int:
    """The verdict rules' error rates on the runs read, replayed (findings/calibrate.py)."""
    store = Store()
    try:
        read = [store.named(name) for name in args.run] if args.run else runs.newest_of_each_kind(store)
        index = runs.index(store, read)
    finally:
        store.close()
    if not index.kinds:
        raise UsageError("--calibrate replays stored measurements: none here yet (`./arena findings --measure`)")
    console.line(f"replaying {', '.join(r.name for r in read)} {args.draws} times a finding ...")
    made = calibrate.calibrate(index, findings_catalog.load(), args.draws)
    console.line('How often the verdict rules are wrong (spec/findings.md, "The judge is judged")', style="bold")
    terminal.table(console, calibrate.table(made, args.draws))
    wrong = [c.finding.id for c in made if c.aa and c.aa.above(ALPHA)]
    near = [f"{c.finding.id} ({c.aa.share:.1%})" for c in made if c.aa and c.aa.share > ALPHA and not c.aa.above(ALPHA)]
    planted = ", ".join(f"x{e:g}" for e in calibrate.EFFECTS)
    console.line(
        f"{len(made)} findings replayed {args.draws} times each on A/A data (identical runtimes with the scatter "
        f"measured: a decided verdict is wrong) and with one side planted {planted} "
        f"better (an order) or past its band's edge (a band); {len(wrong)} decided on A/A data in more than "
        f"{ALPHA:.0%} of draws beyond what the draws can tell{': ' + ', '.join(wrong) if wrong else ''}"
        + (f"; above {ALPHA:.0%} within it: {', '.join(near)}" if near else "")
        + "."
    )
    # The bound spec/findings.md states for power: where three repetitions or more measured a point
    # the load did not hold, a quarter better is found the right way four times in five.
    effect, power = calibrate.POWER_EFFECT, calibrate.POWER
    held = [c for c in made if c.repetitions >= 3 and not c.at_ceiling and c.power.get(effect)]
    short = [f"{c.finding.id} ({c.power[effect].share:.0%})" for c in held if c.power[effect].share < power]
    console.line(
        f"x{effect:g} found the right way in {power:.0%} of draws or more in {len(held) - len(short)} of "
        f"{len(held)} findings "
        f"of three repetitions or more, not at their ceiling{': short: ' + ', '.join(short) if short else ''}"
        + "".join(f"; {c.finding.id} cannot agree: {c.short_of} judged" for c in made if c.short_of)
        + "."
    )
    return 0


def _changes(store: Store, console: Console) -> int:
    """The verdicts that differ between the findings suite's last two measurements."""
    before, after = runs.last_two_findings_suites(store)
    if not before:
        raise UsageError("--changes needs the findings suite measured twice: `./arena findings --measure` again")
    table = findings_section.changes(runs.judged(store, before), runs.judged(store, after))
    was, now = {r.name for r in before}, {r.name for r in after}
    changed = f"{', '.join(sorted(was - now))} and {', '.join(sorted(now - was))}"
    console.line(f"{len(table.rows)} verdict(s) differ between runs {changed}", style="bold")
    if table.rows:
        terminal.table(console, table)
    pace = runs.paces(before, after)
    if pace.rows:
        console.line("the machine's pace at each run's start (SHA-256 on one core, host/pace.py)", style="bold")
        terminal.table(console, pace)
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "findings", help="a verdict on every finding of the seed studies, from the newest runs or those named"
    )
    s.add_argument("run", nargs="*", default=[], help="runs to read (default: the newest of each kind)")
    s.add_argument("--study", nargs="*", choices=STUDIES, default=[], help="only these studies' findings")
    s.add_argument("--verdict", nargs="*", choices=[str(v) for v in Verdict], default=[], help="only these verdicts")
    _suite_options(s)
    s.set_defaults(func=cmd_findings)


def _suite_options(parser: argparse.ArgumentParser) -> None:
    measuring = parser.add_mutually_exclusive_group()
    measuring.add_argument(
        "--measure", action="store_true", help="measure the points the testable findings need, then print the verdicts"
    )
    measuring.add_argument("--plan", action="store_true", help="print those points and their time, measure nothing")
    measuring.add_argument(
        "--changes", action="store_true", help="the verdicts that differ between the suite's last two measurements"
    )
    measuring.add_argument(
        "--calibrate",
        action="store_true",
        help="how often the verdict rules are wrong: the runs read replayed on A/A data and with planted effects",
    )
    parser.add_argument(
        "--draws", type=int, default=400, help="with --calibrate: draws a finding is replayed (default 400)"
    )
    parser.add_argument("--resume", action="store_true", help="with --measure: continue where it stopped")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="with --measure or --plan: repetitions of a point whose tests do not say (default 3)",
    )
