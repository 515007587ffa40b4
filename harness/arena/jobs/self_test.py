"""`arena test`: the harness's own tests, each implementation's tests, conformance, a bounded
fuzzing and the abuse checks on each.

Every step is reported as passed, failed or skipped (with the reason) and its time; then the time
each part took (the Python checks, the load engine, the harness's tests, each implementation), longest
first, so that a slow suite says where; the last line is the plain `N passed, N failed, N skipped`
and the exit status is non-zero on any failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
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
from arena.impls.prepare import Prepared, prepare
from arena.impls.toolchain import Toolchains
from arena.micro import conformance as micro_conformance
from arena.paths import RESULTS, ROOT

STEP_TIMEOUT = 1800
FUZZ_EXAMPLES = 20  # the fuzzer's cases per operation and phase here; arena verify --fuzz runs 100
ABUSE_WINDOW_S = 2  # how long each abuse goes on here; arena verify --abuse holds it 5 s
# The closing lines of the test runners we run: go test, cargo, mix, EUnit, surefire, node, unittest, ...
SUMMARY_LINE = r"\b(passed|pass|ok)\b|\d+ tests?, \d+ failures?|Tests run: \d+, Failures: \d+|Ran \d+ tests?"


@dataclass
class Step:
    name: str
    outcome: str  # passed | failed | skipped
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Part:
    """A part of the suite and its wall time: the Python checks, the engine, one implementation, ..."""

    name: str
    seconds: float


class Stopwatch:
    def __init__(self) -> None:
        self.started = time.monotonic()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started


@contextmanager
def timed(parts: list[Part], name: str) -> Iterator[None]:
    """Adds the time of the block to `parts` as `name`, however the block ends."""
    watch = Stopwatch()
    try:
        yield
    finally:
        parts.append(Part(name, watch.seconds))


def time_lines(parts: list[Part]) -> list[str]:
    """Where the suite's time went: each part, longest first, with its share of the whole."""
    total = sum(part.seconds for part in parts)
    width = max((len(part.name) for part in parts), default=0)
    lines = [
        f"  {part.name:{width}}  {part.seconds:6.0f} s  {part.seconds / total:4.0%}"
        for part in sorted(parts, key=lambda part: -part.seconds)
        if total > 0
    ]
    return [*lines, f"  {'in all':{width}}  {total:6.0f} s"]


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
    watch = Stopwatch()
    with console.working(f"  {name}"):
        ok, detail = _run(command, cwd, log, {**os.environ, **(env or {})})
    if ok:
        summary = last_summary(log)
        console.line(f"  {name}: passed ({summary})")
        return Step(name, "passed", summary, watch.seconds)
    console.line(f"  {name}: FAILED: {detail}; log {log}\n{indent(tail(log, 40))}")
    return Step(name, "failed", detail, watch.seconds)


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
    watch = Stopwatch()
    try:
        with console.working("  load engine: building"):
            engine.ensure(toolchains)
    except EngineError as err:
        console.line(f"  load engine: build FAILED: {err.line()}")
        return [Step("engine build (cargo build --release)", "failed", err.line(), watch.seconds)]
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
    built = Step("engine build (cargo build --release)", "passed", seconds=watch.seconds)
    return [built] + [command_step(name, command, LOADGEN, log, console) for name, command, log in cargo]


class Recorded(Console):
    """A console that keeps its lines: what the build lane says about an implementation, shown
    when that implementation's turn comes (a terminal's spinner cannot be shared by two threads)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def line(self, text: str = "", style: str | None = None) -> None:
        self.lines.append(text)

    @contextmanager
    def working(self, text: str) -> Iterator[None]:
        yield


@dataclass
class Build:
    """One implementation's install and build, done in the build lane."""

    prepared: Prepared
    said: list[str]
    seconds: float


@dataclass
class OwnTests:
    """A server's own tests, run in the test lane once its build is done; None when it has none or
    its build failed (its turn says why)."""

    step: Step | None
    said: list[str]


class Lane:
    """Installs and builds implementations one after another, on a thread of its own; what each
    says (its toolchain's installs included) is kept with its build. A second thread runs each
    server's own tests as soon as it is built: they time nothing, so they go beside the builds and
    the micro-benchmarks' checks rather than after them. Neither goes beside the harness's tests,
    which time real servers: builds there at nice 19 made a search of a server of known capacity
    stop 9% short of it (451 requests/s of 497)."""

    def __init__(self) -> None:
        self.said = Recorded()
        self.toolchains = Toolchains(say=lambda text: self.said.line(text))
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="build")
        self.tests = ThreadPoolExecutor(max_workers=1, thread_name_prefix="own-tests")

    def submit(self, manifest: Manifest) -> Future[Build]:
        return self.pool.submit(self._build, manifest)

    def test(self, manifest: Manifest, building: Future[Build], db: Database) -> Future[OwnTests]:
        return self.tests.submit(self._own_tests, manifest, building, db)

    def _build(self, manifest: Manifest) -> Build:
        watch, self.said = Stopwatch(), Recorded()
        prepared = prepare(manifest, self.toolchains, self.said)
        return Build(prepared, self.said.lines, watch.seconds)

    @staticmethod
    def _own_tests(manifest: Manifest, building: Future[Build], db: Database) -> OwnTests:
        """Its own tests, given the database in ARENA_DB_URL for their /record tests: once a folder,
        with its default setup (they test every setup its one build makes)."""
        if not manifest.default:
            return OwnTests(None, [f"  {manifest.shown}: own tests: run with {manifest.impl}'s default setup above"])
        if not manifest.test_command or not building.result().prepared.ok:
            return OwnTests(None, [])
        said = Recorded()
        name, env = f"{manifest.name}: own tests", {"ARENA_DB_URL": db.url}
        step = command_step(name, manifest.test_command, manifest.folder, manifest.name, said, env=env)
        return OwnTests(step, said.lines)

    def close(self) -> None:
        """Drops the builds and tests not begun (after Ctrl-C) and waits for those under way."""
        self.pool.shutdown(cancel_futures=True)
        self.tests.shutdown(cancel_futures=True)


def built(building: Future[Build], name: str, console: Console) -> Step | None:
    """None when the implementation is ready; else the step that says why not. Shows what its
    build said, and how long it was waited for (its build ran beside the steps before it)."""
    watch = Stopwatch()
    done = building.result()
    for line in done.said:
        console.line(line)
    if done.prepared.ok:
        return None
    outcome = "skipped" if done.prepared.unavailable else "failed"
    return Step(f"{name}: build", outcome, done.prepared.reason, watch.seconds)


def server_steps(
    manifest: Manifest, building: Future[Build], tested: Future[OwnTests], db: Database, console: Console
) -> list[Step]:
    """A REST implementation's setup: built, its folder's own tests (run in the test lane, once a
    folder), conformance with each core budget, the fuzzer and the abuse checks on one core."""
    console.line(f"\n{manifest.shown}", style="bold")
    if failed := built(building, manifest.name, console):
        return [failed]
    own = tested.result()
    for line in own.said:
        console.line(line)
    steps = [own.step] if own.step else []
    budgets = cores.verified_budgets(None)
    for cpus in budgets:
        watch = Stopwatch()
        # A URL is read at start the same way whatever the core budget: its forms, one start each,
        # are checked with the first budget only (`arena verify` checks them with every budget).
        checked = (
            "" if cpus == budgets[0] else f"checked with --cpus {budgets[0]} above (arena verify checks them here too)"
        )
        found = verify.verified(manifest, cpus, db, console, forms_checked=checked)
        steps.append(Step(f"{manifest.shown}: conformance --cpus {cpus}", found.status, found.detail, watch.seconds))
    watch = Stopwatch()
    with console.working(f"  fuzz {manifest.shown} --cpus 1"):
        fuzzed = fuzz.fuzz(manifest, cores.take(1), db, FUZZ_EXAMPLES)
    show_check(console, fuzzed)
    outcome = "passed" if fuzzed.ok else "failed"
    steps.append(Step(f"{manifest.shown}: fuzz --cpus 1", outcome, fuzzed.detail(), watch.seconds))
    watch = Stopwatch()
    with console.working(f"  abuse {manifest.shown} --cpus 1"):
        abused = verify.abuse_checks(manifest, cores.take(1), lambda r: show_check(console, r), ABUSE_WINDOW_S)
    outcome = "passed" if all(r.ok for r in abused) else "failed"
    steps.append(Step(f"{manifest.shown}: abuse --cpus 1", outcome, verdict(abused), watch.seconds))
    return steps


def micro_steps(manifest: Manifest, building: Future[Build], console: Console) -> list[Step]:
    """A micro-benchmark row: built, its folder's own tests (once, not per variant), and every
    bench's check values at small sizes with each core budget it takes."""
    name = f"micro {manifest.name}"
    console.line(f"\n{name}", style="bold")
    if failed := built(building, name, console):
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
        watch = Stopwatch()
        with console.working(f"  checks {manifest.name} --cpus {cpus}"):
            results = micro_conformance.checks(manifest, cpus, lambda result: show_check(console, result))
        line = verdict(results)
        console.line(f"  checks {manifest.name} --cpus {cpus}: {line}")
        outcome = "passed" if all(r.ok for r in results) else "failed"
        steps.append(Step(f"{name}: checks --cpus {cpus}", outcome, line, watch.seconds))
    return steps


def run(names: list[str], engine: Loadgen, console: Console) -> int:
    python = sys.executable
    toolchains = Toolchains(say=console.line)
    servers, micro = catalog.servers_and_micro(names, console.warn)
    steps: list[Step] = []
    parts: list[Part] = []
    with timed(parts, "python lint and format (ruff)"):
        steps.append(
            command_step("python lint (ruff check)", [python, "-m", "ruff", "check", "."], ROOT, "ruff", console)
        )
        steps.append(
            command_step(
                "python format (ruff format)",
                [python, "-m", "ruff", "format", "--check", "."],
                ROOT,
                "ruff-format",
                console,
            )
        )
    with timed(parts, "load engine (build, format, lint, unit tests)"):
        steps += engine_steps(engine, toolchains, console)
    with timed(parts, "harness unit tests (pytest)"):
        steps.append(
            command_step(
                "harness unit tests (pytest)",
                [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=20"],
                ROOT / "harness",
                "harness",
                console,
            )
        )
    # The implementations are installed and built one after another in a lane of their own, beside
    # the micro-benchmarks' checks, which time nothing; the servers' checks, which time answers,
    # wait for the last build.
    lane = Lane()
    try:
        with database() as db:
            builds = [lane.submit(manifest) for manifest in [*micro, *servers]]
            tests = [lane.test(m, building, db) for m, building in zip(servers, builds[len(micro) :], strict=True)]
            for manifest, building in zip(micro, builds, strict=False):
                with timed(parts, f"micro {manifest.name}"):
                    steps += micro_steps(manifest, building, console)
            if servers:
                with timed(parts, "waiting for the lanes"), console.working("  the servers' builds and own tests"):
                    wait([*builds, *tests])  # nothing beside the checks that time the servers' answers
                console.line(f"\n/record uses {db.described}")
                for manifest, building, tested in zip(servers, builds[len(micro) :], tests, strict=True):
                    with timed(parts, manifest.name):
                        steps += server_steps(manifest, building, tested, db, console)
    finally:
        lane.close()
    lane_s = sum(building.result().seconds for building in builds)
    tests_s = sum(own.step.seconds for own in (tested.result() for tested in tests) if own.step)
    console.line(f"\nthe build lane: {lane_s:.0f} s of installs and builds, beside the micro-benchmarks' checks")
    console.line(f"the test lane: {tests_s:.0f} s of the servers' own tests, beside the builds")

    console.line("\nsummary", style="bold")
    for step in steps:
        detail = f"  ({step.detail})" if step.detail else ""
        console.line(f"  {step.outcome:7}  {step.name}{detail}  {step.seconds:.0f} s")
    console.line("\ntime by part", style="bold")
    for line in time_lines(parts):
        console.line(line)
    counts = {state: sum(s.outcome == state for s in steps) for state in ("passed", "failed", "skipped")}
    console.line(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0
