"""Runs one micro-benchmark of spec/micro.md and prints its JSON line.

usage: python3 micro.py BENCH [--mode idiomatic|copy] [--size S] [--rounds R] [--procs N] [--pairs P]
                        [--seconds D] [--warmup-s W]
MICRO_UNIT=asyncio (default) runs the processes as asyncio tasks, MICRO_UNIT=threads as threads.
The bench is warmed up (warmup.py), then run once more as the measured run.
"""

import importlib
import json
import math
import os
import platform
import sys
from dataclasses import replace

from common import Params
from warmup import THROUGHPUT_WARMUP_S, verify_check, warm_up

BENCH_PARAMS = {
    "pingping": ("size", "rounds"),
    "pingpong": ("size", "rounds"),
    "spawn": ("procs",),
    "throughput": ("pairs", "size", "seconds"),
    "ring": ("procs", "size", "rounds"),
}
# The metric a warm-up iteration is judged by.
METRIC = {
    "pingping": "us_per_message",
    "pingpong": "us_per_round_trip",
    "spawn": "us_per_spawn",
    "throughput": "messages_per_s",
    "ring": "us_per_hop",
}
DEFAULTS = {
    "mode": "idiomatic",
    "size": 5000,
    "rounds": 10000,
    "procs": 1000,
    "pairs": 1,
    "seconds": 1.0,
    "warmup_s": 10.0,
}
OPTIONS = {name.replace("_", "-"): name for name in DEFAULTS}  # --warmup-s sets warmup_s
UNITS = {"asyncio": "aio", "threads": "threads"}


class UsageError(Exception):
    pass


def _value(name: str, text: str):
    if name == "mode":
        if text not in ("idiomatic", "copy"):
            raise UsageError(f"--mode must be idiomatic or copy, not {text!r}")
        return text
    flag = "--" + name.replace("_", "-")
    fraction = name in ("seconds", "warmup_s")
    try:
        value = float(text) if fraction else int(text)
    except ValueError:
        raise UsageError(f"{flag} needs a number, not {text!r}") from None
    if name == "seconds" and not (math.isfinite(value) and value > 0):
        raise UsageError(f"--seconds must be > 0, not {text}")
    if name == "warmup_s" and not (math.isfinite(value) and value >= 0):
        raise UsageError(f"--warmup-s must be >= 0, not {text}")
    if not fraction and value < 1:
        raise UsageError(f"{flag} must be >= 1, not {text}")
    return value


def parse(argv: list[str]) -> tuple[str, Params]:
    if not argv:
        raise UsageError(f"missing benchmark: one of {', '.join(BENCH_PARAMS)}")
    bench, *options = argv
    if bench not in BENCH_PARAMS:
        raise UsageError(f"unknown benchmark {bench!r}: one of {', '.join(BENCH_PARAMS)}")
    values = dict(DEFAULTS)
    pending = iter(options)
    for flag in pending:
        name = OPTIONS.get(flag.removeprefix("--"))
        if not flag.startswith("--") or name is None:
            raise UsageError(f"unknown option {flag!r}")
        text = next(pending, None)
        if text is None:
            raise UsageError(f"{flag} needs a value")
        values[name] = _value(name, text)
    if bench == "ring" and values["procs"] < 2:
        raise UsageError("ring needs --procs >= 2")
    return bench, Params(**values)


def metric(bench: str, p: Params, elapsed: float, check: dict, rss_kb) -> dict:
    us = elapsed * 1e6
    if bench == "pingping":
        return {"us_per_message": us / p.rounds}
    if bench == "pingpong":
        return {"us_per_round_trip": us / p.rounds}
    if bench == "spawn":
        before, peak = rss_kb
        return {
            "us_per_spawn": us / p.procs,
            "bytes_per_process": (peak - before) * 1024 / p.procs,
            "rss_before_kb": before,
            "rss_peak_kb": peak,
        }
    if bench == "throughput":
        return {"messages_per_s": check["messages"] / elapsed}
    return {"us_per_hop": us / (p.procs * p.rounds)}


def session(unit, bench: str, p: Params):
    """The warm-up (iterations with the same parameters; throughput's last min(D, 0.1 s)), each checked
    like the measured run, then the measured run. Returns the Warmup and the measured Result."""
    warm = replace(p, seconds=min(p.seconds, THROUGHPUT_WARMUP_S)) if bench == "throughput" else p
    with unit.session() as run:

        def iteration():
            result = run(bench, warm)
            verify_check(bench, warm, result.check)
            return result

        def value(result) -> float:
            return metric(bench, warm, result.elapsed, result.check, result.rss_kb)[METRIC[bench]]

        warmup = warm_up(iteration, value, p.warmup_s)
        return warmup, run(bench, p)


def document(bench: str, p: Params, unit: str, warmup, result) -> dict:
    return {
        "bench": bench,
        "mode": p.mode,
        "payload": "copied" if p.mode == "copy" else "shared",
        "params": {name: getattr(p, name) for name in BENCH_PARAMS[bench]},
        "elapsed_s": result.elapsed,
        # Spawn's memory is the first warm-up iteration's when there was one: what a fresh runtime pays.
        "metric": metric(bench, p, result.elapsed, result.check, (warmup.first or result).rss_kb),
        "check": result.check,
        "warmup": warmup.document(),
        "runtime": f"{platform.python_implementation()} {platform.python_version()} ({unit})",
        # The GIL lets one thread run Python code at a time, and asyncio runs every task on one thread.
        "cpus": 1,
    }


def main(argv: list[str]) -> int:
    try:
        unit = os.environ.get("MICRO_UNIT", "asyncio")
        if unit not in UNITS:
            raise UsageError(f"MICRO_UNIT must be asyncio or threads, not {unit!r}")
        bench, p = parse(argv)
    except UsageError as err:
        print(f"micro: {err}", file=sys.stderr)
        return 2
    try:
        warmup, result = session(importlib.import_module(UNITS[unit]), bench, p)
    except Exception as err:
        while isinstance(err, ExceptionGroup):  # a TaskGroup wraps what its tasks raised
            err = err.exceptions[0]
        print(f"micro {bench}: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    print(json.dumps(document(bench, p, unit, warmup, result)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
