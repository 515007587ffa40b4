"""`arena bench-engine`: is the load engine fast enough to measure a server, not itself, and does
its open model see what an outside one sees?

The server runs on one core; the engine and wrk take turns on another core against the same
server process, with `GET /`. Both throughputs, their ratio, each tool's own CPU per request and
the server CPU share each tool achieved are printed. Then the open model must hold 5,000 req/s
within 1% of the target. With `--open RATE…`, instead: at each rate the engine's open model, shaped
as `arena capacity` shapes it, and oha's (`-q RATE --latency-correction`, as many connections)
take turns, with the engine's open model batched every millisecond as oha's timer batches, and
their p50 and p99 are printed side by side (loadgen/README.md).
"""

from __future__ import annotations

import json
import re
import resource
import statistics
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from arena.capacity.workloads import search_parameters
from arena.console import Console
from arena.engines.interface import EngineError, LoadEngine
from arena.errors import UsageError
from arena.host.cores import machine_cores
from arena.host.process import Sampler, cpu_list, free_port, running
from arena.impls import catalog
from arena.impls.catalog import Toolchain
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains
from arena.report.render import terminal
from arena.report.tables import Cell, Column, Row, Table

WRK = Toolchain("wrk", ["sh", "-c", "command -v wrk"], "apt-get install -y wrk")
OHA = Toolchain("oha", ["sh", "-c", "command -v oha"], "cargo install oha --locked --version 1.16.0")
CONNECTIONS = 64
OPEN_RATE = 5000
REQUIRED_RATIO = 0.9
# oha paces with tokio's timer, whose wheel turns every millisecond: the arrivals due within one are
# released together, and each is timed from that release (loadgen/README.md, "Measured against wrk
# and oha"). The engine's open model with its arrivals batched as coarsely shows what that alone does.
OHA_TICK_US = 1000


@dataclass(frozen=True)
class Turn:
    """One tool's turn against the server."""

    rps: float
    server_share: float  # of the server's core
    cpu_us_per_request: float  # the tool's own CPU


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _wrk(port: int, core: int, seconds: int) -> tuple[float, float]:
    """wrk's throughput, and its own CPU seconds per request."""
    command = [
        "taskset",
        "--cpu-list",
        str(core),
        "wrk",
        "-t1",
        f"-c{CONNECTIONS}",
        f"-d{seconds}s",
        f"http://127.0.0.1:{port}/",
    ]
    before = _children_cpu_s()
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=False)
    cpu_s = _children_cpu_s() - before
    rate = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    total = re.search(r"(\d+) requests in", done.stdout)
    if done.returncode != 0 or not rate or not total:
        raise EngineError(f"wrk failed: {done.stderr.strip() or done.stdout.strip()}")
    return float(rate.group(1)), cpu_s / max(int(total.group(1)), 1)


def _scenario(port: int, model: dict) -> dict:
    return {
        "target": f"http://127.0.0.1:{port}",
        "model": model,
        "steps": [{"name": "root", "method": "GET", "path": "/", "expect": [200]}],
        "keep_alive": True,
        "timeout_ms": 10_000,
        "max_duration_s": 120,
    }


@dataclass(frozen=True)
class Bench:
    """A server on one core, warmed, and the core the tools take turns on."""

    port: int
    server_core: int
    load_core: int


@contextmanager
def _bench(impl: str, seconds: int, repeat: int, engine: LoadEngine, tool: Toolchain, console: Console) -> Iterator:
    """The server of `impl` running on the first core, warmed by the engine from the second, once
    the engine and `tool` are there; None when the server could not be built."""
    cores = machine_cores()
    if len(cores) < 2:
        raise UsageError("bench-engine needs 2 cores: one for the server, one for the load")
    if not (1 <= seconds <= 120 and 1 <= repeat <= 20):
        raise UsageError("--seconds must be 1..120 and --repeat 1..20")
    toolchains = Toolchains(say=console.line)
    manifest = catalog.one(catalog.rows([impl], catalog.load, console.warn), impl)
    if not prepare(manifest, toolchains, console).ok:
        yield None
        return
    engine.ensure(toolchains)
    if not toolchains.ensure_tool(tool, "bench-engine").ok:
        raise EngineError(f"{tool.name} is needed to compare against and could not be installed")
    bench = Bench(free_port(), cores[0], cores[1])
    console.line(
        f"{manifest.name} on core {bench.server_core}; {tool.name} and {engine.name} take turns on core "
        f"{bench.load_core}, {CONNECTIONS} connections, {seconds} s each, {repeat} round(s)"
    )
    with running(manifest, 1, bench.port, cores=[bench.server_core]) as server:
        warm = _scenario(bench.port, {"kind": "fixed", "requests": 20_000, "concurrency": 8})
        engine.run(warm, [bench.load_core], 120)
        yield bench, server


def run(impl: str, seconds: int, repeat: int, engine: LoadEngine, console: Console) -> int:
    closed = {"kind": "closed", "users": CONNECTIONS, "think_ms": [0, 0], "duration_s": seconds}
    results: dict[str, list[Turn]] = {"wrk": [], engine.name: []}
    with _bench(impl, seconds, repeat, engine, WRK, console) as prepared:
        if prepared is None:
            return 1
        bench, server = prepared
        port, load_core = bench.port, bench.load_core
        for round_ in range(repeat):
            with Sampler(server) as sampler:
                rps, cpu_s_per_request = _wrk(port, load_core, seconds)
            results["wrk"].append(Turn(rps, sampler.cpu_s / seconds, cpu_s_per_request * 1e6))
            with Sampler(server) as sampler:
                ran = engine.run(_scenario(port, closed), [load_core], seconds + 60)
            outcome = ran.result
            results[engine.name].append(
                Turn(
                    outcome["throughput_rps"],
                    sampler.cpu_s / outcome["elapsed_s"],
                    ran.cpu_s / max(outcome["requests"]["total"], 1) * 1e6,
                )
            )
            console.line(
                f"  round {round_ + 1}: wrk {results['wrk'][-1].rps:,.0f} req/s, "
                f"{engine.name} {results[engine.name][-1].rps:,.0f} req/s"
            )
        open_run = engine.run(
            _scenario(port, {"kind": "open", "rate": OPEN_RATE, "duration_s": seconds * 2, "max_in_flight": 1000}),
            [load_core],
            seconds * 2 + 60,
        ).result

    wrk = statistics.median(turn.rps for turn in results["wrk"])
    ours = statistics.median(turn.rps for turn in results[engine.name])
    rows = []
    for tool, turns in results.items():
        rps = statistics.median(turn.rps for turn in turns)
        share = statistics.median(turn.server_share for turn in turns)
        cpu = statistics.median(turn.cpu_us_per_request for turn in turns)
        rows.append(Row([Cell(tool), Cell(f"{rps:,.0f}"), Cell(f"{share:.0%}"), Cell(f"{cpu:.1f}")]))
    console.line()
    columns = [
        Column("tool"),
        Column("median req/s", numeric=True),
        Column("server CPU share", numeric=True),
        Column("own CPU µs per request", numeric=True),
    ]
    terminal.table(console, Table(columns, rows, flags=False))
    ratio = ours / wrk
    console.line(f"{engine.name} / wrk = {ratio:.3f} (required >= {REQUIRED_RATIO})")
    achieved = open_run["achieved_arrival_rate"] or 0.0
    completed_rate = open_run["throughput_rps"]
    off = abs(completed_rate - OPEN_RATE) / OPEN_RATE
    console.line(
        f"open model at {OPEN_RATE} req/s for {seconds * 2} s: arrivals {achieved:,.1f}/s, "
        f"completions {completed_rate:,.1f}/s ({off:.2%} off), dropped {open_run['iterations']['dropped']}, "
        f"p99 {open_run['all']['latency_us']['p99'] / 1000:.2f} ms"
    )
    console.line(f"engine cores: {cpu_list([load_core])}")
    return 0 if ratio >= REQUIRED_RATIO and off <= 0.01 else 1


@dataclass(frozen=True)
class Latency:
    """One tool's turn at one rate: what it sent a second and the latencies it saw, in ms, from
    each request's intended start."""

    rps: float
    p50_ms: float
    p99_ms: float
    busy: float  # the tool's own CPU over its core and the turn's length: near 1, it queues its own requests


def _oha(port: int, core: int, rate: float, seconds: int) -> Latency:
    """oha's open model: `rate` requests a second on CONNECTIONS connections, latency corrected
    for coordinated omission (timed from when each request was due)."""
    command = ["taskset", "--cpu-list", str(core), "oha", "--no-tui", "--output-format", "json"]
    command += ["--worker-threads", "1", "-c", str(CONNECTIONS), "-q", f"{rate:g}", "--latency-correction"]
    command += ["-z", f"{seconds}s", f"http://127.0.0.1:{port}/"]
    before = _children_cpu_s()
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60, check=False)
    cpu_s = _children_cpu_s() - before
    try:
        found = json.loads(done.stdout)
        percentiles = found["latencyPercentiles"]
        busy = cpu_s / found["summary"]["total"]
        return Latency(found["summary"]["requestsPerSec"], percentiles["p50"] * 1000, percentiles["p99"] * 1000, busy)
    except (ValueError, KeyError, TypeError) as err:
        raise EngineError(f"oha failed ({err}): {done.stderr.strip() or done.stdout.strip()[:200]}") from err


def _open_model(engine: LoadEngine, port: int, core: int, rate: float, seconds: int, batch_us: int | None) -> Latency:
    """The engine's open model at `rate`, shaped as every capacity probe is (spec/capacity.md), or
    with its arrivals released together every `batch_us`."""
    model = search_parameters().open_model(rate, seconds)
    if batch_us is not None:
        model["batch_us"] = batch_us
    run = engine.run(_scenario(port, model), [core], seconds + 60)
    latency = run.result["all"]["latency_us"]
    return Latency(run.result["throughput_rps"], latency["p50"] / 1000, latency["p99"] / 1000, run.busy(1))


def open_check(impl: str, rates: list[float], seconds: int, repeat: int, engine: LoadEngine, console: Console) -> int:
    """Both open models at each rate, in turns on one server start: their p50 and p99 by round,
    and the ratio of their median p99s."""
    if not rates or any(not 1 <= rate <= 1_000_000 for rate in rates):
        raise UsageError("--open: give rates a second in 1..1,000,000")
    turns: dict[tuple[float, str], list[Latency]] = {}
    batched = f"{engine.name}, {OHA_TICK_US // 1000} ms batches"
    with _bench(impl, seconds, repeat, engine, OHA, console) as prepared:
        if prepared is None:
            return 1
        bench, _ = prepared
        for round_ in range(repeat):
            for rate in rates:
                ours = _open_model(engine, bench.port, bench.load_core, rate, seconds, None)
                theirs = _oha(bench.port, bench.load_core, rate, seconds)
                bursts = _open_model(engine, bench.port, bench.load_core, rate, seconds, OHA_TICK_US)
                for tool, seen in ((engine.name, ours), ("oha", theirs), (batched, bursts)):
                    turns.setdefault((rate, tool), []).append(seen)
                console.line(
                    f"  round {round_ + 1} at {rate:,.0f}/s: p99 {engine.name} {ours.p99_ms:.2f} ms, "
                    f"oha {theirs.p99_ms:.2f} ms, {batched} {bursts.p99_ms:.2f} ms"
                )
    rows = []
    for rate in rates:
        ours, theirs = turns[(rate, engine.name)], turns[(rate, "oha")]
        ratio = statistics.median(t.p99_ms for t in ours) / statistics.median(t.p99_ms for t in theirs)
        for tool in (engine.name, "oha", batched):
            seen = turns[(rate, tool)]
            rows.append(
                Row(
                    [
                        Cell(f"{rate:,.0f}"),
                        Cell(tool),
                        Cell(" / ".join(f"{t.rps:,.0f}" for t in seen)),
                        Cell(" / ".join(f"{t.p50_ms:.2f}" for t in seen)),
                        Cell(" / ".join(f"{t.p99_ms:.2f}" for t in seen)),
                        Cell(" / ".join(f"{t.busy:.0%}" for t in seen)),
                        Cell(f"{ratio:.2f}" if tool == engine.name else ""),
                    ]
                )
            )
    columns = [
        Column("rate /s", numeric=True),
        Column("tool"),
        Column("req/s by round", numeric=True),
        Column("p50 ms by round", numeric=True),
        Column("p99 ms by round", numeric=True),
        Column("its core busy", numeric=True),
        Column(f"p99 {engine.name}/oha", numeric=True),
    ]
    console.line()
    terminal.table(console, Table(columns, rows, flags=False))
    return 0
