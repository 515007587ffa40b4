"""`arena bench-engine`: is the load engine fast enough to measure a server, not itself?

The server runs on one core; the engine and wrk take turns on another core against the same
server process, with `GET /`. Both throughputs, their ratio, each tool's own CPU per request and
the server CPU share each tool achieved are printed. Then the open model must hold 5,000 req/s
within 1% of the target.
"""

from __future__ import annotations

import re
import resource
import statistics
import subprocess
from dataclasses import dataclass

from arena.console import Console
from arena.engines.interface import EngineError, LoadEngine
from arena.errors import UsageError
from arena.host.cores import machine_cores
from arena.host.process import Sampler, cpu_list, free_port, running
from arena.impls import catalog
from arena.impls.catalog import Toolchain
from arena.impls.prepare import prepare
from arena.impls.toolchain import Toolchains
from arena.report.tables import Cell, Column, Row, Table

WRK = Toolchain("wrk", ["sh", "-c", "command -v wrk"], "apt-get install -y wrk")
CONNECTIONS = 64
OPEN_RATE = 5000
REQUIRED_RATIO = 0.9


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


def run(impl: str, seconds: int, repeat: int, engine: LoadEngine, console: Console) -> int:
    cores = machine_cores()
    if len(cores) < 2:
        raise UsageError("bench-engine needs 2 cores: one for the server, one for the load")
    if not (1 <= seconds <= 120 and 1 <= repeat <= 20):
        raise UsageError("--seconds must be 1..120 and --repeat 1..20")
    toolchains = Toolchains(say=console.line)
    (manifest,) = catalog.rows([impl], catalog.load, console.warn)
    if not prepare(manifest, toolchains, console).ok:
        return 1
    engine.ensure(toolchains)
    if not toolchains.ensure_tool(WRK, "bench-engine").ok:
        raise EngineError("wrk is needed to compare against and could not be installed")
    server_core, load_core = cores[0], cores[1]
    closed = {"kind": "closed", "users": CONNECTIONS, "think_ms": [0, 0], "duration_s": seconds}
    results: dict[str, list[Turn]] = {"wrk": [], engine.name: []}
    port = free_port()
    console.line(
        f"{manifest.name} on core {server_core}; wrk and {engine.name} take turns on core {load_core}, "
        f"{CONNECTIONS} connections, {seconds} s each, {repeat} round(s)"
    )
    with running(manifest, 1, port, cores=[server_core]) as server:
        engine.run(_scenario(port, {"kind": "fixed", "requests": 20_000, "concurrency": 8}), [load_core], 120)
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
    console.table(Table(columns, rows, flags=False))
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
