"""The `arena` command line: list, build, start, verify, run, worker, micro, capacity, report, findings,
compare, history, export, import, serve, bench-engine,
test.

Every problem the user can act on arrives here as an ArenaError and leaves as one line on stderr
and an exit status; Ctrl-C, SIGTERM and SIGHUP as status 130 after every server is stopped.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from arena import lifecycle, options
from arena.capacity.kind import CapacityKind
from arena.checks import fuzz, verify
from arena.checks.result import CheckResult, show_check
from arena.cli import benchmark, compare, findings_suite, testsuite
from arena.console import Console
from arena.dashboard import app as dashboard
from arena.dashboard.servers import Servers
from arena.engines.interface import LoadEngine
from arena.engines.loadgen import Loadgen
from arena.engines.locust import engine as locust
from arena.errors import ArenaError, UsageError
from arena.findings import catalog as findings_catalog
from arena.findings import runs
from arena.findings.catalog import STUDIES
from arena.findings.judge import judge_all
from arena.findings.section import changes as findings_changes
from arena.findings.section import exported, section
from arena.findings.values import Index
from arena.findings.verdict import Verdict
from arena.gates import assertion
from arena.host import cores
from arena.host.database import Database, database
from arena.host.process import running
from arena.impls import build as builder
from arena.impls import catalog
from arena.impls.catalog import Manifest
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains, runtime_version
from arena.kind import CAPACITY, FINDINGS, MICRO, REST, SOAK, Kind, repetitions
from arena.kind import main_metrics as kind_main_metrics
from arena.kind import noisy as kind_noisy
from arena.measured import export, importing
from arena.measured.store import Store
from arena.micro.kind import MicroKind
from arena.report.render import terminal
from arena.report.tables import Cell, Column, Row, Table
from arena.rest.kind import RestKind
from arena.soak import parameters as soak_parameters
from arena.soak import plan as soak_plan
from arena.soak.kind import SoakKind


def kinds() -> dict[str, Kind]:
    """Every kind of measurement, by the name its runs are stored with."""
    return {
        kind.name: kind for kind in (RestKind(Loadgen()), MicroKind(), CapacityKind(Loadgen()), SoakKind(Loadgen()))
    }


# --- commands ----------------------------------------------------------------------------------


def _status(m: Manifest, toolchains: Toolchains) -> tuple[str, str]:
    """(runtime version, availability) of one row, installing nothing."""
    if m.unavailable:
        return "-", f"unavailable: {m.unavailable}"
    state = toolchains.check(m)
    if not state.ok:
        return "not installed", f"{state.reason}: ./arena build {m.name} installs it"
    return runtime_version(m), "available"


def _cores(m: Manifest) -> str:
    return "-" if m.unavailable else "any" if m.max_cpus == 0 else str(m.max_cpus)


def cmd_list(args: argparse.Namespace, console: Console) -> int:
    toolchains = Toolchains(say=console.line)
    servers, micro = catalog.servers_and_micro(args.impl, console.warn)
    for title, rows, middle in (
        ("REST implementations (servers/)", servers, "framework"),
        ("micro-benchmarks (micro/)", micro, "concurrency"),
    ):
        if not rows:
            continue
        columns = [
            Column("impl"),
            Column("language", essential=False),
            Column("runtime", essential=False),
            Column("runtime version"),
            Column(middle, essential=False),
            Column("seeds", essential=False),
            Column("max cores"),
            Column("status"),
            Column("cores: how", essential=False),
        ]
        if rows is micro:
            columns.insert(5, Column("payload"))
        body = []
        for m in rows:
            version, status = _status(m, toolchains)
            cells = [
                Cell(m.name),
                Cell(m.language),
                Cell(m.runtime),
                Cell(version),
                Cell(m.framework),
                Cell(",".join(m.seeds) or "none"),
                Cell(_cores(m)),
                Cell(status),
                Cell(m.cores_how),
            ]
            if rows is micro:
                cells.insert(5, Cell(m.payload or "-"))
            body.append(Row(cells))
        console.line(title if rows is servers or not servers else f"\n{title}", style="bold")
        terminal.table(console, Table(columns, body, flags=False))
    return 0


def cmd_build(args: argparse.Namespace, console: Console) -> int:
    toolchains = Toolchains(say=console.line)
    servers, micro = catalog.servers_and_micro(args.impl, console.warn)
    if not args.impl:
        with console.working("building the load engine"):
            Loadgen().ensure(toolchains)
        console.line("  load engine: built")
    builds: dict[str, Manifest] = {}
    for m in servers + micro:
        builds.setdefault(m.build_key, m)  # a variant shares its folder's build
    prepared = [prepare(m, toolchains, console, force=args.force) for m in builds.values()]
    return 0 if all(p.ok or p.manifest.unavailable for p in prepared) else 1


def parse_settings(pairs: list[str]) -> dict[str, str]:
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("ARENA_"):
            raise UsageError(f"--set {pair!r}: expected ARENA_NAME=value (see spec/README.md)")
        settings[key] = value
    return settings


def cmd_start(args: argparse.Namespace, console: Console) -> int:
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: choose 1..65535")
    settings = parse_settings(args.set)
    cores.check_budget(args.cpus)
    (manifest,) = catalog.rows([args.impl], catalog.load, console.warn)
    if manifest.cpus_for(args.cpus) != args.cpus:
        raise UsageError(f"{manifest.name} uses at most {manifest.max_cpus} core(s); --cpus {args.cpus} is too many")
    if not prepare(manifest, Toolchains(say=console.line), console).ok:
        return 1
    taken = cores.take(args.cpus)
    with (
        database(args.db_url) as db,
        running(manifest, args.cpus, args.port, {"ARENA_DB_URL": db.url, **settings}, taken) as server,
    ):
        console.line(f"{manifest.name} serves http://127.0.0.1:{args.port}/ on core(s) {taken}; log {server.log}")
        console.line(f"/record uses {db.described}")
        console.line("Ctrl-C stops it.")
        while server.alive():
            time.sleep(0.5)
        console.line(f"{manifest.name} exited by itself (status {server.process.returncode}); log tail:")
        console.line(builder.tail(server.log))
        return 1


@dataclass(frozen=True)
class Beyond:
    """What `verify` does beyond conformance: the fuzzer's cases per operation and phase (0: no
    fuzzing), the abuse checks, and the overload run with this engine (None: no overload run)."""

    examples: int = 0
    abuse: bool = False
    overload: LoadEngine | None = None


def cmd_verify(args: argparse.Namespace, console: Console) -> int:
    if args.fuzz and not 1 <= args.examples <= fuzz.MAX_EXAMPLES:
        raise UsageError(f"--examples {args.examples}: choose 1..{fuzz.MAX_EXAMPLES}")
    budgets = cores.verified_budgets(args.cpus)
    toolchains = Toolchains(say=console.line)
    manifests = catalog.rows(args.impl, catalog.load, console.warn)
    engine = Loadgen() if args.overload else None
    if engine:
        with console.working("building the load engine"):
            engine.ensure(toolchains)
    beyond = Beyond(args.examples if args.fuzz else 0, args.abuse, engine)
    rows = []
    with database(args.db_url) as db:
        console.line(f"/record checks use {db.described}")
        for manifest in manifests:
            rows += _verified(manifest, budgets, toolchains, db, console, beyond)
    all_ok = all(
        row.cells[2].text in ("pass", "skipped") and "FAIL" not in (c.text for c in row.cells[3:6]) for row in rows
    )
    console.line()
    columns = [
        Column("impl"),
        Column("cpus", numeric=True),
        Column("conformance"),
        Column("fuzz"),
        Column("abuse"),
        Column("overload"),
        Column("detail"),
    ]
    terminal.table(console, Table(columns, rows, flags=False))
    return 0 if all_ok else 1


def _verified(
    manifest: Manifest, budgets: list[int], toolchains: Toolchains, db: Database, console: Console, beyond: Beyond
) -> list[Row]:
    """One implementation's conformance rows, a core budget each, with what `beyond` asks for."""
    prepared = prepare(manifest, toolchains, console)

    def shown_all(result: CheckResult) -> None:
        show_check(console, result, verbose=True)

    rows = []
    for cpus in budgets:
        if not prepared.ok:
            rows.append(
                Row(
                    [
                        Cell(manifest.name),
                        Cell(str(cpus)),
                        Cell("unavailable"),
                        Cell("-"),
                        Cell("-"),
                        Cell("-"),
                        Cell(prepared.reason),
                    ]
                )
            )
            continue
        verdict = verify.suite(manifest, cpus, db, console, verbose=True)
        shown = {"passed": "pass", "failed": "FAIL", "skipped": "skipped"}[verdict.status]
        fuzzed, detail = "-", verdict.detail
        tried = verdict.status != "skipped"
        if beyond.examples and tried:
            with console.working(f"  fuzz {manifest.name} --cpus {cpus}"):
                result = fuzz.fuzz(manifest, cores.take(cpus), db, beyond.examples)
            show_check(console, result, verbose=True)
            fuzzed, detail = ("pass" if result.ok else "FAIL"), f"{detail}; fuzz: {result.note}"
        abuse = "-"
        if beyond.abuse and tried:
            with console.working(f"  abuse {manifest.name} --cpus {cpus}"):
                results = verify.abuse_checks(manifest, cores.take(cpus), shown_all)
            abuse = "pass" if all(r.ok for r in results) else "FAIL"
        overloaded = "-"
        if beyond.overload and tried:
            with console.working(f"  overload {manifest.name} --cpus {cpus}"):
                found = verify.overload_check(manifest, cpus, beyond.overload, shown_all)
            overloaded = {"fail": "FAIL", "skip": "skipped"}.get(found.status, "pass")
            detail = f"{detail}; overload: {found.note or found.skipped or 'not measured'}"
        row = [manifest.name, str(cpus), shown, fuzzed, abuse, overloaded, detail]
        rows.append(Row([Cell(text) for text in row]))
    return rows


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    return lifecycle.run(kinds()[REST], args, console)


def cmd_worker(args: argparse.Namespace, console: Console) -> int:
    return locust.serve_worker(args.master, args.cpus, console.line)


def cmd_micro(args: argparse.Namespace, console: Console) -> int:
    return lifecycle.run(kinds()[MICRO], args, console)


def cmd_capacity(args: argparse.Namespace, console: Console) -> int:
    return lifecycle.run(kinds()[CAPACITY], args, console)


def cmd_soak(args: argparse.Namespace, console: Console) -> int:
    """The soak, after a capacity run of its workload for the implementations with no stored edge
    (one start each: an edge to take a share of, spec/soak.md)."""
    every = kinds()
    if args.rate is None and not args.resume:
        assertion.parse_all(args.assertions, [SOAK])  # refused before the edges are measured
        missing = soak_plan.without_edge(args)
        if missing:
            workload = soak_parameters.load().workload
            console.line(f"arena soak: no stored {workload} edge for {', '.join(missing)}: measuring it first")
            first = argparse.Namespace(
                impl=missing,
                workload=[workload],
                cpus=args.cpus,
                repeat=1,
                slo=None,
                scaling=False,
                db_url=args.db_url,
                resume=None,
                assertions=[],
                junit=None,
            )
            status = lifecycle.run(every[CAPACITY], first, console)
            if status != 0:
                return status
    return lifecycle.run(every[SOAK], args, console)


def cmd_report(args: argparse.Namespace, console: Console) -> int:
    return lifecycle.report(args.run, kinds(), console)


def cmd_findings(args: argparse.Namespace, console: Console) -> int:
    kinds()  # every kind's payload type is known before a measurement is read back
    if (args.measure or args.plan or args.changes) and args.run:
        raise UsageError("--measure, --plan and --changes read the findings suite's runs: name no runs with them")
    if args.resume and not args.measure:
        raise UsageError("--resume continues a --measure")
    if args.measure or args.plan:
        made = findings_suite.plan(findings_catalog.load(), findings_suite.machine(), repetitions(args.repeat))
        if args.plan:
            findings_suite.show(made, console)
            return 0
        status = findings_suite.measure(made, args.resume, main, console)
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
        for j in judged
        if (not args.study or j.finding.study in args.study) and (not args.verdict or j.verdict in args.verdict)
    ]
    made = section(shown, [r.name for r in read])
    console.line(made.heading, style="bold")
    terminal.table(console, made.table)
    for note in made.notes:
        console.line(note)
    return 0


def _changes(store: Store, console: Console) -> int:
    """The verdicts that differ between the findings suite's last two measurements."""
    before, after = runs.last_two_findings_suites(store)
    if not before:
        raise UsageError("--changes needs the findings suite measured twice: `./arena findings --measure` again")
    table = findings_changes(runs.judged(store, before), runs.judged(store, after))
    was, now = {r.name for r in before}, {r.name for r in after}
    changed = f"{', '.join(sorted(was - now))} and {', '.join(sorted(now - was))}"
    console.line(f"{len(table.rows)} verdict(s) differ between runs {changed}", style="bold")
    if table.rows:
        terminal.table(console, table)
    return 0


def cmd_compare(args: argparse.Namespace, console: Console) -> int:
    return compare.run(args, kinds(), console)


def cmd_history(args: argparse.Namespace, console: Console) -> int:
    return compare.show_history(args, kinds(), console)


def cmd_export(args: argparse.Namespace, console: Console) -> int:
    main = kind_main_metrics(kinds())  # also: every kind's payload type is known before one is read back
    noisy = kind_noisy(kinds())
    store = Store()
    try:
        run = store.named(args.run)
        measurements = store.measurements(run.id)
        notes = store.notes(run.id)
    finally:
        store.close()
    verdicts = exported(judge_all(Index(measurements), findings_catalog.load()))
    text = (
        export.as_json(export.document(run, measurements, main, noisy, verdicts, notes))
        if args.format == "json"
        else export.as_csv(run, measurements, args.rows, main, noisy)
    )
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
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


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    manifests = catalog.rows([], catalog.load, console.warn)
    dashboard.serve(args.port, Servers(manifests, console, args.db_url), kinds(), console.line)
    return 0


def cmd_bench_engine(args: argparse.Namespace, console: Console) -> int:
    if args.open:
        return benchmark.open_check(args.impl, args.open, args.seconds, args.repeat, Loadgen(), console)
    return benchmark.run(args.impl, args.seconds, args.repeat, Loadgen(), console)


def cmd_test(args: argparse.Namespace, console: Console) -> int:
    return testsuite.run(args.impl, Loadgen(), console)


# The parents below are made anew for every command that takes them: argparse hands a parent's
# actions to its children by reference, so a default one command sets on a shared parent becomes
# every other's (the soak's one start once made `arena run` measure every point once).


def _tables() -> argparse.ArgumentParser:
    """--wide, for the commands that print tables."""
    tables = argparse.ArgumentParser(add_help=False)
    tables.add_argument("--wide", action="store_true", help="every column of every table, wrapped to the window")
    return tables


def _stored(repeat: int | None, what: str) -> argparse.ArgumentParser:
    """The options of a command whose runs are stored: repetitions, --resume, --assert, --junit."""
    stored = argparse.ArgumentParser(add_help=False, parents=[_tables()])
    stored.add_argument("--repeat", type=int, default=repeat, help=what)
    stored.add_argument(
        "--resume",
        nargs="?",
        const="last",
        metavar="RUN",
        help="continue an interrupted run of this command (default: the last one); its options are kept",
    )
    stored.add_argument(
        "--assert",
        dest="assertions",
        action="append",
        default=[],
        metavar="EXPERIMENT:METRIC<N",
        help='a bound on the run\'s own numbers, e.g. "blog-ab:p99_ms<2100" (<, <=, >, >=); the run exits 1 '
        "when a point's median breaches it (repeatable)",
    )
    stored.add_argument("--junit", metavar="FILE", help="write the assertions' outcomes as JUnit XML")
    return stored


def _suites(*more: str) -> argparse.ArgumentParser:
    """--suite, for the commands whose experiments have a quick and a paper profile (and `more`)."""
    suited = argparse.ArgumentParser(add_help=False)
    suited.add_argument("--suite", choices=["quick", "paper", *more], default="quick", help="(default quick)")
    return suited


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arena", description="Compare how server runtimes handle concurrency.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    s = sub.add_parser("list", parents=[_tables()], help="implementations, availability, versions")
    s.add_argument("impl", nargs="*")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("build", help="install toolchains and build (skipped when up to date)")
    s.add_argument("impl", nargs="*")
    s.add_argument("--force", action="store_true", help="build even when up to date")
    s.set_defaults(func=cmd_build)

    s = sub.add_parser("start", help="run one server in the foreground; Ctrl-C stops it")
    s.add_argument("impl")
    s.add_argument("--cpus", type=int, default=1)
    s.add_argument("--port", type=int, default=8080)
    s.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="ARENA_NAME=VALUE",
        help="a contract setting, e.g. --set ARENA_BCRYPT_COST=4 (repeatable)",
    )
    options.db_url(s)
    s.set_defaults(func=cmd_start)

    s = sub.add_parser("verify", parents=[_tables()], help="conformance checks on live servers")
    s.add_argument("impl", nargs="*")
    options.budgets(s, "1,2")
    options.db_url(s)
    s.add_argument("--fuzz", action="store_true", help="then fuzz each server from spec/api.yaml (Schemathesis)")
    s.add_argument("--examples", type=int, default=100, help="the fuzzer's cases per operation and phase (default 100)")
    s.add_argument(
        "--abuse",
        action="store_true",
        help="then the abuse checks (arena/checks/abuse.py): slowloris, idle connections, oversized headers and "
        "bodies, ambiguous framing",
    )
    s.add_argument(
        "--overload",
        action="store_true",
        help="then twice the sustained rate for 10 s: time to recover (arena/checks/overload.py)",
    )
    s.set_defaults(func=cmd_verify)

    # The measuring commands: each kind declares its own options, its stored runs take the rest.
    for kind, func in ((RestKind, cmd_run), (MicroKind, cmd_micro), (CapacityKind, cmd_capacity), (SoakKind, cmd_soak)):
        suites = [_suites(FINDINGS)] if kind.suited else []
        s = sub.add_parser(kind.command, parents=[_stored(kind.repeat, kind.repeat_help), *suites], help=kind.help)
        kind.arguments(s)
        s.set_defaults(func=func)

    s = sub.add_parser(
        "worker", help="a Locust worker for a master elsewhere (arena run --engine locust --remote-workers)"
    )
    s.add_argument("--master", required=True, metavar="HOST[:PORT]", help="the master's address (port default 5557)")
    s.add_argument("--cpus", help="cores to pin it to, e.g. 1 (default: any)")
    s.set_defaults(func=cmd_worker)

    s = sub.add_parser("report", parents=[_tables()], help="print a stored run's summary again, rewrite its summary.md")
    s.add_argument("run", nargs="?", default="last", help="run name (default: the last run)")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser(
        "findings", help="a verdict on every finding of the seed studies, from the newest runs or those named"
    )
    s.add_argument("run", nargs="*", default=[], help="runs to read (default: the newest of each kind)")
    s.add_argument("--study", nargs="*", choices=STUDIES, default=[], help="only these studies' findings")
    s.add_argument("--verdict", nargs="*", choices=[str(v) for v in Verdict], default=[], help="only these verdicts")
    findings_suite.add_options(s)
    s.set_defaults(func=cmd_findings)

    s = compare.add_parser(sub, _tables())
    s.set_defaults(func=cmd_compare)
    s = compare.add_history_parser(sub, _tables())
    s.set_defaults(func=cmd_history)

    s = sub.add_parser("export", help="a stored run as JSON or CSV for scripts and notebooks (spec/export.md)")
    s.add_argument("run", nargs="?", default="last", help="run name (default: the last run)")
    s.add_argument("--format", choices=["json", "csv"], default="json")
    s.add_argument(
        "--rows",
        choices=["measurements", "summaries"],
        default="measurements",
        help="CSV only: a row per measurement (default), or per point over its repetitions",
    )
    s.add_argument("--out", metavar="FILE", help="write it here instead of standard output")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("import", help="runs exported on other machines (arena export) into this store")
    s.add_argument("file", nargs="+", help="JSON files of arena export")
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("serve", help="the dashboard on 127.0.0.1: runs, comparisons, and a console to try servers")
    s.add_argument("--port", type=int, default=8765, help="its port (default 8765)")
    options.db_url(s)
    s.set_defaults(func=cmd_serve)

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

    s = sub.add_parser("test", help="unit tests, each implementation's own tests, conformance")
    s.add_argument("impl", nargs="*")
    s.set_defaults(func=cmd_test)
    return p


def _stop(signum: int, _frame: object) -> None:
    """The first stop signal ends the command through KeyboardInterrupt; those after it are ignored,
    so that a second Ctrl-C (or a supervisor's SIGTERM after it) cannot cut short the stopping of
    servers and databases that the first one began, and leave them running."""
    for stop in STOP_SIGNALS:
        if signal.getsignal(stop) is _stop:
            signal.signal(stop, signal.SIG_IGN)
    raise KeyboardInterrupt(f"signal {signum}")


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def handle_stop_signals() -> None:
    """Ctrl-C, SIGTERM and SIGHUP stop the command the same way, through KeyboardInterrupt, even when
    the shell that started us in the background had told SIGINT to be ignored. SIGHUP is a closed
    terminal or a lost SSH session, unless `nohup` asked us to outlive it (and set it to be ignored)."""
    for stop in STOP_SIGNALS:
        if stop != signal.SIGHUP or signal.getsignal(stop) is not signal.SIG_IGN:
            signal.signal(stop, _stop)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    console = Console(wide=getattr(args, "wide", False))
    handle_stop_signals()
    try:
        return args.func(args, console)
    except ArenaError as err:
        console.error(err.line())
        return err.status
    except KeyboardInterrupt:
        console.error("interrupted; every server it started has been stopped")
        return 130
