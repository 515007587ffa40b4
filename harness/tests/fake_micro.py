"""A throw-away micro-benchmark program for the harness's tests: it follows spec/micro.md's
interface and counts honestly, and misbehaves on request (FAKE_* variables) so that the tests can
see the harness catch it."""

import json
import os
import sys
import time

DEFAULTS = {"size": 5000, "rounds": 10000, "procs": 1000, "pairs": 1, "seconds": 1.0, "warmup-s": 10.0}
# Each bench's parameters, in the order spec/micro.md gives them, and the metric it reports.
BENCHES = {
    "pingping": ("size rounds", "us_per_message"),
    "pingpong": ("size rounds", "us_per_round_trip"),
    "spawn": ("procs", "us_per_spawn"),
    "throughput": ("pairs size seconds", "messages_per_s"),
    "ring": ("procs size rounds", "us_per_hop"),
}


def refuse(message):
    print(f"fake: {message}", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    if not argv or argv[0] not in BENCHES:
        refuse("usage: fake BENCH [--mode M] [--size S] ...")
    bench, options, rest = argv[0], dict(DEFAULTS, mode="idiomatic"), argv[1:]
    while rest:
        if len(rest) < 2 or rest[0][2:] not in options:
            refuse(f"bad option {rest[0]}")
        name, text = rest[0][2:], rest[1]
        try:
            options[name] = text if name == "mode" else type(DEFAULTS[name])(text)
        except ValueError:
            refuse(f"--{name} {text}: not a number")
        rest = rest[2:]
    if options["mode"] not in ("idiomatic", "copy") or any(options[k] <= 0 for k in DEFAULTS if k != "warmup-s"):
        refuse("out of range")
    if options["warmup-s"] < 0:
        refuse("out of range")
    if bench == "ring" and options["procs"] < 2:
        refuse("a ring needs 2 processes")
    return bench, options


def main():
    bench, options = parse(sys.argv[1:])
    names, metric = BENCHES[bench]
    params = {k: options[k] for k in names.split()}
    limit = int(os.environ.get("FAKE_FAIL_ABOVE", "0"))
    if limit and max(v for v in params.values()) > limit:
        print(f"fake: cannot go beyond {limit}", file=sys.stderr)
        sys.exit(1)
    time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
    hold = [bytearray(int(os.environ.get("FAKE_BYTES_PER_PROC", "0"))) for _ in range(params.get("procs", 0))]
    for block in hold:
        block[::4096] = b"x" * len(block[::4096])  # touch every page so it is resident
    slip = int(os.environ.get("FAKE_MISCOUNT", "0"))
    check = {
        "pingping": lambda: {"received": 2 * params["rounds"] + slip},
        "pingpong": lambda: {"round_trips": params["rounds"] + slip},
        "spawn": lambda: {"alive": params["procs"] + slip},
        "throughput": lambda: {"messages": 40 * params["pairs"], "per_pair": [40] * params["pairs"]},
        "ring": lambda: {"laps": params["rounds"], "hops": params["procs"] * params["rounds"] + slip},
    }[bench]()
    value = float(os.environ.get("FAKE_VALUE", "2.5"))
    if os.environ.get("FAKE_TIMED") and bench == "spawn":
        # A real measurement, with the machine's scatter: µs to make `procs` dormant generators,
        # made again until 20 ms have passed, so that the clock's grain is not the scatter.
        started, made = time.perf_counter(), 0
        while time.perf_counter() - started < 0.02:
            made += len([(x for x in ()) for _ in range(params["procs"])])
        value = (time.perf_counter() - started) / made * 1e6
    measured = {metric: value}
    # Five iterations at the measured value: steady, unless FAKE_UNSTEADY makes the last one jump
    # while the program still claims steadiness (the harness must not take its word for it).
    series = [value] * 4 + [value * (2 if os.environ.get("FAKE_UNSTEADY") else 1)] if options["warmup-s"] else []
    warmup = {"iterations": len(series), "seconds": 0.01 * len(series), "steady": bool(series), "series": series}
    if bench == "spawn":
        measured |= {"bytes_per_process": 100, "rss_before_kb": 1000, "rss_peak_kb": 1100}
    document = {
        "bench": bench,
        "mode": options["mode"],
        "payload": "copied" if options["mode"] == "copy" else "shared",
        "params": params,
        "elapsed_s": 0.01,
        "metric": measured,
        "check": check,
        "warmup": warmup,
        "runtime": "fake 1.0",
        "cpus": int(os.environ["ARENA_CPUS"]),
    }
    print(json.dumps(document))


main()
