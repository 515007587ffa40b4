"""Arena's one locustfile: any closed-model scenario document (loadgen/README.md, "Scenario") run
as Locust users, on a master and its workers. Locust loads it in every process; nothing in it is
specific to one scenario.

The master reads the scenario from ARENA_SCENARIO and, when the test starts, sends it to every
worker with the data rows and each worker's share of the user and iteration numbers (user k of
worker w of W is user k·W + w, so rows never overlap across workers). Each user is a FastHttpUser
that runs the steps in order and thinks between iterations, as the own engine's closed users do.

Measuring: a request-event hook on every worker buckets each answer by the tenth of a second it
completed in (counts, errors by kind, a 2-digit histogram), and flushes those buckets to the
master twice a second. The master cuts them into the warm-up's slices, applies the same
steadiness rule as the own engine (arena/engines/warmup_rule.py), and then announces the measured window;
the workers record the window's answers in full-resolution HdrHistograms (microseconds, 3
significant digits) per step, and send them when the window ends. The master merges everything
into loadgen's result document, writes it to ARENA_RESULT and stops the test.
"""

from __future__ import annotations

import json
import os
import random
import resource
import time
from collections import defaultdict
from typing import ClassVar

import gevent
from hdrh.histogram import HdrHistogram
from locust import FastHttpUser, __version__, events, task
from locust.exception import StopUser
from locust.runners import MasterRunner, WorkerRunner

from arena.engines.warmup_rule import Rule, Slice, agrees

BUCKET_S = 0.1  # the finest time a slice or a second is cut at
FLUSH_S = 0.5  # how often a worker sends its buckets
LAG_S = 1.2  # how long the master waits for a slice's last buckets to arrive
LOWEST_US, HIGHEST_US = 1, 3_600_000_000
ERROR_KINDS = ("connect", "timeout", "reset", "status", "content", "other")
PERCENTILES = {"p50": 50, "p66": 66, "p75": 75, "p80": 80, "p90": 90, "p95": 95, "p98": 98, "p99": 99, "p999": 99.9}


class StatusError(Exception):
    """An answer with a status the step does not expect."""


class ContentError(Exception):
    """An answer whose JSON does not hold what the step expects."""


def error_kind(exception: BaseException | None) -> str | None:
    """The own engine's error kinds, from what FastHttpUser reports."""
    if exception is None:
        return None
    if isinstance(exception, StatusError):
        return "status"
    if isinstance(exception, ContentError):
        return "content"
    if isinstance(exception, ConnectionRefusedError):
        return "connect"
    if isinstance(exception, TimeoutError | gevent.Timeout) or "timed out" in str(exception).lower():
        return "timeout"
    if isinstance(exception, ConnectionResetError | BrokenPipeError):
        return "reset"
    return "other"


def fill(template: str, values: dict) -> str:
    """`{name}` placeholders of a step filled from `values`; any other brace is literal text."""
    out, i = [], 0
    while i < len(template):
        end = template.find("}", i)
        if template[i] == "{" and end > i + 1 and template[i + 1 : end] in values:
            out.append(str(values[template[i + 1 : end]]))
            i = end + 1
        else:
            out.append(template[i])
            i += 1
    return "".join(out)


def histogram(digits: int = 3) -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, digits)


# --- the worker's side ---------------------------------------------------------------------------


class Plan:
    """What the master sent: the scenario, its rows, and this worker's share of the numbers."""

    scenario: ClassVar[dict] = {}
    rows: ClassVar[list[dict]] = []
    workers = 1
    index = 0
    window: tuple[float, float] | None = None  # the measured window, wall-clock seconds
    users = 0  # users started on this worker
    iterations = 0  # iterations started on this worker


class Recorder:
    """A worker's answers: tenth-of-a-second buckets for the master's slices and seconds, and the
    measured window's full-resolution histograms."""

    def __init__(self) -> None:
        self.buckets: dict[int, dict] = {}
        self.steps: dict[str, dict] = {}
        self.iterations = histogram()
        self.all = histogram()
        self.begin()

    def begin(self) -> None:
        """The worker's CPU and wall time count from here: the test's start, not Locust's import."""
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.started, self.cpu_before = time.time(), usage.ru_utime + usage.ru_stime

    def bucket(self, at: float) -> dict:
        key = int(at / BUCKET_S)
        if key not in self.buckets:
            self.buckets[key] = {"completed": 0, "ok": 0, "errors": 0, "latency": histogram(2)}
        return self.buckets[key]

    def record(self, step: str, at: float, latency_us: int, status: int, kind: str | None) -> None:
        found = self.bucket(at)
        found["completed"] += 1
        found["ok" if kind is None else "errors"] += 1
        if status:
            found["latency"].record_value(max(latency_us, LOWEST_US))
        if Plan.window is None or not Plan.window[0] <= at < Plan.window[1]:
            return
        if step not in self.steps:
            self.steps[step] = {
                "count": 0,
                "ok": 0,
                "statuses": defaultdict(int),
                "errors": dict.fromkeys(ERROR_KINDS, 0),
                "histogram": histogram(),
            }
        made = self.steps[step]
        made["count"] += 1
        made["ok"] += kind is None
        if kind is not None:
            made["errors"][kind] += 1
        if status:  # only answers are latency samples; errors without one are only counted
            made["statuses"][str(status)] += 1
            made["histogram"].record_value(max(latency_us, LOWEST_US))
            self.all.record_value(max(latency_us, LOWEST_US))

    def flush(self) -> dict:
        """The buckets complete by now (older than a bucket), encoded, and forgotten here."""
        done = int(time.time() / BUCKET_S) - 1
        ready = {k: b for k, b in self.buckets.items() if k < done}
        for k in ready:
            del self.buckets[k]
        return {str(k): {**b, "latency": b["latency"].encode().decode()} for k, b in ready.items()}

    def final(self) -> dict:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        steps = {
            name: {**s, "statuses": dict(s["statuses"]), "histogram": s["histogram"].encode().decode()}
            for name, s in self.steps.items()
        }
        return {
            "index": Plan.index,
            "buckets": {str(k): {**b, "latency": b["latency"].encode().decode()} for k, b in self.buckets.items()},
            "steps": steps,
            "iterations": self.iterations.encode().decode(),
            "cores": sorted(os.sched_getaffinity(0)),
            "cpu_s": usage.ru_utime + usage.ru_stime - self.cpu_before,
            "wall_s": time.time() - self.started,
        }


RECORDER = Recorder()


class ScenarioUser(FastHttpUser):
    """One user of the scenario's closed model."""

    host = "http://127.0.0.1"  # replaced by the scenario's target when it arrives

    def on_start(self) -> None:
        if not Plan.scenario:
            raise StopUser()
        self.number = Plan.users * Plan.workers + Plan.index
        Plan.users += 1
        self.done = 0
        think = Plan.scenario["model"].get("think_ms") or [0, 0]
        self.think_s = (think[0] / 1000, think[1] / 1000)

    def wait_time(self) -> float:
        return random.uniform(*self.think_s)

    @task
    def iteration(self) -> None:
        model = Plan.scenario["model"]
        if model.get("iterations_per_user") and self.done >= model["iterations_per_user"]:
            raise StopUser()
        i = Plan.iterations * Plan.workers + Plan.index
        Plan.iterations += 1
        self.done += 1
        per_user = (Plan.scenario.get("data") or {}).get("rows", "per_user") == "per_user"
        row = Plan.rows[(self.number if per_user else i) % len(Plan.rows)] if Plan.rows else {}
        values = {**row, "i": i, "user": self.number}
        began = time.perf_counter()
        for step in Plan.scenario["steps"]:
            self.step(step, values)
        if Plan.window is not None and Plan.window[0] <= time.time() < Plan.window[1]:
            RECORDER.iterations.record_value(max(int((time.perf_counter() - began) * 1e6), LOWEST_US))

    def step(self, step: dict, values: dict) -> None:
        headers = {name: fill(value, values) for name, value in (step.get("headers") or {}).items()}
        if not Plan.scenario.get("keep_alive", True):
            headers["Connection"] = "close"
        body = fill(step["body"], values).encode() if step.get("body") is not None else None
        with self.client.request(
            step.get("method", "GET"),
            fill(step["path"], values),
            data=body,
            headers=headers,
            name=step["name"],
            catch_response=True,
        ) as response:
            if not response.status_code:
                return  # no answer: Locust reports the connection's own error
            if response.status_code not in step.get("expect", [200]):
                response.failure(StatusError(f"status {response.status_code}"))
            elif step.get("expect_json") and not self.holds(response, step["expect_json"], values):
                response.failure(ContentError("the answer's JSON differs from the step's expect_json"))

    @staticmethod
    def holds(response, expected: dict, values: dict) -> bool:
        try:
            found = json.loads(response.text or "")
        except ValueError:
            return False
        return isinstance(found, dict) and all(found.get(k) == fill(v, values) for k, v in expected.items())


@events.request.add_listener
def on_request(request_type, name, response_time, response_length, response=None, exception=None, **_) -> None:
    status = getattr(response, "status_code", 0) or 0
    kind = error_kind(exception)
    if kind is None and status == 0:
        kind = "other"
    RECORDER.record(name, time.time(), int(response_time * 1000), status, kind)


def on_plan(environment, msg, **_) -> None:
    data = msg.data
    Plan.scenario, Plan.rows, Plan.workers = data["scenario"], data["rows"], data["workers"]
    Plan.index = data["indexes"].get(environment.runner.client_id, 0)
    ScenarioUser.host = data["scenario"]["target"]
    environment.host = data["scenario"]["target"]
    RECORDER.begin()
    gevent.spawn(flusher, environment)


def flusher(environment) -> None:
    while True:
        gevent.sleep(FLUSH_S)
        environment.runner.send_message("arena_buckets", RECORDER.flush())


def on_window(environment, msg, **_) -> None:
    Plan.window = tuple(msg.data)


def on_finish(environment, msg, **_) -> None:
    environment.runner.send_message("arena_final", RECORDER.final())


# --- the master's side ---------------------------------------------------------------------------


class Master:
    """The buckets every worker sent, the warm-up's decision, and the workers' final reports."""

    buckets: ClassVar[dict[int, list[dict]]] = defaultdict(list)
    finals: ClassVar[list[dict]] = []


def add_buckets(buckets: dict) -> None:
    for key, bucket in buckets.items():
        Master.buckets[int(key)].append(bucket)


def on_buckets(environment, msg, **_) -> None:
    add_buckets(msg.data)


def on_final(environment, msg, **_) -> None:
    Master.finals.append(msg.data)
    add_buckets(msg.data["buckets"])


def merged(keys: range) -> tuple[int, int, int, HdrHistogram]:
    """(completed, ok, errors, latency) over the buckets `keys`, every worker's."""
    completed = ok = errors = 0
    latency = histogram(2)
    for key in keys:
        for bucket in Master.buckets.get(key, []):
            completed += bucket["completed"]
            ok += bucket["ok"]
            errors += bucket["errors"]
            latency.add(HdrHistogram.decode(bucket["latency"]))
    return completed, ok, errors, latency


def slice_of(first: int, count: int, seconds: float) -> Slice:
    completed, ok, errors, latency = merged(range(first, first + count))
    return Slice(
        seconds,
        ok / (count * BUCKET_S),
        latency.get_value_at_percentile(50) / 1000,
        latency.get_value_at_percentile(99) / 1000,
        errors / completed if completed else 1.0,
    )


def conduct(environment, scenario: dict, path: str) -> None:
    """The master's run: warm up until steady, announce the window, wait it out, collect, stop."""
    runner = environment.runner
    start = int(time.time() / BUCKET_S) + 1
    rule = Rule(**scenario["warmup"]) if scenario.get("warmup") else None
    slices, steady_at = [], None
    if rule is not None:
        per = round(rule.slice_s / BUCKET_S)
        while True:
            end = start + (len(slices) + 1) * per
            gevent.sleep(max(0.0, end * BUCKET_S + LAG_S - time.time()))
            slices.append(slice_of(end - per, per, (end - per - start) * BUCKET_S))
            if agrees(slices, rule):
                steady_at = len(slices) - rule.window
                break
            if (len(slices) + 1) * rule.slice_s > rule.max_s:
                break
    decided = time.time()
    opens = int((decided + FLUSH_S) / BUCKET_S) + 1  # the workers learn it before it opens
    closes = opens + round(scenario["model"]["duration_s"] / BUCKET_S)
    runner.send_message("arena_window", [opens * BUCKET_S, closes * BUCKET_S])
    gevent.sleep(max(0.0, closes * BUCKET_S + LAG_S - time.time()))
    expected = runner.worker_count
    runner.send_message("arena_finish", None)
    deadline = time.time() + 30
    while len(Master.finals) < expected and time.time() < deadline:
        gevent.sleep(0.1)
    warmup = None
    if rule is not None:
        warmup = {
            "slice_s": rule.slice_s,
            "seconds": decided - start * BUCKET_S,
            "measured_from_s": (opens - start) * BUCKET_S,
            "steady_at": steady_at,
            "slices": [
                {
                    "t_s": s.seconds,
                    "ok_rps": round(s.ok_rps, 3),
                    "p50_ms": round(s.p50_ms, 3),
                    "p99_ms": round(s.p99_ms, 3),
                    "error_ratio": round(s.error_ratio, 4),
                }
                for s in slices
            ],
        }
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document(scenario, start, opens, closes, warmup, expected), out)
    runner.quit()


def latency_of(h: HdrHistogram) -> dict:
    if not h.get_total_count():
        return {"min": 0, "mean": 0.0, "stdev": 0.0, **dict.fromkeys(PERCENTILES, 0), "max": 0}
    return {
        "min": h.get_min_value(),
        "mean": h.get_mean_value(),
        "stdev": h.get_stddev(),
        **{name: h.get_value_at_percentile(p) for name, p in PERCENTILES.items()},
        "max": h.get_max_value(),
    }


def document(scenario: dict, start: int, opens: int, closes: int, warmup: dict | None, expected: int) -> dict:
    """loadgen's result document, from every worker's final report."""
    elapsed = (closes - opens) * BUCKET_S
    steps, every, iterations = [], histogram(), histogram()
    errors_all = dict.fromkeys(ERROR_KINDS, 0)
    total = ok = 0
    statuses_all: dict[str, int] = defaultdict(int)
    for step in scenario["steps"]:
        made = {
            "name": step["name"],
            "count": 0,
            "ok": 0,
            "statuses": defaultdict(int),
            "errors": dict.fromkeys(ERROR_KINDS, 0),
        }
        h = histogram()
        for final in Master.finals:
            found = final["steps"].get(step["name"])
            if found is None:
                continue
            made["count"] += found["count"]
            made["ok"] += found["ok"]
            for status, n in found["statuses"].items():
                made["statuses"][status] += n
                statuses_all[status] += n
            for kind, n in found["errors"].items():
                made["errors"][kind] += n
                errors_all[kind] += n
            h.add(HdrHistogram.decode(found["histogram"]))
        total, ok = total + made["count"], ok + made["ok"]
        every.add(h)
        steps.append(
            {**made, "statuses": dict(made["statuses"]), "latency_us": latency_of(h), "histogram": h.encode().decode()}
        )
    for final in Master.finals:
        iterations.add(HdrHistogram.decode(final["iterations"]))
    series = []
    for second in range(round(elapsed)):
        first = opens + round(second / BUCKET_S)
        completed, good, bad, latency = merged(range(first, first + round(1 / BUCKET_S)))
        series.append(
            {
                "t": second,
                "completed": completed,
                "ok": good,
                "errors": bad,
                "p50_us": latency.get_value_at_percentile(50) if completed else 0,
                "p99_us": latency.get_value_at_percentile(99) if completed else 0,
            }
        )
    usage = resource.getrusage(resource.RUSAGE_SELF)
    workers = [{key: f[key] for key in ("index", "cores", "cpu_s", "wall_s")} for f in Master.finals]
    return {
        "engine": {
            "name": "locust",
            "version": __version__,
            "workers": workers,
            "expected_workers": expected,
            "master_cpu_s": usage.ru_utime + usage.ru_stime,
        },
        "scenario": scenario,
        "started_unix_ms": int(start * BUCKET_S * 1000),
        "elapsed_s": elapsed,
        "iterations": {
            "started": iterations.get_total_count(),
            "completed": iterations.get_total_count(),
            "dropped": 0,
            "cancelled": 0,
        },
        "requests": {"total": total, "ok": ok, "errors": errors_all},
        "throughput_rps": total / elapsed,
        "ok_rps": ok / elapsed,
        "achieved_arrival_rate": None,
        "steps": steps,
        "all": {
            "name": "all",
            "count": total,
            "ok": ok,
            "statuses": dict(statuses_all),
            "errors": errors_all,
            "latency_us": latency_of(every),
            "histogram": every.encode().decode(),
        },
        "iteration_latency_us": latency_of(iterations),
        "iteration_histogram": iterations.encode().decode(),
        "arrival_lag_us": None,
        "first_last_us": None,
        "series": series,
        "warmup": warmup,
    }


@events.init.add_listener
def on_init(environment, **_) -> None:
    runner = environment.runner
    if isinstance(runner, WorkerRunner):
        runner.register_message("arena_plan", on_plan)
        runner.register_message("arena_window", on_window)
        runner.register_message("arena_finish", on_finish)
    elif isinstance(runner, MasterRunner):
        runner.register_message("arena_buckets", on_buckets)
        runner.register_message("arena_final", on_final)


@events.test_start.add_listener
def on_test_start(environment, **_) -> None:
    runner = environment.runner
    if not isinstance(runner, MasterRunner):
        return
    with open(os.environ["ARENA_SCENARIO"], encoding="utf-8") as file:
        scenario = json.load(file)
    rows = []
    if scenario.get("data"):
        with open(scenario["data"]["csv"], encoding="utf-8") as file:
            lines = [line.rstrip("\n") for line in file if line.strip()]
        delimiter = scenario["data"].get("delimiter", ";")
        header = lines[0].split(delimiter)
        rows = [dict(zip(header, line.split(delimiter), strict=True)) for line in lines[1:]]
    indexes = {client_id: i for i, client_id in enumerate(sorted(runner.clients))}
    runner.send_message("arena_plan", {"scenario": scenario, "rows": rows, "workers": len(indexes), "indexes": indexes})
    gevent.spawn(conduct, environment, scenario, os.environ["ARENA_RESULT"])
