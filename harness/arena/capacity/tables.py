"""The summary of a capacity run as the table model: a section per workload, a row per
implementation and core budget with its edge over the independent starts and what the server
spent at it, and the latency-throughput curves of every probe, the objective and the edges drawn
on them."""

from __future__ import annotations

import json
import statistics
from collections import Counter, defaultdict

from arena.capacity import cost, framework, held, order, precision, scaling
from arena.capacity.probe import Probe
from arena.capacity.result import CapacitySearch
from arena.capacity.search import BROKE, FOUND
from arena.capacity.workloads import (
    Held,
    Objective,
    Workload,
    all_workloads,
    objective_label,
    search_parameters,
    unit_of,
)
from arena.engines.interface import ENGINE_BUSY_MAX
from arena.host.process import open_files_limit
from arena.impls import setups
from arena.kind import CAPACITY as KIND
from arena.measured.flags import Flag
from arena.measured.measurement import Measurement
from arena.measured.stats import NOISY_COV, summarize
from arena.measured.usl import MIN_LEVELS, FitError, fit
from arena.report.charts import FAILED_MARK, LINE, LOG, PASSED_MARK, Chart, Series, Value
from arena.report.tables import FLAGS, Cell, Column, Report, Row, Section, Table, digits, legend

ENDINGS = (
    "search: how each start's search ended — found (bracketed within 3%), engine-bound (the load engine saturated "
    "first: the server sustains at least the rate shown), broke (after an overload it answered nothing at a lower "
    "rate: it sustained the rate shown, then stopped serving), at max_rate, below min_rate, unfinished (out of "
    "probes); "
    "a row with any start that did not find its edge shows '≥' the median of what its starts sustained"
)
EDGE = (
    "edge: the highest arrival rate a start sustained at steady state with its p99 within the objective, "
    "errors ≤ 0.1% and ≥ 99% of arrivals answered, less than 3% below a rate that failed (spec/capacity.md); "
    "the cell is the median over independent server starts with its 95% interval, never narrower than the 3% bracket "
    'each search closes (spec/capacity.md, "Starts where the order is open"); CV: the spread of the edges over starts, '
    "'confirmed' where every later start sustained the first one's edge and failed 3% above it, so that they agree "
    "within that bracket, by how much unknown; for a held workload (longpoll), the most connections "
    "polling at once with p99 within the wait plus the objective and the answers of polls that take at most that long"
)
ORDER = (
    "order: the workload's runtimes by their edges, like for like (each on the lightest of its setups measured: "
    "platform, else micro, else full-stack), the one that serves most first, and each step's ratio (the "
    "geometric means', upper over lower) with its 95% interval: '>' where two neighbours differ by the test and the "
    "3% smallest change of arena compare (spec/compare.md), '≈' where they do not, '?' where a start told only a "
    "bound (the engine's, ≥) or a cell had one start; where the engine pushed the top cells to no edge, their "
    "servers' CPU per answer at the workload's cost rate orders them, the cheapest first (its ratio the lower "
    "cell's cost over the upper's); starts go to the cells whose step is still open "
    '(spec/capacity.md, "The order"); a runtime on several setups has a line of its setups\' own order, and each '
    "framework's cost: the setup's edge and CPU per answer over those of the setup it adds its framework to"
)
PAUSES = (
    "an edge shown as a range (its lowest start to its highest) was set by pauses (flag pause-bound): it moves "
    "with how often a start paused, so quote the saturation beside it, which repeats"
)
SATURATED = (
    "saturated /s: what each start answered from 64 clients without pause before its search (arrivals a second), "
    "the median over starts with its 95% interval, 'CV sat.' its spread: a closed loop's throughput, which a start's "
    'pauses move little, where an edge under a p99 bound moves with how often it pauses (spec/capacity.md, "Spread"); '
    "≥ where the engine was past 90% busy in a start"
)


def _columns(holds: Held | None, cost_rate: float | None) -> list[Column]:
    """A rate's table, or a held workload's: its edge is connections, and what each of them costs
    the server in memory is beside it; a workload with a cost rate, the CPU per answer there."""
    edge, served = ("held", "answers/s at edge") if holds else ("edge /s", "req/s at edge")
    return [
        Column("impl"),
        Column("cpus", numeric=True),
        Column(edge, numeric=True),
        Column(served, numeric=True, essential=False),
        Column("starts", numeric=True),
        Column("CV", numeric=True),
        *([] if holds else [Column("saturated /s", numeric=True), Column("CV sat.", numeric=True)]),
        Column("p50 ms", numeric=True, essential=False),
        Column("p99 ms", numeric=True),
        Column("CPU s/1k ok", numeric=True, essential=False),
        *([Column(f"CPU s/1k at {cost_rate:,.0f}/s", numeric=True)] if cost_rate else []),
        Column("peak RSS MiB", numeric=True, essential=False),
        *([Column("KiB/conn", numeric=True)] if holds else []),
        Column("engine %", numeric=True, essential=False),
        Column("search", essential=False),
    ]


def _standing(probes: list[Probe]) -> Probe:
    """Of one rate's probes in the order they ran, the one whose verdict stands: the latest
    decisive one, else the latest (capacity/search.py)."""
    return next((p for p in reversed(probes) if p.decisive), probes[-1])


def _value(values: list[float], scale: float = 1.0) -> Cell:
    if not values:
        return Cell("-")
    summary = summarize(values)
    return Cell.value(summary, scale, digits(summary.median * scale))


def non_monotone(search: CapacitySearch) -> bool:
    """Whether a start's probes failed at a rate below one that passed: its edge rests on a probe
    that chance or a server changing during the search decided (a JIT compiling, a stall). Where
    the search took decisive probes, those: its quick ones are the noise they overrule."""
    probes = search.probe_list() + search.below_list()
    probes = [p for p in probes if p.decisive] or probes
    passed = [p.rate for p in probes if p.passed]
    return bool(passed) and any(not p.passed and not p.engine_bound and p.rate < max(passed) for p in probes)


def _requests(summary, steps: int, bounded) -> Cell:
    """The edge in requests a second: its arrivals' steps each, with the edge's own interval, or
    the bound the row claims (`bounded`: the summary of every start's edge, where one is a bound)."""
    if bounded is not None:
        return Cell(bounded.show_bound(True, steps))
    if summary is None:
        return Cell("-")
    return Cell.value(summary, steps, digits(summary.median * steps))


def _spread(searches: list[CapacitySearch], summary) -> Cell:
    """The edges' spread over starts, or "confirmed" where every later start confirmed the first
    one's bracket: then they agree within it, by how much unknown."""
    if summary is None or summary.cov is None:
        return Cell("-")
    return Cell("confirmed" if precision.confirmed(searches) else f"{summary.cov:.1%}")


def _saturated(searches: list[CapacitySearch]) -> list[Cell]:
    """What the starts answered saturated, with its interval and spread; where the engine was
    past its ceiling in any of them, only the bound the row can claim."""
    levels = [level for s in searches if (level := s.saturation()) is not None]
    throughputs = [level.throughput for level in levels]
    if any(level.engine_bound for level in levels):
        return [Cell(summarize(throughputs).show_bound(True)), Cell("-")]
    cov = summarize(throughputs).cov if throughputs else None
    return [_value(throughputs), Cell(f"{cov:.1%}") if cov is not None else Cell("-")]


def _row(
    impl: str, cpus: int, group: list[Measurement], holds: Held | None, noisy: float, cost_rate: float | None
) -> tuple[Row, list[str]]:
    """A row over the starts of one implementation and budget, and the notes it needs; it is
    flagged noisy where its edges vary by more than `noisy` (CV)."""
    searches = [m.payload for m in group if m.measured]
    edges = [s.edge for s in searches if s.edge is not None]
    at_edge = [p for p in (s.at_edge() for s in searches) if p is not None]
    flags = sorted({flag for m in group for flag in m.flags})
    notes = [f"{impl} cpus={cpus} start {m.repetition + 1}: FAILED: {m.reason}" for m in group if not m.measured]
    if any(not m.measured for m in group):
        flags.append(Flag.FAILED)
    bounds = [s for s in searches if s.ended != FOUND and s.edge is not None]
    endings = Counter(s.ended for s in searches)
    shown = ", ".join(f"{ended} {count}/{len(group)}" for ended, count in sorted(endings.items())) or "-"
    summary = precision.edges(searches)
    if summary is not None and summary.noisy(noisy) and not bounds:
        flags.append(Flag.NOISY)
    if any(non_monotone(s) for s in searches):
        flags.append(Flag.NON_MONOTONE)
    # A start that did not find its edge showed only that the server sustains at least its highest
    # passing rate: the row then claims at least the low end of its starts' interval, as the export
    # and the findings do (stats.Summary.bound).
    widest = max((s.resolution() or 0.0 for s in searches), default=0.0)
    bounded = summarize(edges, widest) if bounds else None
    if bounded is not None:
        edge_cell = Cell(bounded.show_bound(True))
    elif summary is not None and summary.n > 1 and any(s.pause_bound() for s in searches):
        # Set by pauses, the edge moves from start to start with how often a start paused: its
        # range over the starts is what was measured, where a median ± would look exact.
        places = digits(summary.median)
        edge_cell = Cell(f"{min(edges):,.{places}f} to {max(edges):,.{places}f}")
    else:
        edge_cell = Cell.value(summary, 1, digits(summary.median)) if summary else Cell("none")
    steps = searches[0].steps if searches else 1
    per_connection = [kib for s in searches if (kib := s.kib_per_connection()) is not None]
    cells = [
        Cell(impl),
        Cell(str(cpus)),
        edge_cell,
        _value([p.ok_rps for p in at_edge]) if holds else _requests(summary, steps, bounded),
        Cell(f"{len(edges)}/{len(group)}"),
        _spread(searches, summary if not bounds else None),
        *([] if holds else _saturated(searches)),
        _value([p.p50_ms for p in at_edge]),
        _value([p.p99_ms for p in at_edge]),
        _value([p.server_cpu_s / p.ok_requests * 1000 for p in at_edge if p.ok_requests]),
        *([_value([c * 1000 for s in searches if (c := s.cost_per_answer()) is not None])] if cost_rate else []),
        _value([p.server_peak_rss_kb / 1024 for p in at_edge]),
        *([_value(per_connection)] if holds else []),
        _value([p.engine_busy * 100 for p in at_edge]),
        Cell(shown),
    ]
    notes += [_search_note(impl, cpus, m, holds) for m in group if m.measured]
    return Row(cells, flags), notes


def _search_note(impl: str, cpus: int, m: Measurement, holds: Held | None) -> str:
    search: CapacitySearch = m.payload
    probes = search.probe_list()
    decimals, unit = (0 if holds else 1), unit_of(holds)
    start = f"from {probes[0].rate:,.0f}{unit}" if probes else "with no probe"
    if (saturated := search.saturation()) is not None:
        start += f", {search.warmed_s:.1f} s saturated at {saturated.throughput:,.0f}{unit}"
        start += f" ({saturated.stolen:.1%} of its cores' time stolen)" if saturated.stolen else ""
    elif search.warmed_s is not None:
        start += f", warmed {search.warmed_s:.1f} s at half of it"
    if search.hint:
        start += f", earlier starts' edge {search.hint:,.0f}{unit}"
    if before := (m.parameters.get("start") or {}).get("points_before"):
        start += f", after {before} workload(s) on its start"
    if search.edge is None:
        bracket = f"ended {search.ended}"
    elif search.ended == BROKE:
        bracket = f"{search.edge:,.{decimals}f} passed, then it broke"
    elif search.failing is not None:
        bracket = f"{search.edge:,.{decimals}f} passed, {search.failing:,.{decimals}f} failed"
    else:
        bracket = f"ended {search.ended}"
    last_fail = next((p for p in reversed(probes) if not p.passed), None)
    reasons = ", ".join(last_fail.reasons) or "engine-bound" if last_fail else ""
    stolen = f", {last_fail.stolen:.1%} of its cores' time stolen" if last_fail and last_fail.stolen else ""
    why = f"; at {last_fail.rate:,.{decimals}f}{unit}: {reasons}{stolen}" if last_fail else ""
    return f"{impl} cpus={cpus} start {m.repetition + 1}: {len(probes)} probes {start}: {bracket}{why}"


def _curves(workload: str, holds: Held | None, objective: Objective, measurements: list[Measurement]) -> list[Chart]:
    """p50 and p99 against the offered rate (a held workload's: the connections held), a line per
    implementation and budget through every rate its first measured start probed (the start that
    searched from the start rate; later starts probe a few rates near its edge, and threading them
    in zig-zags the line), and the median edge of all its starts; on it, every start's failed probes
    and the later starts' passing ones, so that a failure below a pass shows where it happened.
    Where a rate was probed more than once, the line draws the probe whose verdict stands there:
    a median of a quick pass and the decisive failure that overruled it would sit on the wrong side
    of the objective."""
    limit = held.objective(objective, holds) if holds else objective
    against = "connections held" if holds else "offered rate"
    by_line: dict[str, dict[float, list]] = defaultdict(lambda: defaultdict(list))
    edges: dict[str, list[float]] = defaultdict(list)
    first: dict[str, int] = {}
    marked: dict[tuple[str, str], list] = defaultdict(list)
    for m in sorted((m for m in measurements if m.measured), key=lambda m: m.repetition):
        line = f"{m.impl} cpus={m.cpus}"
        is_first = first.setdefault(line, m.repetition) == m.repetition
        for probe in m.payload.probe_list() + m.payload.below_list():
            if is_first:
                by_line[line][round(probe.rate, 3)].append(probe)
            if not probe.passed and not probe.engine_bound:
                marked[(line, FAILED_MARK)].append(probe)
            elif probe.passed and not is_first:
                marked[(line, PASSED_MARK)].append(probe)
        if m.payload.edge is not None:
            edges[line].append(m.payload.edge)
    if not by_line:
        return []
    charts = []
    for metric, label in (("p99_ms", "p99"), ("p50_ms", "p50")):
        series = []
        for line, probes in sorted(by_line.items()):
            xs = sorted(probes)
            values = [Value(getattr(_standing(probes[x]), metric)) for x in xs]
            series.append(Series(line, values, xs))
            if edges[line]:
                edge = statistics.median(edges[line])
                nearest = min(xs, key=lambda x: abs(x - edge))
                series.append(
                    Series(
                        f"{line} edge",
                        [Value(getattr(_standing(probes[nearest]), metric))],
                        [nearest],
                        mark_of=line,
                    )
                )
            for mark in (PASSED_MARK, FAILED_MARK):
                probes_marked = sorted(marked[(line, mark)], key=lambda p: p.rate)
                if probes_marked:
                    values_marked = [Value(getattr(p, metric)) for p in probes_marked]
                    xs_marked = [p.rate for p in probes_marked]
                    series.append(Series(f"{line} {mark}", values_marked, xs_marked, mark_of=line, mark=mark))
        every = [x for probes in by_line.values() for x in probes]
        if metric == "p99_ms":
            series.append(
                Series(
                    f"objective {objective_label(holds, objective)}",
                    [Value(limit.p99_ms)] * 2,
                    [min(every), max(every)],
                )
            )
        charts.append(
            Chart(
                f"{workload}: {label} latency against {against}",
                LINE,
                "connections held" if holds else "offered arrivals a second",
                f"{label} ms",
                series,
                x_scale=LOG,
                y_scale=LOG,
                note=(
                    "every probe of each runtime's first start, failed ones too, which is where the curve turns up "
                    "(one that gave up in its warm-up at the slices that decided it), and its probes at "
                    f"{' and '.join(f'{share:.0%}' for share in search_parameters().curve_shares)} of its edge; "
                    "the diamond is the median edge of all its starts, on the probe nearest it; crosses are probes "
                    "that failed, at any start, dots the later starts' probes that passed"
                ),
            )
        )
    return charts


def _engine_notes(measurements: list[Measurement], holds: Held | None) -> list[str]:
    """The load engine's own ceiling for this workload (cost.engine_ceiling), and the connections
    the probes at the edges held."""
    notes = []
    for cpus in sorted({m.cpus for m in measurements}):
        probes = [p for m in measurements if m.measured and m.cpus == cpus for p in m.payload.probe_list()]
        if (found := cost.engine_ceiling(probes)) is not None:
            ceiling, fastest = found
            notes.append(
                f"cpus={cpus}: the load engine's own ceiling here is about {ceiling:,.0f}{unit_of(holds)} (its fastest "
                f"probe, {fastest.rate:,.0f}, took {fastest.engine_busy:.0%} of its cores; scaled to "
                f"{ENGINE_BUSY_MAX:.0%}); an edge near it is marked engine-bound"
            )
    peaks = [p.connections_peak for m in measurements if m.measured and (p := m.payload.at_edge()) is not None]
    open_at_once = [peak for peak in peaks if peak is not None]
    if open_at_once and not holds:
        notes.append(
            f"connections at the edges: {min(open_at_once):,} to {max(open_at_once):,} open at most at once (kept "
            f"alive, at most {search_parameters().connections:,}: an arrival that finds them busy waits for one, its "
            "wait charged to its latency)"
        )
    return notes


def _core_fits(measurements: list[Measurement]) -> list[str]:
    """The Universal Scalability Law over the edges by core budget, per implementation, where at
    least four budgets were measured; else why there is no such fit."""
    budgets = sorted({m.cpus for m in measurements})
    if len(budgets) < MIN_LEVELS:
        return [
            f"capacity against cores: {len(budgets)} budget(s) measured ({', '.join(map(str, budgets))}); a fit needs "
            f"{MIN_LEVELS}, each leaving a core for the engine: a machine of {MIN_LEVELS + 1} cores or more"
        ]
    notes = []
    for impl in sorted({m.impl for m in measurements}):
        edges = [
            (m.cpus, m.payload.edge)
            for m in measurements
            if m.impl == impl and m.measured and m.payload.edge is not None and Flag.ENGINE_BOUND not in m.flags
        ]
        try:
            fitted = fit([c for c, _ in edges], [e for _, e in edges])
        except FitError as err:
            notes.append(f"{impl} capacity against cores: no fit: {err}")
            continue
        peak = f", peak at {fitted.peak_n:.1f} cores" if fitted.peak_n is not None else ""
        notes.append(
            f"{impl} capacity against cores (USL): lambda {fitted.lam:,.0f}/s a core, sigma {fitted.sigma:.4f}, "
            f"kappa {fitted.kappa:.2e}{peak}; residuals at most {max(map(abs, fitted.residuals)):,.1f}/s"
        )
    return notes


def report(title: str, measurements: list[Measurement], skipped: list[str]) -> Report:
    workloads = all_workloads()
    ours = [m for m in measurements if m.kind == KIND]
    sections = []
    for workload_id in [w for w in workloads if any(m.experiment == w for m in ours)] + sorted(
        {m.experiment for m in ours} - set(workloads)
    ):
        group = [m for m in ours if m.experiment == workload_id]
        known = workloads.get(workload_id)
        what = known.title if known else "a workload no longer in spec/capacity.toml"
        for point in sorted({m.point for m in group}):
            at_point = [m for m in group if m.point == point]
            if "clients" in json.loads(point):
                sections.append(scaling.section(workload_id, what, at_point))
                continue
            objective = Objective(**json.loads(point))
            holds = next((m.payload.holds for m in at_point if m.measured), None)
            cost_rate = next((p.rate for m in at_point if m.measured and (p := m.payload.cost_probe())), None)
            rows, notes = [], []
            for impl, cpus in sorted({(m.impl, m.cpus) for m in at_point}):
                in_row = [m for m in at_point if (m.impl, m.cpus) == (impl, cpus)]
                noisy = known.noisy if known else NOISY_COV
                # A runtime with several setups: each row named by its setup, the default's too.
                label = setups.known().canonical(impl)
                row, row_notes = _row(label, cpus, in_row, holds, noisy, cost_rate)
                rows.append(row)
                notes += row_notes
            notes += _engine_notes(at_point, holds) + _core_fits(at_point)
            if holds:
                most = max((m.parameters.get("limits", {}).get("max_rate", 0) for m in at_point), default=0)
                notes.append(
                    f"held connections are bounded by the open-files limit, {open_files_limit():,} here (a process "
                    f"holds one end of each): a search asks at most {most:,.0f}, leaving {held.OTHER_FILES:,} "
                    "for what a process keeps open besides"
                )
            sections.append(
                Section(
                    f"{workload_id}: {what} — objective {objective_label(holds, objective)}",
                    Table(_columns(holds, cost_rate), rows),
                    notes,
                    charts=_curves(workload_id, holds, objective, at_point),
                    answer=_orders(at_point),
                )
            )
    meanings = FLAGS | {Flag.NOISY: _noisy(list(workloads.values()))}
    shown = legend(sections, extra=(EDGE, PAUSES, ORDER, SATURATED, ENDINGS), flags=meanings)
    return Report(title, sections=sections, legend=shown, skipped=skipped)


def _orders(measurements: list[Measurement]) -> list[str]:
    """The lines that answer a workload's table: which runtime serves more, and by how much, like
    for like; where a runtime was measured on several setups, their own order and what each
    framework costs against the setup it adds it to."""
    made = order.of_run(measurements)
    budgets = len(made) > 1
    lines = [
        f"order{f', cpus={cpus}' if budgets else ''}: {found.line()}"
        for (_, _, cpus), found in made.items()
        if len(found.standings) > 1
    ]
    for (_, _, cpus), by_impl in order.setups_of_run(measurements).items():
        where = f", cpus={cpus}" if budgets else ""
        lines += [f"{impl}'s setups{where}: {found.line()}" for impl, found in by_impl.items()]
    for (_, _, cpus), costs in framework.of_run(measurements).items():
        where = f", cpus={cpus}" if budgets else ""
        lines += [f"framework's cost{where}: {cost.line()}" for cost in costs]
    return lines


def orders_compared(a: list[Measurement], b: list[Measurement]) -> Section | None:
    """`arena compare` of two capacity runs: each workload's order in both, and whether the second
    repeats the first (capacity/order.py, `unrepeated`); None when they share no workload with two
    runtimes measured in both."""
    first, second = order.of_run([m for m in a if m.kind == KIND]), order.of_run([m for m in b if m.kind == KIND])
    rows = []
    for key in [key for key in first if key in second]:
        experiment, point, cpus = key
        shared = {s.impl for s in first[key].standings} & {s.impl for s in second[key].standings}
        if len(shared) < 2:
            continue
        problems = order.unrepeated(first[key], second[key])
        where = f"{experiment} {Objective(**json.loads(point)).label} cpus={cpus}"
        shown = "yes" if not problems else "no: " + "; ".join(problems)
        rows.append(Row([Cell(where), Cell(first[key].line()), Cell(second[key].line()), Cell(shown)]))
    if not rows:
        return None
    columns = [Column("workload"), Column("order in A"), Column("order in B"), Column("repeats")]
    note = (
        "repeats: no pair told apart in both runs the other way round, and every lead of "
        f"x{order.CLEAR_LEAD:g} or more in one told apart, the same way, in the other"
    )
    return Section("capacity: each workload's order in both runs", Table(columns, rows), [note])


def _noisy(workloads: list[Workload]) -> str:
    """What the noisy flag means here: each workload's own bound on the edges' CV."""
    stricter = sorted({w.noisy for w in workloads if w.noisy != NOISY_COV})
    by_bound = "".join(
        f"; {bound:.0%} for {', '.join(w.id for w in workloads if w.noisy == bound)}" for bound in stricter
    )
    return f"the edges' CV over starts is above {NOISY_COV:.0%}{by_bound} (spec/capacity.toml)"
