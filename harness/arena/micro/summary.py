"""The summary of a micro run: one table per bench, laid out as the seeds' figures.

Rows are a runtime in one payload mode and core budget; columns sweep the bench's axis (message
size for pingping and pingpong, processes for spawn and ring, pairs for throughput), so a row reads
as one line of Valkov's Figures 3-5 or Varjão's plots. Each cell is the median over repetitions
± the half-width of its 95% interval; a failed point says so, and the larger points it stopped
say "not run". The seeds' published figures are rows marked "(seed)".
"""

from __future__ import annotations

from collections import defaultdict

from arena.micro.suite import MAX, Bench
from arena.report import table
from arena.stats import summarize
from arena.store import Measurement
from arena.summary import markdown_table

UNITS = {
    "us_per_message": "µs per message",
    "us_per_round_trip": "µs per round trip",
    "us_per_spawn": "µs per process spawned",
    "messages_per_s": "messages per second",
    "us_per_hop": "µs per hop",
}


def _digits(value: float) -> int:
    return 2 if abs(value) < 10 else 1 if abs(value) < 100 else 0


def _cell(group: list[Measurement], metric: str) -> tuple[str, bool]:
    """(text, noisy) of one point over its repetitions."""
    good = [m.metrics[metric] for m in group if "failure" not in m.metrics]
    if not good:
        return ("not run" if all(m.metrics.get("not_run") for m in group) else "FAILED"), False
    summary = summarize(good)
    text = summary.show(1, _digits(summary.median))
    failed = len(group) - len(good)
    return text + (f" ({failed} failed)" if failed else ""), summary.noisy


def _payload(m: Measurement) -> str:
    return "copied" if m.parameters.get("mode") == "copy" else m.parameters.get("payload", "?")


def bench_table(bench: Bench, measurements: list[Measurement]) -> tuple[str, list[str]] | None:
    mine = [m for m in measurements if m.kind == "micro" and m.experiment == bench.id]
    if not mine:
        return None
    searches = {(m.impl, m.cpus): m for m in mine if m.parameters.get("params", {}).get("procs") == MAX}
    points = [m for m in mine if m.parameters.get("params", {}).get("procs") != MAX]

    rows: dict[tuple, dict] = defaultdict(lambda: defaultdict(list))
    axis_values: set = set()
    for m in points:
        params = m.parameters["params"]
        fixed = " ".join(f"{k}={v}" for k, v in params.items() if k != bench.axis)
        rows[(m.impl, m.parameters["mode"], m.cpus, fixed)][params[bench.axis]].append(m)
        axis_values.add(params[bench.axis])
    for published in bench.published:
        if published.metric == bench.metric:
            axis_values.add(published.point[bench.axis])
    columns = sorted(axis_values)
    with_max = bench.id == "spawn"
    headers = ["impl", "payload", "mode", "cpus", "fixed", *(f"{bench.axis}={v:,}" for v in columns)]
    headers += ["bytes/process", "max processes"] if with_max else []
    headers.append("flags")

    body, notes = [], []
    for (impl, mode, cpus, fixed), cells in sorted(rows.items()):
        any_m = next(iter(cells.values()))[0]
        line, flags = [impl, _payload(any_m), mode, cpus, fixed or "-"], set()
        for value in columns:
            group = cells.get(value, [])
            if not group:
                line.append("-")
                continue
            text, noisy = _cell(group, bench.metric)
            line.append(text)
            flags |= {"noisy"} if noisy else set()
            for m in group:
                if "failure" in m.metrics and not m.metrics.get("not_run"):
                    flags.add("failed")
                    notes.append(f"{impl} {mode} cpus={cpus} {bench.axis}={value:,}: {m.metrics['failure']}")
        if with_max:
            largest = cells[max(cells)]
            sizes = [m.metrics["bytes_per_process"] for m in largest if "bytes_per_process" in m.metrics]
            line.append(f"{summarize(sizes).median:,.0f}" if sizes else "-")
            search = searches.pop((impl, cpus), None)
            line.append(_max_cell(search))
            if search is not None:
                notes.append(f"{impl} cpus={cpus} max: stopped by {search.metrics['stopped_by']}")
        line.append(", ".join(sorted(flags)))
        body.append(line)
    for (impl, cpus), search in sorted(searches.items()):
        body.append([impl, _payload(search), "idiomatic", cpus, "-", *("-" for _ in columns), "-",
                     _max_cell(search), ""])  # fmt: skip
        notes.append(f"{impl} cpus={cpus} max: stopped by {search.metrics['stopped_by']}")
    body += _seed_rows(bench, columns, with_max)
    notes += [f"seed: {note}" for note in bench.notes]
    tables = dict.fromkeys(p.table for p in bench.published)
    notes += [f"(seed) rows: {name}" for name in tables]
    return table(headers, body), notes


def _max_cell(search: Measurement | None) -> str:
    if search is None:
        return "-"
    return f"{search.metrics['max_procs']:,} ({search.metrics['budget_mb']:,} MiB)"


def _seed_rows(bench: Bench, columns: list, with_max: bool) -> list[list[str]]:
    found: dict[str, dict] = defaultdict(dict)
    for published in bench.published:
        for entry in published.values:
            if published.metric == bench.metric:
                found[entry["impl"]][published.point[bench.axis]] = entry["value"]
            elif published.metric == "max_procs":
                found[entry["impl"]][MAX] = entry["value"]
    rows = []
    for impl, values in sorted(found.items()):
        cells = [str(values.get(v, "")) for v in columns]
        extra = ["", f"~{values[MAX]:,}" if MAX in values else ""] if with_max else []
        rows.append([f"{impl} (seed)", "", "", "", "", *cells, *extra, ""])
    return rows


FLAG_MEANINGS = {
    "noisy": "a cell's coefficient of variation over repetitions > 10%",
    "failed": "a point failed (see the notes); larger points of the same row were not run",
}


def render(
    title: str, benches: list[Bench], measurements: list[Measurement], skipped: list[str], host: dict
) -> tuple[str, str]:
    """(terminal text, markdown) of a micro run."""
    machine = f"Machine: {host.get('cores')} cores, {host.get('memory_gb')} GiB"
    if host.get("pid_max"):
        machine += (f"; kernel.pid_max {host['pid_max']:,} and threads-max {host.get('threads_max') or 0:,} "
                    "cap OS threads machine-wide, so they also cap rows whose process is an OS thread")  # fmt: skip
    terminal, markdown = [title, machine, ""], [f"# {title}", "", machine, ""]
    for bench in benches:
        made = bench_table(bench, measurements)
        if made is None:
            continue
        text, notes = made
        heading = f"{bench.id}: {bench.title} ({bench.source}); cells: {UNITS.get(bench.metric, bench.metric)}"
        terminal += [heading, text, *(f"  {note}" for note in notes), ""]
        markdown += [f"## {heading}", "", markdown_table(text), "", *(f"- {note}" for note in notes), ""]
    cells = "Cells: median over repetitions ± half-width of the 95% confidence interval of the mean (Student's t)."
    payload = ("payload: what a send does in that row — 'shared' passes a reference (or a reference-counted "
               "binary), 'copied' copies the bytes; copy mode makes a fresh buffer for every send.")  # fmt: skip
    legend = [f"{flag}: {meaning}" for flag, meaning in FLAG_MEANINGS.items()]
    terminal += [cells, payload, *legend, *skipped]
    markdown += [cells, "", *(f"- {line}" for line in [payload, *legend, *skipped])]
    return "\n".join(terminal), "\n".join(markdown) + "\n"
