"""One probe of a search (spec/capacity.md, "A probe"): the workload's arrivals at one rate, warmed
until steady and then measured for long enough to hold its answers, judged against the objective,
with the engine's own load beside it; and the runs of the engine on a server start that probes and
sweeps share."""

from __future__ import annotations

import contextlib
import math
import statistics
import time
from dataclasses import dataclass, replace
from pathlib import Path

from arena.capacity import held
from arena.capacity.workloads import Objective, SearchParameters, Workload, unit_of
from arena.engines.interface import ENGINE_BUSY_MAX, LoadEngine
from arena.engines.warmup_rule import Rule
from arena.host.process import Processes, Sampler, Server, ServerError, cpu_times

REQUEST_TIMEOUT_MS = 10_000
DRAIN_S = 15  # after the schedule, what is in flight may take this long before the run is cut
IDLE_SHARE = 0.1  # between probes, the server is left until it uses less of a core than this
SETTLE_MAX_S = 5.0
SETTLE_STEP_S = 0.1
MIN_SLICE_ANSWERS = 10  # a warm-up slice holds at least this many arrivals
WARM_WINDOW_S = 0.1  # what a warm-up run measures after its warm-up: nothing it keeps
MIN_BUSY = 0.05  # a server less busy than this over a probe says too little of its cost to predict from
# A p99 rests on the slowest 1% of the answers: past that many over its bound, the p99 is too.
P99_SHARE = 0.01
# A failure whose cores lost this share of their time to the hypervisor may be its stalls: at 2%,
# a 5 s window holds some 100 ms of them, and at 1,000 arrivals a second five stalls of 10 ms on
# the server's core hold up the 1% of answers that make a p99 (host/steal.py).
STOLEN = 0.02


@dataclass(frozen=True)
class Probe:
    rate: float  # arrivals a second asked for
    passed: bool
    reasons: list[str]  # every condition it failed, as a person reads it; [] when it passed
    engine_bound: bool  # the engine was busier than ENGINE_BUSY_MAX of its cores
    steady: bool
    tries: int  # 2 when a first try was not yet steady at a rate the server kept up with, or was stolen
    window_s: float
    offered: int  # requests the measured window's schedule asked for (arrivals x steps)
    ok_requests: int
    requests: int
    errors: int
    dropped: int
    ok_rps: float
    p50_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float
    warmup_s: float
    engine_busy: float  # the engine's CPU over its cores and wall time
    engine_cpu_s: float
    server_cpu_s: float  # over the measured window
    server_peak_rss_kb: int
    # Since the database workload's PostgreSQL is sampled, and searches jump by what a probe predicts:
    db_cpu_s: float | None = None  # the harness's PostgreSQL over the window, on the engine's cores
    predicted: float | None = None  # the rate its server's CPU use suggests it reaches (capacity/search.py)
    # The load's shape (spec/capacity.md): connections the run opened, warm-up included, and the
    # most open at once; None in records from before the engine reported them.
    connections_opened: int | None = None
    connections_peak: int | None = None
    # A probe whose warm-up gave up (loadgen/README.md, "Giving up") measured no window: its
    # latencies and throughput are those of the slices that decided it.
    gave_up: bool = False
    # What a server that fell behind its arrivals still answered, in arrivals (connections: None)
    # a second: near the most it can, which the search aims its next probe by.
    ceiling: float | None = None
    # Its window was decisive (SearchParameters.window_s), not quick: it may close the search's
    # bracket (capacity/search.py); False in records from before the search asked for such probes.
    decisive: bool = False
    # The share of its server's and engine's cores' time the hypervisor took over its window
    # (host/steal.py): stalls of neither side; None in records from before it was sampled.
    stolen: float | None = None

    @property
    def answered(self) -> float:
        """Requests answered with success over those the schedule offered."""
        return self.ok_requests / self.offered if self.offered else 0.0

    @property
    def silent(self) -> bool:
        """Its server answered nothing with success in its window (in the slices that decided it,
        where its warm-up gave up) while the engine offered its arrivals: not behind, which still
        answers what it can, but not serving."""
        return self.ok_requests == 0 and self.ok_rps == 0 and not self.engine_bound


def warmup_rule(rate: float, base: Rule) -> Rule:
    """The warm-up rule of every point, with slices long enough to hold a few arrivals at low rates
    and a throughput band that one or two arrivals more or fewer in a slice stay within."""
    slice_s = max(base.slice_s, MIN_SLICE_ANSWERS / rate)
    max_s = max(base.max_s, slice_s * (base.window + 2))
    return replace(base, slice_s=slice_s, max_s=max_s, rps_tolerance=max(base.rps_tolerance, 2 / (rate * slice_s)))


def judged(result: dict, offered: int, objective: Objective, search: SearchParameters) -> list[str]:
    """Every condition of the edge the measured window failed; `offered` is the requests its
    schedule asked for. A warm-up that gave up measured no window: that is its one reason."""
    warmup = result["warmup"]
    if warmup.get("gave_up"):
        return [
            f"median over {objective.p99_ms:g} ms in {len(decisive(warmup, search.warmup))} warm-up slices "
            f"in a row: gave up after {warmup['seconds']:.1f} s"
        ]
    latency = result["all"]["latency_us"]
    requests = result["requests"]
    errors = sum(requests["errors"].values())
    reasons = []
    if result["warmup"]["steady_at"] is None:
        reasons.append(f"not steady within {result['warmup']['seconds']:.1f} s")
    if latency["p99"] / 1000 > objective.p99_ms:
        reasons.append(f"p99 {latency['p99'] / 1000:.1f} ms > {objective.p99_ms:g} ms")
    if objective.p999_ms is not None and latency["p999"] / 1000 > objective.p999_ms:
        reasons.append(f"p99.9 {latency['p999'] / 1000:.1f} ms > {objective.p999_ms:g} ms")
    if requests["total"] and errors / requests["total"] > search.errors:
        reasons.append(f"errors {errors / requests['total']:.2%} > {search.errors:.1%}")
    stopped = result.get("stopped_at_s")
    # A stopped window's share answered would count what was in flight when it stopped as lost.
    if stopped is None and offered and requests["ok"] / offered < search.answered:
        reasons.append(f"answered {requests['ok'] / offered:.1%} < {search.answered:.0%}")
    if stopped is not None:
        late = f"over {objective.p99_ms:g} ms, failed or not sent"
        reasons.append(f"stopped after {stopped:.2f} s: {late_share(search):.0%} of its requests late ({late})")
    return reasons


def late_share(search: SearchParameters) -> float:
    """The share of a window's requests past which, late, it fails whatever the rest do: more went
    unanswered than `search.answered` leaves out, or more than 1% of the answers came late."""
    return (1 - search.answered) + P99_SHARE


def stop_when_late(p99_ms: float, search: SearchParameters, requests: int, steps: int) -> dict:
    """The engine's bound that ends a window once its verdict is decided (loadgen/README.md,
    "Stopping a failed window"): the late share of its requests. The engine's schedule may hold
    one arrival more than `requests` counts (it rounds up): its steps are allowed for."""
    return {"ms": p99_ms, "requests": math.ceil(late_share(search) * (requests + steps))}


@dataclass(frozen=True)
class Ran:
    """One run of the engine on a start: its result document and what it cost both sides."""

    result: dict
    busy: float  # the engine's CPU over its cores and wall time
    engine_cpu_s: float
    server_cpu_s: float  # over the measured window
    server_peak_rss_kb: int
    db_cpu_s: float | None  # the database's, when the runner samples one
    stolen: float | None  # the share of the server's and engine's cores' time the hypervisor took


class Runner:
    """A workload on one server start: each run of the engine against it, the server left idle
    before it and sampled during it."""

    def __init__(
        self,
        engine: LoadEngine,
        server: Server,
        engine_cores: list[int],
        workload: Workload,
        data: Path | None,
        db: Processes | None = None,
    ) -> None:
        self.engine, self.server, self.engine_cores = engine, server, engine_cores
        self.workload, self.data = workload, data
        self.db = db  # sampled beside the server: the database a workload's requests use
        self.version = ""  # the engine's, once it has run

    def document(self, model: dict, steps: list[dict], max_duration_s: float, rule: Rule | None = None) -> dict:
        """The engine's scenario for `model` with the workload's rows (loadgen/README.md)."""
        document = {
            "target": f"http://{self.server.host}:{self.server.port}",
            "model": model,
            "steps": [engine_step(step) for step in steps],
            "keep_alive": True,
            "timeout_ms": REQUEST_TIMEOUT_MS,
            "max_duration_s": max_duration_s,
        }
        if rule is not None:
            document["warmup"] = rule.document()
        if self.data is not None:
            rows = "per_iteration" if model["kind"] == "fixed" else "per_user"
            document["data"] = {"csv": str(self.data), "delimiter": ";", "rows": rows}
        return document

    def run(self, document: dict, what: str) -> Ran:
        """Runs `document` once the server is idle; a server that died meanwhile is a ServerError."""
        settle(self.server)
        db_sampling = Sampler(self.db, proportional=True) if self.db else contextlib.nullcontext()
        cores = self.server.cores + self.engine_cores
        with Sampler(self.server, cores=cores) as sampler, db_sampling as db_sampler:
            run = self.engine.run(document, self.engine_cores, document["max_duration_s"] + 30)
        if not self.server.alive():
            raise ServerError(f"the server died during {what}")
        self.version = run.version
        result = run.result
        opened = result["started_unix_ms"] / 1000 + (result.get("warmup") or {}).get("measured_from_s", 0.0)
        closed = opened + result["elapsed_s"]
        cpu_s, peak_rss_kb = sampler.window(opened, closed)
        db_cpu_s = db_sampler.window(opened, closed)[0] if db_sampler else None
        stolen = None if (share := sampler.stolen(opened, closed)) is None else round(share, 4)
        return Ran(result, run.busy(len(self.engine_cores)), run.cpu_s, cpu_s, peak_rss_kb, db_cpu_s, stolen)


class Prober:
    """Probes one server start with its workload under an objective; each call is a probe at a
    rate, or, for a held workload, at a number of connections (capacity/held.py)."""

    def __init__(self, runner: Runner, objective: Objective, search: SearchParameters) -> None:
        self.runner, self.objective, self.search = runner, objective, search
        self.holds = runner.workload.held
        self.judged_by = held.objective(objective, self.holds) if self.holds else objective

    def document(self, rate: float, decisive: bool = False, window_s: float | None = None) -> dict:
        """The engine's scenario for a probe at `rate`: warm-up, then a quick or a decisive window
        (SearchParameters.window_s), or one `window_s` long."""
        if self.holds:
            connections = round(rate)
            rule = held.warmup_rule(connections, self.holds, self.search.warmup)
            model = held.model(connections, self.holds, self.search, decisive)
        else:
            rule = warmup_rule(rate, self.search.warmup)
            window = window_s or self.search.window_s(rate, decisive)
            model = self.search.open_model(rate, window)
            # A window whose verdict its late requests decided ends there (spec/capacity.md, "A probe").
            planned, steps = self.offered(rate, window), len(self.runner.workload.steps)
            model["stop_when_late"] = stop_when_late(self.judged_by.p99_ms, self.search, planned, steps)
        # Slices whose median is past the objective's p99 cannot be a window that meets it.
        rule = replace(rule, give_up_p50_ms=self.judged_by.p99_ms)
        max_s = rule.max_s + model["duration_s"] + DRAIN_S
        return self.runner.document(model, self.runner.workload.steps, max_s, rule)

    def warm(self, rate: float) -> float:
        """Loads a fresh start at `rate` until steady, for at most `warm_max_s`, and measures
        nothing: a cold server (a JIT not yet compiled, a pool not yet grown, a database's cache)
        falls behind at rates it sustains once warm, and a search that met it cold would walk down
        while it warmed. Returns how long it took."""
        document = self.document(rate)
        warmup = document["warmup"]
        del warmup["give_up_p50_ms"]
        warmup["max_s"] = max(warmup["max_s"], self.search.warm_max_s)
        document["model"]["duration_s"] = WARM_WINDOW_S
        document["max_duration_s"] = warmup["max_s"] + WARM_WINDOW_S + DRAIN_S
        ran = self.runner.run(document, f"the warm-up at {rate:,.1f}{unit_of(self.holds)}")
        return ran.result["warmup"]["seconds"]

    def offered(self, rate: float, window: float) -> int:
        """The requests a server that keeps up answers over the window."""
        if self.holds:
            return held.expected(round(rate), window, self.holds, self.objective)
        return round(rate * window) * len(self.runner.workload.steps)

    def __call__(self, rate: float, decisive: bool = False, window_s: float | None = None) -> Probe:
        """A probe at `rate`, its window quick, or decisive when it is to close the search's bracket
        (SearchParameters.window_s), or `window_s` long."""
        rate = float(round(rate)) if self.holds else rate
        probe = self._once(rate, 1, decisive, window_s)
        if probe.reasons and all(reason.startswith("not steady") for reason in probe.reasons):
            probe = self._once(rate, 2, decisive, window_s)  # it kept up, and was still warming: once more
        elif not probe.passed and not probe.engine_bound and (probe.stolen or 0.0) >= STOLEN:
            probe = self._once(rate, 2, decisive, window_s)  # the host's stalls may have failed it: once more
        return probe

    def _once(self, rate: float, tries: int, decisive: bool, window_s: float | None = None) -> Probe:
        document = self.document(rate, decisive, window_s)
        ran = self.runner.run(document, f"the probe at {rate:,.1f}{unit_of(self.holds)}")
        result = ran.result
        gave_up = bool(result["warmup"].get("gave_up"))
        stopped = result.get("stopped_at_s")
        window = 0.0 if gave_up else document["model"]["duration_s"] if stopped is None else stopped
        offered = self.offered(rate, window)
        reasons = judged(result, offered, self.judged_by, self.search)
        requests = result["requests"]
        p50_ms, p99_ms, p999_ms, max_ms, ok_rps = self._latencies(result)
        steps = len(self.runner.workload.steps)
        answering = ok_rps
        behind = gave_up or (offered and requests["ok"] < self.search.answered * offered)
        if stopped is not None:
            # A stopped window holds the answers of its first moments, not those still in flight
            # when it stopped: what the server kept up with shows in its warm-up's slices instead.
            answering = self._slices_answered(result)
            behind = answering < self.search.answered * rate * steps
        return Probe(
            rate=rate,
            passed=not reasons and ran.busy <= ENGINE_BUSY_MAX,
            reasons=reasons,
            engine_bound=ran.busy > ENGINE_BUSY_MAX,
            steady=result["warmup"]["steady_at"] is not None,
            tries=tries,
            decisive=decisive,
            window_s=window,
            offered=offered,
            ok_requests=requests["ok"],
            requests=requests["total"],
            errors=sum(requests["errors"].values()),
            dropped=result["iterations"]["dropped"],
            ok_rps=ok_rps,
            p50_ms=p50_ms,
            p99_ms=p99_ms,
            p999_ms=p999_ms,
            max_ms=max_ms,
            warmup_s=result["warmup"]["seconds"],
            engine_busy=round(ran.busy, 3),
            engine_cpu_s=ran.engine_cpu_s,
            server_cpu_s=ran.server_cpu_s,
            server_peak_rss_kb=ran.server_peak_rss_kb,
            db_cpu_s=ran.db_cpu_s,
            connections_opened=result.get("connections", {}).get("opened"),
            connections_peak=result.get("connections", {}).get("peak_open"),
            predicted=predicted(rate, ran.server_cpu_s / (window * self.runner.server.cpus), ran.busy)
            if not reasons
            else None,
            gave_up=gave_up,
            ceiling=answering / steps if behind and not self.holds else None,
            stolen=ran.stolen,
        )

    def _latencies(self, result: dict) -> tuple[float, float, float, float, float]:
        """p50, p99, p99.9 and max in ms, and ok requests a second: of the measured window, or of
        the slices a warm-up gave up on (their median p50, their highest p99, as p99.9 and max
        too, and their mean throughput)."""
        warmup = result["warmup"]
        if warmup.get("gave_up"):
            slices = decisive(warmup, self.search.warmup)
            p50, p99 = statistics.median(s["p50_ms"] for s in slices), max(s["p99_ms"] for s in slices)
            return p50, p99, p99, p99, self._slices_answered(result)
        latency = result["all"]["latency_us"]
        return (
            latency["p50"] / 1000,
            latency["p99"] / 1000,
            latency["p999"] / 1000,
            latency["max"] / 1000,
            result["ok_rps"],
        )

    def _slices_answered(self, result: dict) -> float:
        """Requests answered with success a second over the warm-up slices its rule decided on."""
        return statistics.fmean(s["ok_rps"] for s in decisive(result["warmup"], self.search.warmup))


def decisive(warmup: dict, rule: Rule) -> list[dict]:
    """The warm-up slices its rule decided on: the last window of them."""
    return warmup["slices"][-rule.window :]


def predicted(rate: float, server_busy: float, engine_busy: float) -> float | None:
    """How far the rate may go, by what the probe cost: where the server's cores would be busy all
    the time (an upper bound of the edge for a server its own CPU limits), or, sooner, where the
    engine would pass ENGINE_BUSY_MAX of its cores; None when both were too idle to tell."""
    limits = [rate / server_busy] if server_busy >= MIN_BUSY else []
    limits += [rate * ENGINE_BUSY_MAX / engine_busy] if engine_busy >= MIN_BUSY else []
    return min(limits) if limits else None


def engine_step(step: dict) -> dict:
    """A step as the engine takes it: a JSON body is sent as JSON."""
    return {"headers": {"Content-Type": "application/json"} if "body" in step else {}} | step


def settle(server: Server) -> None:
    """Waits until the server's processes use less than IDLE_SHARE of a core (a backlog of an
    overloaded probe drained), for at most SETTLE_MAX_S."""
    deadline = time.monotonic() + SETTLE_MAX_S
    before = sum(cpu_times(server).values())
    while time.monotonic() < deadline:
        time.sleep(SETTLE_STEP_S)
        now = sum(cpu_times(server).values())
        if now - before < IDLE_SHARE * SETTLE_STEP_S:
            return
        before = now
