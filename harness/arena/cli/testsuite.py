"""`arena test`: the harness's own tests, each implementation's tests, conformance, a bounded
fuzzing and the abuse checks on each.

Every step is reported as passed, failed or skipped (with the reason); the last line is the plain
`N passed, N failed, N skipped` and the exit status is non-zero on any failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from arena.checks import fuzz, verify
from arena.checks.result import show_check, verdict
from arena.console import Console, indent
from arena.engines.interface import EngineError
from arena.engines.loadgen import LOADGEN, Loadgen
from arena.host import cores
from arena.host.database import Database, database
from arena.impls import catalog
from arena.impls.build import tail
from arena.impls.catalog import Manifest
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains
from arena.micro import conformance as micro_conformance
from arena.paths import RESULTS, ROOT

STEP_TIMEOUT = 1800
FUZZ_EXAMPLES = 20  # the fuzzer's cases per operation and phase here; arena verify --fuzz runs 100
# The closing lines of the test runners we run: go test, cargo, mix, EUnit, surefire, node, unittest, ...
SUMMARY_LINE = r"\b(passed|pass|ok)\b|\d+ tests?, \d+ failures?|Tests run: \d+, Failures: \d+|Ran \d+ tests?"


@dataclass
class Step:
    name: str
    outcome: str  # passed | failed | skipped
    detail: str = ""


def last_summary(log: Path) -> str:
    """The runner's closing count ('34 passed', 'ok ...', '# pass 30'), else its last line."""
    lines = [line.strip() for line in tail(log, 30).splitlines() if line.strip()]
    counted = [line for line in lines if re.search(SUMMARY_LINE, line)]
    return (counted or lines or ["no output"])[-1]


def command_step(
    name: str, command: list[str], cwd: Path, log_name: str, console: Console, env: dict[str, str] | None = None
) -> Step:
    """Runs a test command with its output in a log; shows its last line, or its tail on failure."""
    log = RESULTS / "logs" / f"test-{log_name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with console.working(f"  {name}"):
        ok, detail = _run(command, cwd, log, {**os.environ, **(env or {})})
    if ok:
        summary = last_summary(log)
        console.line(f"  {name}: passed ({summary})")
        return Step(name, "passed", summary)
    console.line(f"  {name}: FAILED: {detail}; log {log}\n{indent(tail(log, 40))}")
    return Step(name, "failed", detail)


def _run(command: list[str], cwd: Path, log: Path, env: dict[str, str]) -> tuple[bool, str]:
    try:
        with log.open("w") as out:
            done = subprocess.run(
                command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=STEP_TIMEOUT, check=False
            )
        ok = done.returncode == 0
        detail = f"exit status {done.returncode}"
    except FileNotFoundError:
        ok, detail = False, f"command not found: {command[0]}"
    except subprocess.TimeoutExpired:
        ok, detail = False, f"timed out after {STEP_TIMEOUT} s"
    return ok, detail


def engine_steps(engine: Loadgen, toolchains: Toolchains, console: Console) -> list[Step]:
    """The load engine: built (the harness's integration tests use it), formatted, linted, tested."""
    try:
        with console.working("  load engine: building"):
            engine.ensure(toolchains)
    except EngineError as err:
        console.line(f"  load engine: build FAILED: {err.line()}")
        return [Step("engine build (cargo build --release)", "failed", err.line())]
    console.line("  load engine: built")
    cargo = [
        ("engine format (cargo fmt)", ["cargo", "fmt", "--check"], "cargo-fmt"),
        (
            "engine lint (cargo clippy)",
            ["cargo", "clippy", "--all-targets", "--locked", "--", "-D", "warnings"],
            "cargo-clippy",
        ),
        ("engine unit tests (cargo test)", ["cargo", "test", "--locked"], "cargo-test"),
    ]
    built = Step("engine build (cargo build --release)", "passed")
    return [built] + [command_step(name, command, LOADGEN, log, console) for name, command, log in cargo]


def built(manifest: Manifest, name: str, toolchains: Toolchains, console: Console) -> Step | None:
    """None when the implementation is ready; else the step that says why not."""
    prepared = prepare(manifest, toolchains, console)
    if prepared.ok:
        return None
    return Step(f"{name}: build", "skipped" if prepared.unavailable else "failed", prepared.reason)


def server_steps(manifest: Manifest, toolchains: Toolchains, db: Database, console: Console) -> list[Step]:
    """A REST implementation: built, its own tests (given the database in ARENA_DB_URL, for their
    /record tests), conformance with each core budget, the fuzzer and the abuse checks on one core."""
    console.line(f"\n{manifest.name}", style="bold")
    if failed := built(manifest, manifest.name, toolchains, console):
        return [failed]
    steps = []
    if manifest.test_command:
        own = command_step(
            f"{manifest.name}: own tests",
            manifest.test_command,
            manifest.folder,
            manifest.name,
            console,
            env={"ARENA_DB_URL": db.url},
        )
        steps.append(own)
    for cpus in cores.verified_budgets(None):
        found = verify.suite(manifest, cpus, db, console)
        steps.append(Step(f"{manifest.name}: conformance --cpus {cpus}", found.status, found.detail))
    with console.working(f"  fuzz {manifest.name} --cpus 1"):
        fuzzed = fuzz.fuzz(manifest, cores.take(1), db, FUZZ_EXAMPLES)
    show_check(console, fuzzed)
    steps.append(Step(f"{manifest.name}: fuzz --cpus 1", "passed" if fuzzed.ok else "failed", fuzzed.detail()))
    with console.working(f"  abuse {manifest.name} --cpus 1"):
        abused = verify.abuse_checks(manifest, cores.take(1), lambda result: show_check(console, result))
    steps.append(
        Step(f"{manifest.name}: abuse --cpus 1", "passed" if all(r.ok for r in abused) else "failed", verdict(abused))
    )
    return steps


def micro_steps(manifest: Manifest, toolchains: Toolchains, console: Console) -> list[Step]:
    """A micro-benchmark row: built, its folder's own tests (once, not per variant), and every
    bench's check values at small sizes with each core budget it takes."""
    name = f"micro {manifest.name}"
    console.line(f"\n{name}", style="bold")
    if failed := built(manifest, name, toolchains, console):
        return [failed]
    steps = []
    if manifest.test_command and manifest.name == manifest.folder.name:
        steps.append(
            command_step(f"{name}: own tests", manifest.test_command, manifest.folder, manifest.build_key, console)
        )
    for cpus in cores.verified_budgets(None):
        if manifest.cpus_for(cpus) != cpus:
            steps.append(Step(f"{name}: checks --cpus {cpus}", "skipped", f"uses at most {manifest.max_cpus} core(s)"))
            continue
        with console.working(f"  checks {manifest.name} --cpus {cpus}"):
            results = micro_conformance.checks(manifest, cpus, lambda result: show_check(console, result))
        line = verdict(results)
        console.line(f"  checks {manifest.name} --cpus {cpus}: {line}")
        steps.append(Step(f"{name}: checks --cpus {cpus}", "passed" if all(r.ok for r in results) else "failed", line))
    return steps


def run(names: list[str], engine: Loadgen, console: Console) -> int:
    python = sys.executable
    toolchains = Toolchains(say=console.line)
    servers, micro = catalog.servers_and_micro(names, console.warn)
    steps = [
        command_step("python lint (ruff check)", [python, "-m", "ruff", "check", "."], ROOT, "ruff", console),
        command_step(
            "python format (ruff format)",
            [python, "-m", "ruff", "format", "--check", "."],
            ROOT,
            "ruff-format",
            console,
        ),
        *engine_steps(engine, toolchains, console),
        command_step(
            "harness unit tests (pytest)",
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            ROOT / "harness",
            "harness",
            console,
        ),
    ]
    if servers:
        with database() as db:
            console.line(f"\n/record uses {db.described}")
            for manifest in servers:
                steps += server_steps(manifest, toolchains, db, console)
    for manifest in micro:
        steps += micro_steps(manifest, toolchains, console)

    console.line("\nsummary", style="bold")
    for step in steps:
        console.line(f"  {step.outcome:7}  {step.name}" + (f"  ({step.detail})" if step.detail else ""))
    counts = {state: sum(s.outcome == state for s in steps) for state in ("passed", "failed", "skipped")}
    console.line(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0
