"""One interval for every number (spec/export.md, "Intervals"): no summary of a stored run leaves
its quantity's domain or is narrower than its resolution, and the tables, the export and the
findings give the same interval for the same number. Checked on the runs kept in reference/ (real
REST and micro measurements) and on a capacity run with an engine-bound cell."""

import json

import pytest

from arena.capacity import tables as capacity_tables
from arena.cli.measuring import kinds
from arena.findings.values import Index
from arena.kind import main_metrics
from arena.measured import export, importing
from arena.measured.measurement import Measurement, Outcome
from arena.measured.stats import can_be_zero, t95
from arena.measured.store import Store
from arena.paths import ROOT
from test_export import search

KEPT = sorted((ROOT / "reference").rglob("*.json.gz"))


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> list[Measurement]:
    kinds()  # every kind's payload type is known before one is read back
    store = Store(tmp_path_factory.mktemp("kept") / "arena.sqlite")
    try:
        runs = [importing.into(store, path)[0] for path in KEPT]
        return [m for run in runs for m in store.measurements(run.id)]
    finally:
        store.close()


def capacity_run() -> list[Measurement]:
    """Go's edge over three starts, Rust's past the engine in both of its own."""
    point = json.dumps({"p99_ms": 10})
    made = [
        Measurement("capacity", "go", "json", point, 1, rep, Outcome.MEASURED, payload=search(edge))
        for rep, edge in enumerate((20000.0, 21000.0, 19500.0))
    ]
    return made + [
        Measurement("capacity", "rust", "json", point, 1, rep, Outcome.MEASURED, flags=["engine-bound"], payload=found)
        for rep, found in enumerate((search(50000.0, "engine-bound"), search(51000.0, "engine-bound")))
    ]


def cell_key(kind: str, impl: str, experiment: str, point: dict, cpus: int) -> tuple:
    return kind, impl, experiment, json.dumps(point, sort_keys=True), cpus


def test_no_summary_leaves_its_domain_or_is_narrower_than_its_resolution(kept):
    measurements = kept + capacity_run()
    groups: dict[tuple, list[Measurement]] = {}
    for m in measurements:  # each summary's measurements, found once (a scan per summary took 30 s)
        groups.setdefault(cell_key(m.kind, m.impl, m.experiment, json.loads(m.point), m.cpus), []).append(m)
    checked = 0
    for summary in export.summaries(measurements, main_metrics(kinds())):
        where_from = (summary["kind"], summary["impl"], summary["experiment"], summary["point"], summary["cpus"])
        group = groups[cell_key(*where_from)]
        for name, shown in summary["values"].items():
            values = export.counted_values(group, name)
            low, high, median = shown["low"], shown["high"], shown["median"]
            if low is None and high is None:
                continue
            checked += 1
            where = f"{summary['impl']} {summary['experiment']} {summary['point']} {name}: {shown}"
            if min(values) >= 0:
                assert low is None or low >= 0, where
            if min(values) > 0 and not can_be_zero(name):  # a quantity that varies by a factor
                assert low is None or low > 0, where
            resolution = max(export.counted_values(group, f"{name}_resolution"), default=0.0)
            if can_be_zero(name) and len(values) > 1:
                # The mean's interval: within its t's reach of the values, whatever their ratio.
                reach = t95(len(values) - 1) * (max(values) - min(values))
                assert high <= max(values) * (1 + resolution) + reach, where
            if median > 0 and resolution:
                assert low is None or low <= median / (1 + resolution) * (1 + 1e-9), where
                assert high is None or high >= median * (1 + resolution) * (1 - 1e-9), where
    assert checked > 1000  # the kept runs' every number, not a handful


def test_tables_export_and_findings_give_one_interval_for_one_number(kept):
    measurements = capacity_run()
    (row_go, row_rust) = capacity_tables.report("t", measurements, []).sections[0].table.rows
    by_impl = {s["impl"]: s["values"] for s in export.summaries(measurements, main_metrics(kinds()))}
    cells = {c.impl: c.value for c in Index(measurements).cells("capacity", "json", "edge", True)}
    go = row_go.cells[2].summary
    assert (go.ci_low, go.ci_high) == (by_impl["go"]["edge"]["low"], by_impl["go"]["edge"]["high"])
    assert (cells["go"].low, cells["go"].high) == (go.ci_low, go.ci_high)
    # Past the engine: at least, in each of them; the table shows the median it is at least.
    rust = by_impl["rust"]["edge"]
    assert (rust["bound"], rust["high"]) == ("at least", None) and cells["rust"].high == float("inf")
    assert cells["rust"].low == rust["low"] and row_rust.cells[2].show() == f"≥ {rust['median']:,.0f}"
    # A REST number of a kept run: the findings' interval is the export's.
    rest = [m for m in kept if m.kind == "rest"]
    summaries = export.summaries(rest, main_metrics(kinds()))
    (first, *_) = [s for s in summaries if "rps" in s["values"] and s["values"]["rps"]["n"] > 1]
    (cell,) = [
        c
        for c in Index(rest).cells("rest", first["experiment"], "rps", True)
        if (c.impl, c.point, c.cpus) == (first["impl"], first["point"], first["cpus"])
    ]
    assert (cell.value.low, cell.value.high) == (first["values"]["rps"]["low"], first["values"]["rps"]["high"])
