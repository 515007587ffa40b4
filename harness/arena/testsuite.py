"""`arena test`: the harness's own tests, each implementation's tests, and conformance on each.

Every step is reported as passed, failed or skipped (with the reason); the last line is the plain
`N passed, N failed, N skipped` and the exit status is non-zero on any failure.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from arena import engine
from arena.build import tail
from arena.catalog import RESULTS, ROOT, Manifest
from arena.micro import conformance as micro_conformance
from arena.pipeline import cpu_budgets, load_both, prepare, print_check, verify_one
from arena.report import indent
from arena.toolchain import Toolchains

STEP_TIMEOUT = 1800
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


def command_step(name: str, command: list[str], cwd: Path, log_name: str) -> Step:
    """Runs a test command with its output in a log; shows its last line, or its tail on failure."""
    log = RESULTS / "logs" / f"test-{log_name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    print(f"  {name}...", end="", flush=True)
    try:
        with log.open("w") as out:
            done = subprocess.run(
                command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=STEP_TIMEOUT, check=False
            )
        ok = done.returncode == 0
        detail = f"exit status {done.returncode}"
    except FileNotFoundError:
        ok, detail = False, f"command not found: {command[0]}"
    except subprocess.TimeoutExpired:
        ok, detail = False, f"timed out after {STEP_TIMEOUT} s"
    if ok:
        summary = last_summary(log)
        print(f" passed ({summary})")
        return Step(name, "passed", summary)
    print(f" FAILED: {detail}; log {log}\n{indent(tail(log, 40))}")
    return Step(name, "failed", detail)


def engine_steps(toolchains: Toolchains) -> list[Step]:
    """The load engine: built (the harness's integration tests use it), formatted, linted, tested."""
    print("  load engine: building...", end="", flush=True)
    try:
        engine.ensure_built(toolchains)
    except engine.EngineError as err:
        print(f" FAILED: {err}")
        return [Step("engine build (cargo build --release)", "failed", str(err).splitlines()[0])]
    print(" done")
    cargo = [
        ("engine format (cargo fmt)", ["cargo", "fmt", "--check"], "cargo-fmt"),
        ("engine lint (cargo clippy)", ["cargo", "clippy", "--all-targets", "--locked", "--", "-D", "warnings"],
         "cargo-clippy"),
        ("engine unit tests (cargo test)", ["cargo", "test", "--locked"], "cargo-test"),
    ]  # fmt: skip
    built = Step("engine build (cargo build --release)", "passed")
    return [built] + [command_step(name, command, engine.LOADGEN, log) for name, command, log in cargo]


def micro_steps(manifest: Manifest, toolchains: Toolchains) -> list[Step]:
    """A micro-benchmark row: built, its folder's own tests (once, not per variant), and every
    bench's check values at small sizes with each core budget it takes."""
    name = f"micro {manifest.name}"
    print(f"\n{name}")
    if manifest.unavailable:
        print(f"  unavailable: {manifest.unavailable}")
        return [Step(f"{name}: build", "skipped", f"unavailable: {manifest.unavailable}")]
    prepared = prepare(manifest, toolchains)
    if not prepared.ok:
        return [Step(f"{name}: build", "skipped" if prepared.unavailable else "failed", prepared.reason)]
    steps = []
    if manifest.test_command and manifest.name == manifest.folder.name:
        steps.append(command_step(f"{name}: own tests", manifest.test_command, manifest.folder, manifest.build_key))
    for cpus in cpu_budgets(None):
        if manifest.cpus_for(cpus) != cpus:
            steps.append(Step(f"{name}: checks --cpus {cpus}", "skipped", f"uses at most {manifest.max_cpus} core(s)"))
            continue
        print(f"  checks {manifest.name} --cpus {cpus}")
        results = micro_conformance.checks(manifest, cpus, print_check)
        failed = [r for r in results if not r.ok]
        outcome = f"{len(results) - len(failed)}/{len(results)} checks passed"
        steps.append(Step(f"{name}: checks --cpus {cpus}", "failed" if failed else "passed", outcome))
    return steps


def run(names: list[str]) -> int:
    python = sys.executable
    toolchains = Toolchains()
    steps = [
        command_step("python lint (ruff check)", [python, "-m", "ruff", "check", "."], ROOT, "ruff"),
        command_step(
            "python format (ruff format)",
            [python, "-m", "ruff", "format", "--check", "."],
            ROOT,
            "ruff-format",
        ),
        *engine_steps(toolchains),
        command_step(
            "harness unit tests (pytest)",
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
            ROOT / "harness",
            "harness",
        ),
    ]
    servers, micro = load_both(names)
    for manifest in servers:
        print(f"\n{manifest.name}")
        prepared = prepare(manifest, toolchains)
        if not prepared.ok:
            outcome = "skipped" if prepared.unavailable else "failed"
            steps.append(Step(f"{manifest.name}: build", outcome, prepared.reason))
            continue
        if manifest.test_command:
            steps.append(
                command_step(f"{manifest.name}: own tests", manifest.test_command, manifest.folder, manifest.name)
            )
        for cpus in cpu_budgets(None):
            ok, outcome = verify_one(manifest, cpus)
            state = "skipped" if outcome.startswith("skipped") else "passed" if ok else "failed"
            steps.append(Step(f"{manifest.name}: conformance --cpus {cpus}", state, outcome))
    for manifest in micro:
        steps += micro_steps(manifest, toolchains)

    print("\nsummary")
    for step in steps:
        print(f"  {step.outcome:7}  {step.name}" + (f"  ({step.detail})" if step.detail else ""))
    counts = {state: sum(s.outcome == state for s in steps) for state in ("passed", "failed", "skipped")}
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0
