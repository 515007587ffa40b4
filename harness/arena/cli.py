"""The `arena` command line: list, build, start, verify, run, micro, report, test."""

from __future__ import annotations

import argparse
import signal
import sys
import time

from arena import benchmark, campaign, testsuite
from arena import build as builder
from arena.catalog import Manifest
from arena.micro import campaign as micro_campaign
from arena.pipeline import UsageError, cores_for, cpu_budgets, load, load_both, prepare, verify_one
from arena.process import ServerError, running
from arena.report import table
from arena.toolchain import Toolchains, runtime_version

# --- commands ----------------------------------------------------------------------------------


def _status(m: Manifest, toolchains: Toolchains) -> tuple[str, str]:
    """(runtime version, availability) of one row, installing nothing."""
    if m.unavailable:
        return "-", f"unavailable: {m.unavailable}"
    state = toolchains.check(m)
    if not state.ok:
        return "-", f"unavailable: {state.reason} (installed on build)"
    return runtime_version(m), "available"


def cmd_list(args: argparse.Namespace) -> int:
    toolchains = Toolchains()
    servers, micro = load_both(args.impl)
    if servers:
        rows = []
        for m in servers:
            version, status = _status(m, toolchains)
            cores = "any" if m.max_cpus == 0 else str(m.max_cpus)
            rows.append([m.name, m.language, version, m.framework, ",".join(m.seeds) or "none", cores, status])
        print("REST implementations (servers/)")
        print(table(["impl", "language", "runtime version", "framework", "seeds", "max cores", "status"], rows))
    if micro:
        rows = []
        for m in micro:
            version, status = _status(m, toolchains)
            cores = "-" if m.unavailable else "any" if m.max_cpus == 0 else str(m.max_cpus)
            rows.append([m.name, m.language, version, m.framework, m.payload or "-", ",".join(m.seeds) or "none",
                         cores, status])  # fmt: skip
        print("\nmicro-benchmarks (micro/)" if servers else "micro-benchmarks (micro/)")
        headers = ["impl", "language", "runtime version", "concurrency", "payload", "seeds", "max cores", "status"]
        print(table(headers, rows))
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    toolchains = Toolchains()
    servers, micro = load_both(args.impl)
    builds: dict[str, Manifest] = {}
    for m in servers + micro:
        if m.unavailable:
            print(f"  {m.name}: unavailable: {m.unavailable}")
        else:
            builds.setdefault(m.build_key, m)  # a variant shares its folder's build
    prepared = [prepare(m, toolchains, force=args.force) for m in builds.values()]
    return 0 if all(p.ok for p in prepared) else 1


def parse_settings(pairs: list[str]) -> dict[str, str]:
    settings = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.startswith("ARENA_"):
            raise UsageError(f"--set {pair!r}: expected ARENA_NAME=value (see spec/README.md)")
        settings[key] = value
    return settings


def cmd_start(args: argparse.Namespace) -> int:
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: choose 1..65535")
    settings = parse_settings(args.set)
    cores = cores_for(args.cpus)
    (manifest,) = load([args.impl])
    if manifest.cpus_for(args.cpus) != args.cpus:
        raise UsageError(f"{manifest.name} uses at most {manifest.max_cpus} core(s); --cpus {args.cpus} is too many")
    if not prepare(manifest, Toolchains()).ok:
        return 1
    with running(manifest, args.cpus, args.port, settings, cores) as server:
        print(
            f"{manifest.name} serves http://127.0.0.1:{args.port}/ on core(s) {cores}; "
            f"log {server.log}\nCtrl-C stops it.",
            flush=True,
        )
        while server.alive():
            time.sleep(0.5)
        print(
            f"{manifest.name} exited by itself (status {server.process.returncode}); log tail:\n"
            f"{builder.tail(server.log)}"
        )
        return 1


def cmd_verify(args: argparse.Namespace) -> int:
    budgets = cpu_budgets(args.cpus)
    toolchains = Toolchains()
    rows, all_ok = [], True
    for manifest in load(args.impl):
        prepared = prepare(manifest, toolchains)
        for cpus in budgets:
            if not prepared.ok:
                rows.append([manifest.name, cpus, "unavailable", prepared.reason])
                all_ok = False
                continue
            ok, outcome = verify_one(manifest, cpus)
            skipped = outcome.startswith("skipped")
            all_ok &= ok or skipped
            rows.append([manifest.name, cpus, "skipped" if skipped else "pass" if ok else "FAIL", outcome])
    print()
    print(table(["impl", "cpus", "conformance", "detail"], rows))
    return 0 if all_ok else 1


def cmd_run(args: argparse.Namespace) -> int:
    return campaign.run(args)


def cmd_micro(args: argparse.Namespace) -> int:
    return micro_campaign.run(args)


def cmd_report(args: argparse.Namespace) -> int:
    return campaign.report(args.run)


def cmd_bench_engine(args: argparse.Namespace) -> int:
    return benchmark.run(args.impl, args.seconds, args.repeat)


def cmd_test(args: argparse.Namespace) -> int:
    return testsuite.run(args.impl)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="arena", description="Compare how server runtimes handle concurrency.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("list", help="implementations, availability, versions")
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
    s.set_defaults(func=cmd_start)

    s = sub.add_parser("verify", help="conformance checks on live servers")
    s.add_argument("impl", nargs="*")
    s.add_argument("--cpus", help="core budgets, e.g. 1 or 1,2 (default: 1,2)")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("run", help="the main job: install, build, verify, measure every experiment, report")
    s.add_argument("--suite", choices=["quick", "paper"], default="quick")
    s.add_argument("--impl", nargs="*", default=[], help="implementations (default: all available)")
    s.add_argument("--scenario", nargs="*", default=[], help="experiments of spec/scenarios/ (default: all)")
    s.add_argument("--cpus", help="core budgets, e.g. 1 or 1,2 (default: 1, 2, 4, … leaving a core for the engine)")
    s.add_argument("--repeat", type=int, default=3, help="repetitions of every point (default 3)")
    s.add_argument(
        "--resume",
        nargs="?",
        const="last",
        metavar="RUN",
        help="continue an interrupted run (default: the last one); its options are kept",
    )
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("micro", help="the actor and process micro-benchmarks of spec/micro.md, measured and reported")
    s.add_argument("--suite", choices=["quick", "paper"], default="quick")
    s.add_argument("--impl", nargs="*", default=[], help="runtimes of micro/ (default: all available)")
    s.add_argument("--bench", nargs="*", default=[], help="pingping pingpong spawn throughput ring (default: all)")
    s.add_argument("--cpus", help="core budgets, e.g. 1 or 1,2 (default: each bench's own, spec/micro.toml)")
    s.add_argument("--repeat", type=int, default=3, help="repetitions of every point (default 3)")
    s.add_argument(
        "--resume",
        nargs="?",
        const="last",
        metavar="RUN",
        help="continue an interrupted micro run (default: the last one); its options are kept",
    )
    s.set_defaults(func=cmd_micro)

    s = sub.add_parser("report", help="print a stored run's summary again and rewrite its summary.md")
    s.add_argument("run", nargs="?", default="last", help="run name (default: the last run)")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("bench-engine", help="the load engine against wrk on one server core")
    s.add_argument("--impl", default="go", help="server to load (default: go)")
    s.add_argument("--seconds", type=int, default=5, help="length of each measurement (default 5)")
    s.add_argument("--repeat", type=int, default=3, help="alternating runs of each tool (default 3)")
    s.set_defaults(func=cmd_bench_engine)

    s = sub.add_parser("test", help="unit tests, each implementation's own tests, conformance")
    s.add_argument("impl", nargs="*")
    s.set_defaults(func=cmd_test)
    return p


def _terminate(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Both stop the command the same way, through KeyboardInterrupt, even when the shell that
    # started us in the background had told SIGINT to be ignored.
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return args.func(args)
    except UsageError as err:
        print(f"arena: {err}", file=sys.stderr)
        return 2
    except ServerError as err:
        print(f"arena: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\narena: interrupted; every server it started has been stopped", file=sys.stderr)
        return 130
