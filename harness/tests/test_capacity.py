"""`arena capacity` against servers whose edge is known: a throw-away server that serves one request
at a time in 2 ms of busy work is found within 5% of what its own CPU time says it can serve; an
engine that saturates first gives "≥ X, engine-bound", never the server's number; the objective,
the probe's verdict and the command line's checks."""

import contextlib
import dataclasses
import json
import sys
import textwrap

import pytest

from arena.capacity import edge, sweep, tables
from arena.capacity import measure as capacity_measure
from arena.capacity.cells import Cells
from arena.capacity.probe import Prober, Runner, judged, predicted, warmup_rule
from arena.capacity.result import CapacitySearch, ClientSweep
from arena.capacity.saturation import saturate
from arena.capacity.search import AT_MAX, BELOW_MIN, ENGINE_BOUND, FOUND, UNFINISHED
from arena.capacity.workloads import (
    Held,
    Objective,
    Workload,
    WorkloadPoint,
    all_workloads,
    chosen,
    objective_of,
    parse_slo,
    search_parameters,
)
from arena.cli import main as cli
from arena.engines import loadgen
from arena.engines.interface import EngineRun, LoadEngine
from arena.engines.warmup_rule import Rule
from arena.errors import UsageError
from arena.frame.starts import Starts, start_settings
from arena.host import cores
from arena.host.process import free_port, running
from arena.impls import catalog
from arena.kind import Task
from arena.measured.measurement import Measurement, Outcome
from arena.measured.usl import model
from conftest import needs_engine, write_impl
from test_export import search


def asyncio_server(work: str, setup: str = "") -> str:
    """A throw-away HTTP/1.1 server on one thread that answers every request `OK` after `work`, the
    body of `async def work(path)`; `setup` is module code before it."""
    return textwrap.dedent(
        """
        import asyncio, os, time
        {setup}

        async def work(path):
        {work}

        async def serve(reader, writer):
            while line := await reader.readline():
                while (header := await reader.readline()) not in (b"\\r\\n", b"\\n", b""):
                    pass
                await work(line.split()[1])
                writer.write(b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nContent-Type: text/plain\\r\\n\\r\\nOK")
                await writer.drain()
            writer.close()

        async def main():
            port = int(os.environ["ARENA_PORT"])
            server = await asyncio.start_server(serve, "127.0.0.1", port, backlog=1024)
            async with server:
                await server.serve_forever()

        asyncio.run(main())
        """
    ).format(setup=setup, work=textwrap.indent(textwrap.dedent(work).strip(), "    "))


# Serves one request at a time: each GET /work spins 2 ms of CPU before it answers (the spin never
# yields), so its capacity is just under 500 a second, less the cost of the HTTP around the work.
ONE_AT_A_TIME = asyncio_server(
    """
    if path == b"/work":
        began = time.perf_counter()
        while time.perf_counter() - began < 0.002:
            pass
    """
)

WORK = Workload(
    id="work",
    title="2 ms of busy work",
    objective=Objective(p99_ms=50),
    start_rate=300,
    min_rate=10,
    max_rate=5000,
    steps=[{"name": "work", "method": "GET", "path": "/work", "expect": [200]}],
)


# The rest of a throw-away server's manifest: this Python, nothing to build, one core.
ONE_THREAD = f"""
    ready_timeout = 10
    [[toolchain]]
    name = "python"
    check = ["{sys.executable}", "--version"]
    [build]
    steps = [["true"]]
    [cores]
    max = 1
    how = "one thread, one request at a time"
    """


def one_at_a_time(tmp_path) -> catalog.Manifest:
    return catalog.parse(write_impl(tmp_path, "one-at-a-time", ("server.py", ONE_AT_A_TIME), ONE_THREAD))


# Holds at most 50 polls at once, each for 0.1 s; the others wait their turn. N connections polling
# without pause are answered 500 times a second, each poll taking N / 500 s once N passes 50. (Half
# the rate Python's asyncio could answer on a busy core, so that the edge is the semaphore's.)
AT_MOST_50_POLLS = asyncio_server(
    """
    async with polls:
        await asyncio.sleep(0.1)
    """,
    setup="polls = asyncio.Semaphore(50)",
)

POLLS = Workload(
    id="polls",
    title="at most 50 polls at once",
    objective=Objective(p99_ms=100),
    start_rate=20,
    min_rate=5,
    max_rate=1000,
    steps=[{"name": "poll", "method": "GET", "path": "/longPoll", "expect": [200]}],
    settings={"ARENA_LONGPOLL_MS": "100"},
    held=Held(wait_ms=100),
)


@pytest.fixture
def short_decisive(monkeypatch):
    """Decisive windows of 2,000 answers instead of spec/capacity.toml's 10,000: what a decisive
    window decides is tested in test_capacity_search.py; here the search's real path runs against a
    real server in less time (2 s windows instead of 5 at 1,000 answers a second). Not
    for the hockey stick: a rate a step above the edge needs the long window to build the backlog
    that puts its p99 past the objective."""
    shorter = dataclasses.replace(search_parameters(), decisive_answers=2000)
    monkeypatch.setattr(edge, "search_parameters", lambda: shorter)


@needs_engine
def test_held_connections_are_searched_to_where_polls_outlast_the_wait_plus_the_objective(tmp_path, short_decisive):
    # A poll takes N / 500 s past 50 connections on average: within the wait (0.1 s) plus the
    # objective (0.1 s) up to 100 connections. Up to 50 every poll takes the wait alone, so the edge
    # lies above 50. The p99 is what must stay within, and the server's own HTTP and scheduling add
    # to it, so the edge is found below 100; never above.
    manifest = catalog.parse(write_impl(tmp_path, "polls", ("server.py", AT_MOST_50_POLLS), ONE_THREAD))
    task = Task("capacity", manifest, WorkloadPoint(POLLS, POLLS.objective), 1, 0, 1.0)
    m = measured(loadgen.Loadgen(), task, {"polls": None})
    assert m.measured, m.reason
    found: CapacitySearch = m.payload
    assert found.ended == FOUND, [(p["rate"], p["reasons"]) for p in found.probes]
    assert all(p.rate == round(p.rate) for p in found.probe_list())  # whole connections
    assert 50 < found.edge <= 1.05 * 100, [(p["rate"], p["reasons"]) for p in found.probes]
    assert found.at_edge().p50_ms >= 100  # every poll waited
    section = tables.report("t", [m], []).sections[0]
    assert section.table.columns[2].header == "held" and "connections" in section.charts[0].x_label


@needs_engine
def test_a_server_of_known_capacity_is_found_within_five_percent_and_draws_its_hockey_stick(tmp_path):
    task = Task("capacity", one_at_a_time(tmp_path), WorkloadPoint(WORK, WORK.objective), 1, 0, 1.0)
    m = measured(loadgen.Loadgen(), task, {"work": None})
    assert m.measured, m.reason
    found: CapacitySearch = m.payload
    assert found.ended == FOUND, [(p["rate"], p["reasons"]) for p in found.probes]
    edge = found.at_edge()
    # What the server can serve, by its own CPU time a request at the edge: work and HTTP together.
    capacity = edge.ok_requests / edge.server_cpu_s
    assert 0.95 * capacity <= found.edge <= 1.05 * capacity, (found.edge, capacity)
    # The spin alone caps it at 500 (how far below depends on this machine's cost of the HTTP around
    # it, which the ratio above accounts for); a rate a few percent above can still pass, since a
    # backlog that grows by that much over a probe's window stays within the objective
    # (spec/capacity.md, "A probe"), but the first failing rate is only a step above the edge.
    assert found.edge <= 1.05 * 500 and found.failing <= found.edge * 1.03
    failed = [p for p in found.probe_list() if not p.passed]
    assert failed and all(p.reasons for p in failed)  # every failure says why

    # The hockey stick: p99 within the objective up to the edge, save at a rate the chart marks
    # failed (a search need not be monotone: spec/capacity.md), and past it above the bracket. A
    # rate probed twice is drawn at the probe whose verdict stands there: the edge at its own.
    p99, _ = tables.report("t", [m], []).sections[0].charts
    (line,) = [s for s in p99.series if s.label == "one-at-a-time cpus=1"]
    (marked,) = [s for s in p99.series if s.label == "one-at-a-time cpus=1 failed"]
    at = dict(zip(line.xs, (v.y for v in line.values), strict=True))
    failed_at = {round(x, 3) for x in marked.xs}  # the chart's rates are rounded to 0.001
    assert at[round(found.edge, 3)] == edge.p99_ms <= 50
    assert all(y <= 50 for x, y in at.items() if x <= found.edge and x not in failed_at), (at, failed_at)
    assert max(y for x, y in at.items() if x >= round(found.failing, 3)) > 50, at
    (mark,) = [s for s in p99.series if s.label == "one-at-a-time cpus=1 edge"]
    assert mark.xs == [round(found.edge, 3)] and mark.mark_of == "one-at-a-time cpus=1"


@needs_engine
def test_a_probe_far_above_the_edge_gives_up_in_its_warm_up_and_says_what_the_server_answered(tmp_path):
    # Twice what the server serves: the backlog doubles every slice, medians pass the 50 ms
    # objective within a slice or two, and the warm-up gives up instead of running to its bound;
    # what the server answered meanwhile is its capacity, less the slices' ramp.
    server_cores, engine_cores, _ = cores.split(1)
    with running(one_at_a_time(tmp_path), 1, free_port(), {}, server_cores) as server:
        runner = Runner(loadgen.Loadgen(), server, engine_cores, WORK, None)
        prober = Prober(runner, WORK.objective, search_parameters())
        prober.warm(150)
        probe = prober(1000)
    assert not probe.passed and probe.gave_up and probe.window_s == 0
    assert probe.reasons == [f"median over 50 ms in 3 warm-up slices in a row: gave up after {probe.warmup_s:.1f} s"]
    assert probe.warmup_s < 2.0, probe.warmup_s  # not the 4 s bound
    assert probe.p50_ms > 50 and probe.p99_ms >= probe.p50_ms
    assert 0.75 * 500 <= probe.ceiling <= 1.05 * 500, probe.ceiling


# Answers at once, but every 20th request 60 ms late without holding up the others: 5% of the
# answers past a 50 ms objective whatever the rate, while the median stays well under it.
EVERY_20TH_LATE = asyncio_server(
    """
    global answered
    answered += 1
    if answered % 20 == 0:
        await asyncio.sleep(0.06)
    """,
    setup="answered = 0",
)


@needs_engine
def test_a_window_whose_late_answers_decide_it_ends_there(tmp_path):
    # At 200 a second, a quick window of 1,000 answers lasts 5 s; 2% of them late (21 of 1,001)
    # fail it whatever the rest do, which every 20th late passes some 420 arrivals in.
    manifest = catalog.parse(write_impl(tmp_path, "late", ("server.py", EVERY_20TH_LATE), ONE_THREAD))
    server_cores, engine_cores, _ = cores.split(1)
    with running(manifest, 1, free_port(), {}, server_cores) as server:
        prober = Prober(
            Runner(loadgen.Loadgen(), server, engine_cores, WORK, None), WORK.objective, search_parameters()
        )
        assert prober.document(200)["model"]["stop_when_late"] == {"ms": 50, "requests": 21}
        probe = prober(200)
    assert not probe.passed and probe.steady and not probe.gave_up
    assert 1.5 < probe.window_s < 4.0, probe.window_s
    assert probe.reasons[-1].startswith(f"stopped after {probe.window_s:.2f} s: 2% of its requests late")
    assert not [r for r in probe.reasons if r.startswith("answered")]  # what was in flight is not lost
    assert probe.p99_ms > 50 and probe.p50_ms < 50
    assert probe.ceiling is None  # it kept up with its arrivals, only late


def measured(engine: LoadEngine, task: Task, data: dict) -> Measurement:
    """One measurement by `engine` on a start of its own, stopped after it."""
    with contextlib.closing(Starts(start_settings([task.point]))) as starts:
        cells = Cells([], search_parameters().starts)
        return capacity_measure.measure(task, engine, data, None, starts, cells, lambda _: None)


def synthetic(document: dict, p99_ms: float = 1.0, answered: float = 1.0, rate: float | None = None) -> dict:
    """A result document as the engine writes it, for a probe that met its schedule (a closed
    model's: `rate` answers a second)."""
    model = document["model"]
    offered = round((rate or model["rate"]) * model["duration_s"])
    ok = round(offered * answered)
    latency = {"p50": 500, "p99": p99_ms * 1000, "p999": p99_ms * 1000, "max": p99_ms * 1000}
    return {
        "started_unix_ms": 0,
        "elapsed_s": model["duration_s"],
        "warmup": {"steady_at": 1, "seconds": 1.5, "measured_from_s": 1.5},
        "requests": {"total": ok, "ok": ok, "errors": {"status": 0}},
        "iterations": {"dropped": 0},
        "ok_rps": ok / model["duration_s"],
        "all": {"latency_us": latency},
    }


class SaturatingEngine:
    """An engine that keeps up with any server, and whose own CPU is full above `limit` arrivals a
    second: what a search meets when the server is faster than its load generator."""

    name = "saturating"

    def __init__(self, limit: float) -> None:
        self.limit = limit

    def ensure(self, toolchains) -> None:
        pass

    def check(self, scenario: dict) -> float | None:
        return None

    def run(self, scenario: dict, cores: list[int], timeout: float) -> EngineRun:
        if scenario["model"]["kind"] == "closed":  # clients without pause: as fast as it can send
            return EngineRun(synthetic(scenario, rate=self.limit), cpu_s=len(cores), wall_s=1.0, version="saturating 1")
        rate = scenario["model"]["rate"]
        share = min(1.0, rate / self.limit * 0.9) if rate <= self.limit else 1.0
        return EngineRun(synthetic(scenario), cpu_s=share * len(cores), wall_s=1.0, version="saturating 1")


def test_an_engine_that_saturates_first_gives_at_least_x_engine_bound_never_the_servers_number(fake):
    point = WorkloadPoint(WORK, WORK.objective)
    task = Task("capacity", fake, point, 1, 0, 1.0)
    m = measured(SaturatingEngine(limit=2500), task, {"work": None})
    assert m.measured, m.reason
    assert m.payload.ended == ENGINE_BOUND and "engine-bound" in m.flags
    assert 2400 <= m.payload.edge <= 2500 < m.payload.failing
    report = tables.report("the run's title", [m], [])
    assert report.title == "the run's title"
    (row,) = report.sections[0].table.rows
    assert row.cells[2].show() == f"≥ {m.payload.edge:,.0f}" and row.cells[-1].show() == "engine-bound 1/1"
    assert "engine-bound" in row.flags


def test_one_start_serves_a_repetitions_workloads_each_warmed_under_its_own_load(fake):
    engine = SaturatingEngine(limit=2500)
    root = dataclasses.replace(WORK, id="root", steps=[{"name": "root", "method": "GET", "path": "/", "expect": [200]}])
    points = [WorkloadPoint(WORK, WORK.objective), WorkloadPoint(root, root.objective)]
    jit = dataclasses.replace(fake, warm_s=3.0)
    tasks = [Task("capacity", jit, point, 1, rep, 1.0) for rep in (0, 1) for point in points]
    edges, servers, found = Cells([], search_parameters().starts), [], []
    with contextlib.closing(Starts(start_settings(points))) as starts:
        for task in tasks:
            m = capacity_measure.measure(
                task, engine, {"work": None, "root": None}, None, starts, edges, lambda _: None
            )
            assert m.measured, m.reason
            servers.append(starts.current.server)
            found.append(m)
    assert servers[0] is servers[1] and servers[2] is servers[3] and servers[0] is not servers[2]
    assert [m.parameters["start"]["points_before"] for m in found] == [0, 1, 0, 1]
    assert [m.payload.warmed_s for m in found] == [3.0] * 4  # every workload's own load for warm_s
    notes = [note for section in tables.report("t", found, []).sections for note in section.notes]
    assert sum("after 1 workload(s) on its start" in note for note in notes) == 2, notes


def test_a_start_that_died_between_workloads_is_replaced_by_a_fresh_one(fake):
    engine = SaturatingEngine(limit=2500)
    task = Task("capacity", fake, WorkloadPoint(WORK, WORK.objective), 1, 0, 1.0)
    with contextlib.closing(Starts(start_settings([task.point]))) as starts:
        first, _, _ = starts.server(task, [0], lambda _: None)
        first.stop()  # died between two workloads
        m = capacity_measure.measure(
            task, engine, {"work": None}, None, starts, Cells([], search_parameters().starts), lambda _: None
        )
        assert m.measured and starts.current.server is not first and m.parameters["start"]["points_before"] == 0


@pytest.mark.parametrize(
    ("p99_ms", "answered", "steady", "reasons"),
    [
        (5.0, 1.0, True, []),
        (12.5, 1.0, True, ["p99 12.5 ms > 10 ms"]),
        (5.0, 0.9, True, ["answered 90.0% < 99%"]),
        (12.5, 0.9, False, ["not steady within 1.5 s", "p99 12.5 ms > 10 ms", "answered 90.0% < 99%"]),
    ],
)
def test_a_probe_fails_with_every_reason_that_failed_it(p99_ms, answered, steady, reasons):
    document = {"model": {"rate": 1000, "duration_s": 2}}
    result = synthetic(document, p99_ms, answered)
    if not steady:
        result["warmup"]["steady_at"] = None
    assert judged(result, 2000, Objective(10), search_parameters()) == reasons
    slices = [{"t_s": 0.25 * k, "ok_rps": 900, "p50_ms": 20 + k, "p99_ms": 40, "error_ratio": 0} for k in range(4)]
    result["warmup"] |= {"gave_up": True, "seconds": 1.0, "slices": slices}
    reason = "median over 10 ms in 3 warm-up slices in a row: gave up after 1.0 s"
    assert judged(result, 2000, Objective(10), search_parameters()) == [reason]  # nothing measured: its one reason


def test_a_probe_holds_enough_answers_and_its_warmup_enough_arrivals_at_low_rates():
    search = search_parameters()
    assert search.window_s(4000, False) == 1.0  # 1,000 answers in a quarter second: the 1 s floor
    assert search.window_s(500, False) == 2.0
    assert search.window_s(200, False) == 5.0
    assert search.window_s(10, False) == 15.0  # the ceiling: 150 answers, said in its record
    assert search.window_s(100, False, least_s=12.0) == 12.0  # a held workload's two waits
    assert search.window_s(4000, True) == 2.5  # a bracket's sides: 10,000 answers...
    assert search.window_s(500, True) == 5.0  # ...within 5 s at low rates...
    assert search.window_s(10, True) == 15.0  # ...never shorter than a quick window
    rule = warmup_rule(5, Rule(slice_s=0.5, max_s=6.0, window=3))
    assert rule.slice_s == 2.0 and rule.max_s == 10.0 and rule.rps_tolerance == pytest.approx(0.2)


def test_objectives_from_the_command_line():
    assert parse_slo("p99=50ms") == {"p99_ms": 50}
    assert parse_slo("p99=0.2s,p999=500") == {"p99_ms": 200, "p999_ms": 500}
    assert objective_of(WORK, {"p999_ms": 80}) == Objective(50, 80)
    assert Objective(50, 80).label == "p99 ≤ 50 ms, p99.9 ≤ 80 ms"
    for bad in ("p99", "p50=3ms", "p99=-1ms", "p99=0", "p99=fast"):
        with pytest.raises(UsageError, match="--slo"):
            parse_slo(bad)


def test_every_workload_of_the_spec_is_read_with_its_objective():
    workloads = all_workloads()
    assert list(workloads) == ["plaintext", "json", "bcrypt", "compute", "database", "longpoll", "mix"]
    # The soak's mix is measured when named, not by default.
    assert [w.id for w in chosen([])] == ["plaintext", "json", "bcrypt", "compute", "database", "longpoll"]
    assert [w.id for w in chosen(["mix"])] == ["mix"] and workloads["mix"].database
    assert workloads["longpoll"].held == Held(500) and workloads["longpoll"].settings == {"ARENA_LONGPOLL_MS": "500"}
    assert workloads["bcrypt"].settings == {"ARENA_BCRYPT_COST": "4"} and workloads["bcrypt"].setup
    assert workloads["database"].database and workloads["database"].data == {"kind": "records"}
    assert json.loads(WorkloadPoint(workloads["plaintext"], workloads["plaintext"].objective).key) == {"p99_ms": 10}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["capacity", "--workload", "nope"], "unknown workload(s): nope (known: plaintext, json"),
        (["capacity", "--slo", "p99=fast"], "--slo p99=fast: give objectives such as p99=50ms"),
        (["capacity", "--repeat", "0"], "--repeat 0: choose 1..100"),
        (["capacity", "--cpus", "99"], "--cpus 99: this machine gives Arena"),
    ],
)
def test_bad_options_are_one_line_and_status_2(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def sweep_of(lam: float, sigma: float, kappa: float, noise: float, bound_from: int = 10**6) -> ClientSweep:
    """A sweep whose throughput follows the law, `noise` times off at alternate levels, the engine
    saturated from `bound_from` clients on."""
    levels = []
    for i, n in enumerate(sweep.CLIENTS):
        x = model(n, lam, sigma, kappa) * (1 + noise * (-1) ** i)
        fields = {"clients": n, "throughput": x, "ok_rps": x, "p50_ms": 1.0, "p99_ms": 2.0, "error_ratio": 0.0}
        fields |= {"steady": True, "engine_bound": n >= bound_from, "engine_busy": 0.5}
        levels.append(fields | {"server_cpu_s": 1.0, "server_peak_rss_kb": 1024})
    return ClientSweep(levels, 1, 0.1, None)


def test_a_sweep_over_starts_is_fitted_and_drawn_with_its_curve():
    point = json.dumps({"clients": list(sweep.CLIENTS)})
    starts = [
        Measurement(
            "capacity", "go", "plaintext", point, 1, rep, Outcome.MEASURED, payload=sweep_of(1000, 0.05, 0.001, e)
        )
        for rep, e in enumerate([0.01, -0.01, 0.0])
    ]
    bound = sweep_of(900, 0.0, 0.0, 0.0, bound_from=32)
    starts.append(Measurement("capacity", "rust", "plaintext", point, 1, 0, Outcome.MEASURED, payload=bound))
    (section,) = tables.report("t", starts, []).sections
    go, rust = section.table.rows
    headers = [c.header for c in section.table.columns]
    shown = dict(zip(headers, (c.show() for c in go.cells), strict=True))
    assert float(shown["lambda /s"].replace(",", "")) == pytest.approx(1000, rel=0.02)
    assert float(shown["N*"]) == pytest.approx(30.8, rel=0.05)
    assert shown["1 clients /s"].startswith("1000 ±")
    rust_shown = dict(zip(headers, (c.show() for c in rust.cells), strict=True))
    assert rust_shown["sigma"] == "0.0000"  # the bound levels (32, 64) are left out of its fit
    (chart,) = section.charts
    assert [s.label for s in chart.series] == ["go cpus=1", "go cpus=1 USL fit", "rust cpus=1", "rust cpus=1 USL fit"]
    assert any("fit residuals at most" in note for note in section.notes)


def test_edges_over_four_budgets_are_fitted_against_cores_and_fewer_say_why_not():
    point = json.dumps({"p99_ms": 10})
    by_cores = [
        Measurement("capacity", "go", "plaintext", point, n, 0, Outcome.MEASURED, payload=search(model(n, 900, 0.1, 0)))
        for n in (1, 2, 4, 8)
    ]
    (section,) = tables.report("t", by_cores, []).sections
    (fitted,) = [note for note in section.notes if "capacity against cores (USL)" in note]
    assert fitted.startswith("go capacity against cores (USL): lambda 900/s a core, sigma 0.1000")
    (one,) = tables.report("t", by_cores[:1], []).sections
    assert "capacity against cores: 1 budget(s) measured (1); a fit needs 4" in " ".join(one.notes)


@pytest.mark.parametrize("ended", [FOUND, ENGINE_BOUND, AT_MAX, BELOW_MIN, UNFINISHED])
def test_every_way_a_search_ends_is_said_and_one_that_found_no_edge_claims_only_a_lower_bound(ended):
    point = json.dumps({"p99_ms": 10})
    m = Measurement("capacity", "go", "plaintext", point, 1, 0, Outcome.MEASURED, payload=search(1200.0, ended))
    (row,) = tables.report("t", [m], []).sections[0].table.rows
    assert row.cells[-1].show() == f"{ended} 1/1"
    assert row.cells[2].show() == ("1200 (n=1)" if ended == FOUND else "≥ 1,200")


def test_only_an_edge_that_was_found_hints_a_later_start(fake):
    point = json.dumps({"p99_ms": 10})
    found, bound = (
        Measurement("capacity", "go", "plaintext", point, 1, rep, Outcome.MEASURED, payload=search(edge, ended))
        for rep, (edge, ended) in enumerate([(1000.0, FOUND), (15000.0, ENGINE_BOUND)])
    )
    fake = dataclasses.replace(fake, name="go")
    later = Task("capacity", fake, WorkloadPoint(all_workloads()["plaintext"], Objective(10)), 1, 2, 1)
    rule = search_parameters().starts
    assert Cells([found, bound], rule).hint(later) == 1000.0
    assert Cells([bound], rule).hint(later) is None


class RisingEngine:
    """An engine whose every run of clients without pause is answered `gains[k]` more a second than
    the one before, from 1,000: a server whose JIT compiles in tiers, with plateaus between them."""

    name = "rising"

    def __init__(self, gains: list[float]) -> None:
        self.gains, self.runs = gains, 0

    def ensure(self, toolchains) -> None:
        pass

    def run(self, scenario: dict, cores: list[int], timeout: float) -> EngineRun:
        rate = 1000 + sum(self.gains[: self.runs + 1])
        self.runs += 1
        return EngineRun(synthetic(scenario, rate=rate), cpu_s=0.1, wall_s=1.0, version="rising 1")


@pytest.mark.parametrize(
    ("gains", "warm_s", "runs", "most"),
    [
        ([0, 500, 500, 20, 400, 400, 10, 10, 10, 10], 0, 4, 2000),  # the plateau at 2,000 stops it
        ([0, 500, 500, 20, 400, 400, 10, 10, 10, 10], 5, 7, 2830),  # a JIT's warm_s goes past it
        ([0] + [300] * 30, 0, 15, 5200),  # still rising: warm_max_s bounds it
    ],
)
def test_a_start_is_saturated_until_a_run_answers_no_more_than_the_best_before_it(fake, gains, warm_s, runs, most):
    engine = RisingEngine(gains)
    workload = Workload("w", "w", Objective(10), 100, 1, 10_000, steps=WORK.steps)
    with running(fake, 1, free_port(), {}, [0]) as server:
        best, spent = saturate(Runner(engine, server, [1], workload, None), search_parameters(), warm_s)
    assert engine.runs == runs and spent == runs * search_parameters().saturation_s
    assert best.throughput == pytest.approx(most, rel=0.01)


@pytest.mark.parametrize(
    ("hint", "throughput", "engine_bound", "expected"),
    [
        (None, 1000, False, 900),  # a first start: just below what it answered saturated
        (800, 1000, False, 800),  # a later one: the earlier starts' edge...
        (1200, 1000, False, 1000),  # ...unless this start answered less than that saturated
        (1200, 1000, True, 1200),  # an engine that bound the saturation says only "more"
        (None, 0, False, None),  # nothing answered: the search starts from the start rate
    ],
)
def test_a_search_begins_below_what_its_start_answered_saturated(hint, throughput, engine_bound, expected):
    level = sweep.Level(1, throughput, throughput, 1, 2, 0, True, engine_bound, 0.5, 1, 1)
    start = edge.first_rate(hint, level, search_parameters().saturation_share)
    assert start == (pytest.approx(expected) if expected else None)


@pytest.mark.parametrize(
    ("server_busy", "engine_busy", "expected"),
    [(0.1, 0.05, 10_000), (0.1, 0.5, 1_800), (0.01, 0.01, None), (0.01, 0.3, 3_000)],
)
def test_a_probe_predicts_the_nearer_of_its_servers_and_its_engines_limits(server_busy, engine_busy, expected):
    assert predicted(1000, server_busy, engine_busy) == (pytest.approx(expected) if expected else None)


def test_starts_that_confirm_one_bracket_show_it_not_an_agreement():
    point = json.dumps({"p99_ms": 10})
    same = [
        Measurement("capacity", "go", "plaintext", point, 1, rep, Outcome.MEASURED, payload=search(1000.0))
        for rep in range(3)
    ]
    (row,) = tables.report("t", same, []).sections[0].table.rows
    # The bracket of 2% either side of 1,000, as the export and the findings widen it, not ±0.
    assert row.cells[2].show() == "1000 ±20"
    assert row.cells[5].show() == "confirmed"  # not a CV of 0%


def test_a_cell_is_noisy_past_its_workloads_own_bound_and_the_legend_says_each():
    point = json.dumps({"p99_ms": 100})
    spread = [
        Measurement("capacity", "go", workload, point, 1, rep, Outcome.MEASURED, payload=search(edge))
        for workload in ("plaintext", "compute")
        for rep, edge in enumerate((1000.0, 1080.0, 940.0))  # a CV of 7%
    ]
    report = tables.report("t", spread, [])
    assert [s.table.rows[0].flags for s in report.sections] == [[], ["noisy"]]
    (noisy,) = [line for line in report.legend if line.startswith("noisy:")]
    assert "above 10%; 5% for bcrypt, compute" in noisy
