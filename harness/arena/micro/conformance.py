"""The checks `arena test` runs on every micro-benchmark row: each bench at the `check` profile's
small sizes in both modes, with every check value verified, and bad arguments refused with status 2.
"""

from __future__ import annotations

from arena.checks.result import CheckResult, Problem, Severity
from arena.host import cores
from arena.impls.catalog import Manifest
from arena.micro import benchmarks, program

BAD_ARGUMENTS = [
    ["nosuchbench"],
    ["pingpong", "--size", "0"],
    ["pingpong", "--rounds", "-3"],
    ["pingpong", "--size", "abc"],
    ["pingpong", "--mode", "weird"],
    ["pingpong", "--bogus", "1"],
    ["pingpong", "--size"],
    ["ring", "--procs", "1"],
    ["throughput", "--seconds", "0"],
    ["pingpong", "--warmup-s", "-1"],
    ["pingpong", "--warmup-s", "soon"],
    [],
]


def checks(manifest: Manifest, cpus: int, report=lambda result: None) -> list[CheckResult]:
    limits = benchmarks.limits("check")
    taken, memory_kb = cores.take(cpus), limits.run_memory_mb() * 1024
    results = []
    for bench in benchmarks.load():
        for point in benchmarks.points(bench, "check"):
            outcome, failure = program.run_point(manifest, cpus, point, limits.seconds, memory_kb, limits.warmup_s)
            problems = [Problem(Severity.FAIL, failure)] if failure else []
            result = CheckResult(f"{bench.id} {point.label}", outcome.wall_s, problems)
            report(result)
            results.append(result)
    for arguments in BAD_ARGUMENTS:
        outcome = program.run(manifest, cpus, taken, arguments, limits.seconds)
        said = outcome.failure.startswith("exited with status 2:") and "nothing on stderr" not in outcome.failure
        refused = said and not outcome.stdout.strip()
        got = outcome.failure or "success"
        problems = (
            []
            if refused
            else [Problem(Severity.FAIL, f"expected status 2, a message on stderr, nothing on stdout; got: {got}")]
        )
        result = CheckResult(f"refuses {' '.join(arguments) or 'no arguments'}", outcome.wall_s, problems)
        report(result)
        results.append(result)
    return results
