"""One run of a micro-benchmark program: pinned, bounded in time and memory, its output checked.

The program prints one JSON line (spec/micro.md). We run it in a session of its own, watch the
resident memory of its whole process tree, stop the tree when it outlives its time bound or its
memory budget, and take its CPU time and peak memory from the kernel when it exits (a peak over
the budget between two looks fails the run too).

The kernel's peak (wait4's ru_maxrss) starts from the high-water mark of the process that forked
it: Linux keeps the larger of the two when the child execs, so a program started by a harness of
100 MiB reports at least 100 MiB. A kernel peak above the harness's own high-water mark at the
start is the program's; one at or below it is not, and the largest resident size seen while
watching stands instead.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import resource
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from arena.host import cores
from arena.host.process import cpu_list, stop_tree, tree_of
from arena.impls.catalog import Manifest
from arena.micro.benchmarks import BenchPoint
from arena.paths import RESULTS

# Most runs end within a second: a short first pause notices that sooner, then the poll settles
# at a rate that costs the measured cores next to nothing.
POLL_FIRST_S = 0.001
POLL_S = 0.02
STEADY_ITERATIONS, STEADY_TOLERANCE = 5, 0.10  # spec/micro.md, "Warm-up"
_RUNS = itertools.count(1)  # tells apart the logs of runs started within the same second


def expected_check(bench: str, params: dict) -> dict:
    """The counts a complete run reports (throughput's total is only known to be positive)."""
    if bench == "pingping":
        return {"received": 2 * params["rounds"]}
    if bench == "pingpong":
        return {"round_trips": params["rounds"]}
    if bench == "spawn":
        return {"alive": params["procs"]}
    if bench == "ring":
        return {"laps": params["rounds"], "hops": params["procs"] * params["rounds"]}
    return {}


@dataclass
class Outcome:
    """What one run produced: its document, or why there is none."""

    document: dict | None
    failure: str
    wall_s: float
    cpu_s: float | None
    peak_rss_kb: int | None
    log: Path
    stdout: str = ""

    @property
    def ok(self) -> bool:
        return self.document is not None and not self.failure


def steady(series: list[float]) -> bool:
    """spec/micro.md's rule: at least 5 iterations, the last 5 all within ±10% of their median."""
    last = series[-STEADY_ITERATIONS:]
    if len(last) < STEADY_ITERATIONS:
        return False
    middle = statistics.median(last)
    return all(abs(value - middle) <= STEADY_TOLERANCE * abs(middle) for value in last)


def warmup_problems(warmup: object, warmup_s: float) -> list[str]:
    """How the `warmup` object departs from spec/micro.md: its shape, and its own claim to be
    steady, which the rule applied to its series must confirm."""
    if not isinstance(warmup, dict):
        return ["warmup is missing"]
    series, iterations, claimed = warmup.get("series"), warmup.get("iterations"), warmup.get("steady")
    if not (isinstance(series, list) and all(isinstance(v, int | float) for v in series)):
        return ["warmup.series is not a list of numbers"]
    found = []
    if iterations != len(series):
        found.append(f"warmup.iterations is {iterations!r}, but its series has {len(series)} values")
    if not isinstance(warmup.get("seconds"), int | float):
        found.append("warmup.seconds is missing")
    if warmup_s == 0 and series:
        found.append("warmup ran iterations although --warmup-s 0 asked for none")
    if claimed is not steady(series):
        found.append(f"warmup.steady is {claimed!r}, but the rule applied to its series says {steady(series)}")
    return found


def problems(document: dict, point: BenchPoint, payload: str, cpus: int, warmup_s: float) -> list[str]:
    """How a program's document departs from spec/micro.md for the run asked for."""
    bench, mode, params = point.bench.id, point.mode, point.params
    found = []
    wanted = {
        "bench": bench,
        "mode": mode,
        "params": params,
        "payload": "copied" if mode == "copy" else payload,
        "cpus": cpus,
    }
    for key, value in wanted.items():
        if document.get(key) != value:
            found.append(f"{key} is {document.get(key)!r}, expected {value!r}")
    elapsed = document.get("elapsed_s")
    if not isinstance(elapsed, int | float) or elapsed <= 0:
        found.append(f"elapsed_s is {elapsed!r}, expected a positive number")
    metric = document.get("metric")
    if not isinstance(metric, dict) or not isinstance(metric.get(point.bench.metric), int | float):
        found.append(f"metric.{point.bench.metric} is missing")
    elif bench == "spawn":
        found += [
            f"metric.{k} is missing"
            for k in ("bytes_per_process", "rss_before_kb", "rss_peak_kb")
            if not isinstance(metric.get(k), int | float)
        ]
    found += warmup_problems(document.get("warmup"), warmup_s)
    check = document.get("check")
    if not isinstance(check, dict):
        return [*found, "check is missing"]
    for key, value in expected_check(bench, params).items():
        if check.get(key) != value:
            found.append(f"check.{key} is {check.get(key)!r}, expected {value}")
    if bench == "throughput":
        per_pair, total = check.get("per_pair"), check.get("messages")
        if not (isinstance(per_pair, list) and all(isinstance(n, int) for n in per_pair)):
            found.append("check.per_pair is not a list of counts")
        elif len(per_pair) != params["pairs"] or sum(per_pair) != total or not isinstance(total, int) or total <= 0:
            found.append(f"check.messages {total!r} is not the positive sum of {params['pairs']} pairs' {per_pair!r}")
    return found


def run(
    manifest: Manifest,
    cpus: int,
    cores: list[int],
    arguments: list[str],
    seconds: float,
    memory_kb: int | None = None,
) -> Outcome:
    """Runs the program once with `arguments`; never raises for what the program does."""
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{next(_RUNS)}"
    bench = arguments[0] if arguments else "none"
    log = RESULTS / "logs" / "micro" / f"{manifest.name}-{bench}-cpus{cpus}-{stamp}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    command = ["taskset", "--cpu-list", cpu_list(cores), *manifest.command(cpus), *arguments]
    env = {**os.environ, **manifest.env(cpus), "ARENA_CPUS": str(cpus)}
    out_path = log.with_suffix(".out")
    floor_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # what a child's kernel peak starts from
    started = time.monotonic()
    with log.open("w") as err, out_path.open("w") as out:
        err.write(f"$ {' '.join(command)}\n")
        err.flush()
        try:
            process = subprocess.Popen(
                command,
                cwd=manifest.folder,
                env=env,
                stdout=out,
                stderr=err,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as error:
            return Outcome(None, f"cannot start: {error}", 0.0, None, None, log)
        try:
            status, usage, stopped, seen_kb = _watch(process, seconds, memory_kb)
        finally:
            if process.returncode is None:
                stop_tree(process)
    wall = time.monotonic() - started
    text = out_path.read_text(errors="replace")
    out_path.unlink()
    cpu_s = usage.ru_utime + usage.ru_stime if usage else None
    peak = usage.ru_maxrss if usage and usage.ru_maxrss > floor_kb else seen_kb or None

    def failed(reason: str) -> Outcome:
        return Outcome(None, reason, wall, cpu_s, peak, log, text)

    if stopped:
        return failed(stopped)
    if memory_kb is not None and peak is not None and peak > memory_kb:
        # A run shorter than the poll can peak unseen; the kernel's record of its peak cannot.
        return failed(f"peaked at {peak // 1024} MiB, over the memory budget of {memory_kb // 1024} MiB")
    if status != 0:
        said = [line.strip() for line in log.read_text(errors="replace").splitlines()[1:] if line.strip()]
        return failed(f"exited with status {status}: {said[-1][:300] if said else 'nothing on stderr'}")
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        return failed(f"printed {len(lines)} lines on stdout, expected one JSON line")
    try:
        document = json.loads(lines[0])
    except json.JSONDecodeError as error:
        return failed(f"its output is not JSON ({error}): {lines[0][:120]!r}")
    if not isinstance(document, dict):
        return failed("its output is not a JSON object")
    return Outcome(document, "", wall, cpu_s, peak, log, text)


def run_point(
    manifest: Manifest, cpus: int, point: BenchPoint, seconds: float, memory_kb: int, warmup_s: float
) -> tuple[Outcome, str]:
    """Runs one point on the budget's cores, warming up for at most `warmup_s`, and checks its
    document: (outcome, what went wrong or "")."""
    outcome = run(manifest, cpus, cores.take(cpus), point.arguments(warmup_s), seconds, memory_kb)
    if not outcome.ok:
        return outcome, outcome.failure
    # A runtime that cannot use every core it is given reports the ones it can (spec/micro.md).
    found = problems(outcome.document, point, manifest.payload, manifest.cpus_for(cpus), warmup_s)
    return outcome, "check failed: " + "; ".join(found) if found else ""


def _watch(process: subprocess.Popen, seconds: float, memory_kb: int | None) -> tuple[int | None, object, str, int]:
    """Waits for the program; (exit status, resource usage, why we stopped it or "", the largest
    resident size of its tree seen, KiB)."""
    deadline = time.monotonic() + seconds
    pause = POLL_FIRST_S
    seen = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage, "", seen
        if time.monotonic() > deadline:
            return None, None, f"stopped after the time bound of {seconds:g} s", seen
        rss = 0
        for proc in tree_of(process):
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                rss += proc.memory_info().rss // 1024
        seen = max(seen, rss)
        if memory_kb is not None and rss > memory_kb:
            return None, None, f"stopped at {rss // 1024} MiB, over the memory budget of {memory_kb // 1024} MiB", seen
        time.sleep(pause)
        pause = min(pause * 2, POLL_S)
