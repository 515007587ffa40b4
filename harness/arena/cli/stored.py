"""The commands on stored runs: `report` (a run's summary again), `export` and `import` (runs as
files, between machines), and `serve` (the dashboard over them)."""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

from arena import lifecycle, options
from arena.capacity import order
from arena.cli.measuring import kinds
from arena.console import Console
from arena.dashboard import app as dashboard
from arena.dashboard.servers import Servers
from arena.errors import ArenaError, UsageError
from arena.findings import catalog as findings_catalog
from arena.findings import runs as findings_runs
from arena.findings.judge import judge_all
from arena.findings.section import exported
from arena.impls import catalog
from arena.jobs import results
from arena.kind import CAPACITY
from arena.kind import main_metrics as kind_main_metrics
from arena.kind import noisy as kind_noisy
from arena.measured import export, importing, kept
from arena.measured.store import Store
from arena.paths import ROOT


def cmd_report(args: argparse.Namespace, console: Console) -> int:
    return lifecycle.report(args.run, kinds(), console)


def cmd_export(args: argparse.Namespace, console: Console) -> int:
    main = kind_main_metrics(kinds())  # also: every kind's payload type is known before one is read back
    noisy = kind_noisy(kinds())
    store = Store()
    try:
        run = store.named(args.run)
        measurements = store.measurements(run.id)
        notes = store.notes(run.id)
        verdicts = exported(judge_all(findings_runs.index(store, [run]), findings_catalog.load()))
        orders = order.exported(measurements) if run.kind == CAPACITY else []
    finally:
        store.close()
    text = (
        export.as_json(export.document(run, measurements, main, noisy, verdicts, notes, orders))
        if args.format == "json"
        else export.as_csv(run, measurements, args.rows, main, noisy)
    )
    if args.out is None:
        sys.stdout.write(text)
        return 0
    out = Path(args.out)
    try:
        # A name ending .gz is written compressed (exports kept in a repository), and read back as it is.
        data = text.encode("utf-8")
        out.write_bytes(gzip.compress(data, mtime=0) if out.suffix == ".gz" else data)
    except OSError as err:
        raise ArenaError(f"cannot write {args.out}: {err.strerror or err}") from err
    console.line(f"run {run.name}: {len(measurements)} measurement(s) as {args.format} in {args.out}")
    return 0


def cmd_import(args: argparse.Namespace, console: Console) -> int:
    kinds()  # every kind's payload type is known before a measurement is read
    store = Store()
    try:
        for name in args.file:
            run, count = importing.into(store, Path(name))
            host = run.host.get("name", "an unnamed host")
            console.line(f"{name}: run {run.name} of {host}, {count} measurement(s), commit {run.git_commit[:10]}")
    finally:
        store.close()
    return 0


def cmd_results(args: argparse.Namespace, console: Console) -> int:
    """docs/results.md and the README's headline from reference/ (jobs/results.py); with --check,
    only whether they are current."""
    if args.stamp:
        folder = Path(args.stamp)
        if not any(folder.glob("*.json.gz")):
            raise UsageError(f"--stamp {args.stamp}: no exports (*.json.gz) there to stamp")
        kept.stamp(folder)
        console.line(f"{folder / kept.SOURCES}: the digests of the code checked out here, which measured it")
        return 0
    made = results.made(kinds())
    files = {
        results.PAGE: made.page,
        results.README: results.readme(results.README.read_text(encoding="utf-8"), made.headline),
    }
    # The charts are not among them: they are drawn here, never tracked, so a clone has none to check.
    stale = [path for path, text in files.items() if not path.exists() or path.read_text(encoding="utf-8") != text]
    shown = ", ".join(str(path.relative_to(ROOT)) for path in stale)
    if args.check:
        if stale:
            console.error(f"{shown}: not what ./arena results makes of reference/; run it")
            return 1
        console.line("docs/results.md and the README's headline are what reference/ makes")
        return 0
    for path in stale:
        path.write_text(files[path], encoding="utf-8")
    console.line(f"{shown or 'nothing'} rewritten, from the reference of {', '.join(kept.newest())}")
    with console.working("drawing the page's charts"):
        drawn = results.draw(made)
    console.line(f"{len(drawn)} chart(s) in {results.CHARTS.relative_to(ROOT)}")
    return 0


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    manifests = catalog.rows([], catalog.load, console.warn)
    dashboard.serve(args.port, Servers(manifests, console, args.db_url), kinds(), console.line)
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser(
        "report", parents=[options.wide()], help="print a stored run's summary again, rewrite its summary.md"
    )
    s.add_argument("run", nargs="?", default="last", help="run name (default: the last run)")
    s.set_defaults(func=cmd_report)
    s = sub.add_parser("export", help="a stored run as JSON or CSV for scripts and notebooks (spec/export.md)")
    s.add_argument("run", nargs="?", default="last", help="run name (default: the last run)")
    s.add_argument("--format", choices=["json", "csv"], default="json")
    s.add_argument(
        "--rows",
        choices=["measurements", "summaries"],
        default="measurements",
        help="CSV only: a row per measurement (default), or per point over its repetitions",
    )
    s.add_argument(
        "--out", metavar="FILE", help="write it here instead of standard output (compressed where it ends .gz)"
    )
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("import", help="runs exported on other machines (arena export) into this store")
    s.add_argument("file", nargs="+", help="JSON files of arena export (compressed by gzip or not)")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("results", help="docs/results.md from the runs kept in reference/")
    s.add_argument("--check", action="store_true", help="write nothing: exit 1 when docs/results.md is not current")
    s.add_argument(
        "--stamp",
        metavar="FOLDER",
        help="instead: keep beside a reference's exports the digests of the code checked out here, which measured "
        "them (reference/README.md)",
    )
    s.set_defaults(func=cmd_results)

    s = sub.add_parser("serve", help="the dashboard on 127.0.0.1: runs, comparisons, and a console to try servers")
    s.add_argument("--port", type=int, default=8765, help="its port (default 8765)")
    options.db_url(s)
    s.set_defaults(func=cmd_serve)
