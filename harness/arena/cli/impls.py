"""The commands on implementations: `list` (what there is, its versions and status), `build`,
`start` (one server in the foreground) and `verify` (conformance, with fuzzing, abuse and overload
on request)."""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

from arena import options
from arena.checks import fuzz, verify
from arena.checks.result import CheckResult, show_check
from arena.console import Console
from arena.engines.interface import LoadEngine
from arena.engines.loadgen import Loadgen
from arena.errors import UsageError
from arena.host import cores
from arena.host.database import Database, database
from arena.host.process import running
from arena.impls import build as builder
from arena.impls import catalog
from arena.impls.catalog import Manifest
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains, runtime_version
from arena.report.render import terminal
from arena.report.tables import Cell, Column, Row, Table


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


def _setups(rows: list[Manifest], m: Manifest) -> list[Manifest]:
    """The rows of the same implementation as `m`: its setups."""
    return [other for other in rows if other.impl == m.impl]


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
        else:
            columns[4:4] = [Column("setup"), Column("class"), Column("processes")]
        body = []
        for m in rows:
            version, status = _status(m, toolchains)
            cells = [
                Cell(m.name),
                Cell(m.language),
                Cell(m.runtime),
                Cell(version),
                Cell(m.framework),
                Cell(",".join(m.setup.seeds if len(_setups(rows, m)) > 1 else m.seeds) or "none"),
                Cell(_cores(m)),
                Cell(status),
                Cell(m.cores_how),
            ]
            if rows is micro:
                cells.insert(5, Cell(m.payload or "-"))
            else:
                setup = m.setup
                shown = f"{setup.name}{' (default)' if m.default and len(_setups(rows, m)) > 1 else ''}"
                processes = catalog.PROCESSES.get(setup.processes, "-")
                cells[4:4] = [Cell(shown or "-"), Cell(setup.klass or "-"), Cell(processes)]
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
    manifest = catalog.one(catalog.rows([args.impl], catalog.load, console.warn), args.impl)
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
                        Cell(manifest.shown),
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
        verdict = verify.verified(manifest, cpus, db, console, verbose=True)
        shown = {"passed": "pass", "failed": "FAIL", "skipped": "skipped"}[verdict.status]
        fuzzed, detail = "-", verdict.detail
        tried = verdict.status != "skipped"
        if beyond.examples and tried:
            with console.working(f"  fuzz {manifest.shown} --cpus {cpus}"):
                result = fuzz.fuzz(manifest, cores.take(cpus), db, beyond.examples)
            show_check(console, result, verbose=True)
            fuzzed, detail = ("pass" if result.ok else "FAIL"), f"{detail}; fuzz: {result.note}"
        abuse = "-"
        if beyond.abuse and tried:
            with console.working(f"  abuse {manifest.shown} --cpus {cpus}"):
                results = verify.abuse_checks(manifest, cores.take(cpus), shown_all)
            abuse = "pass" if all(r.ok for r in results) else "FAIL"
        overloaded = "-"
        if beyond.overload and tried:
            with console.working(f"  overload {manifest.shown} --cpus {cpus}"):
                found = verify.overload_check(manifest, cpus, beyond.overload, shown_all)
            overloaded = {"fail": "FAIL", "skip": "skipped"}.get(found.status, "pass")
            detail = f"{detail}; overload: {found.note or found.skipped or 'not measured'}"
        row = [manifest.shown, str(cpus), shown, fuzzed, abuse, overloaded, detail]
        rows.append(Row([Cell(text) for text in row]))
    return rows


def add_parsers(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("list", parents=[options.wide()], help="implementations, availability, versions")
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

    s = sub.add_parser("verify", parents=[options.wide()], help="conformance checks on live servers")
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
