"""A workload's answer: its runtimes ordered by their edges, each step told by `arena compare`'s
test, and starts spent only where a step is still open (spec/capacity.md, "The order")."""

import json
from types import SimpleNamespace

import pytest

from arena.capacity import order, tables
from arena.capacity.cells import Cells
from arena.capacity.order import CLOSE, SEPARATED, UNTOLD
from arena.capacity.precision import another_start
from arena.capacity.result import CapacitySearch
from arena.capacity.search import ENGINE_BOUND, FOUND
from arena.capacity.workloads import Objective, StartRule, WorkloadPoint, all_workloads
from arena.kind import Task
from arena.measured import export
from arena.measured.measurement import Measurement, Outcome
from arena.measured.store import Run

RULE = StartRule(least=2, most=6, within=0.05, noisy_after=3)
POINT = '{"p99_ms": 10}'


def search(edge: float, ended: str = FOUND) -> CapacitySearch:
    return CapacitySearch(ended, edge, edge * 1.03, {"p99_ms": 10}, 1, None, [], 0.1, None)


def cells(**edges: list[float]) -> dict[str, list[CapacitySearch]]:
    return {impl: [search(e) for e in found] for impl, found in edges.items()}


def measurements(**edges: list[float]) -> list[Measurement]:
    return [
        Measurement("capacity", impl, "json", POINT, 1, rep, Outcome.MEASURED, payload=search(e))
        for impl, found in edges.items()
        for rep, e in enumerate(found)
    ]


def test_neighbours_far_apart_are_ordered_and_close_ones_are_not():
    found = order.of(cells(go=[20000.0, 20500.0, 19800.0], rust=[41000.0, 40000.0], python=[4000.0, 4100.0]))
    assert [s.impl for s in found.standings] == ["rust", "go", "python"]
    assert [s.sign for s in found.steps] == [SEPARATED, SEPARATED]
    rust_go = found.steps[0]
    assert rust_go.ratio == pytest.approx(2.0, rel=0.03) and rust_go.low < rust_go.ratio < rust_go.high
    assert found.line().startswith("rust > go > python: rust/go x2.0")
    close = order.of(cells(scala=[15000.0, 15600.0], kotlin=[16400.0, 17000.0]))
    assert close.steps[0].sign == CLOSE and close.steps[0].open  # x1.09: more starts may tell them apart
    assert close.open_beside("scala") is close.steps[0]


def test_a_close_step_is_open_only_where_the_most_starts_could_decide_it():
    # x1.09 with edges 4% apart within each cell: four starts a side would separate them, two cannot.
    edges = cells(scala=[15000.0, 15600.0], kotlin=[16400.0, 17000.0])
    assert order.of(edges, most=4).steps[0].open and not order.of(edges, most=2).steps[0].open
    # x1.04 between cells whose starts vary by 5%: not even six starts a side would tell them apart.
    spread = order.of(cells(scala=[15000.0, 16000.0, 14500.0], kotlin=[15800.0, 15300.0, 16700.0]), most=6)
    assert spread.steps[0].sign == CLOSE and not spread.steps[0].open
    # x1.11 between cells whose two starts are a third apart: four more would not decide it either.
    wide = order.of(cells(scala=[12000.0, 18000.0], kotlin=[14000.0, 19500.0]), most=4)
    assert wide.steps[0].sign == CLOSE and not wide.steps[0].open and wide.open_beside("scala") is None


def test_a_step_within_the_smallest_change_is_close_and_not_open():
    # x1.01: a ratio `arena compare` calls no difference, however narrow more starts made it.
    level = order.of(cells(scala=[15000.0, 16000.0, 14500.0], kotlin=[15200.0, 14800.0, 15900.0]))
    assert level.steps[0].sign == CLOSE and not level.steps[0].open
    # Four starts a side that each confirm one bracket: their ratio lies within 3% for certain.
    confirmed = order.of(cells(scala=[15000.0] * 4, kotlin=[15000.0] * 4))
    assert confirmed.steps[0].sign == CLOSE and not confirmed.steps[0].open


def test_a_bound_tells_nothing_below_it_and_keeps_a_lead_above():
    bounded = {"rust": [search(50000.0, ENGINE_BOUND), search(51000.0, ENGINE_BOUND)]}
    ahead = order.of(bounded | cells(go=[20000.0, 20400.0]))
    assert ahead.steps[0].sign == SEPARATED  # at least 50,000 is more than 20,000 whatever lies beyond
    under = order.of(bounded | cells(bun=[60000.0, 61000.0]))
    assert (under.steps[0].upper, under.steps[0].sign) == ("bun", UNTOLD)  # rust's edge could be above
    assert not under.steps[0].open and "rust is at least 50,500" in under.steps[0].why
    # A lead the cell below does not yet show: three starts a side may, and not where they spread so.
    unshown = order.of(bounded | cells(go=[30000.0, 36000.0]), most=3)
    assert (unshown.steps[0].sign, unshown.steps[0].open) == (UNTOLD, True) and unshown.steps[0].low < 1
    spread = order.of(bounded | cells(go=[30000.0, 45000.0]), most=3)
    assert (spread.steps[0].sign, spread.steps[0].open) == (UNTOLD, False)


def test_a_bound_takes_starts_only_while_its_lead_may_still_show():
    rust = [search(50000.0, ENGINE_BOUND), search(51000.0, ENGINE_BOUND)]

    def needs(**below: list[float]) -> bool:
        neighbours = {"rust": rust} | cells(**below)
        return another_start(rust, 0, RULE, 0.1, lambda: order.of(neighbours, 3).open_beside("rust")) is None

    assert needs(go=[30000.0, 36000.0])  # x1.5 that a third start a side may show
    assert not needs(go=[20000.0, 20400.0])  # shown already: rust > go
    assert not needs(go=[30000.0, 45000.0])  # not even three a side would show it
    assert "the cell is a bound" in another_start(rust, 0, RULE, 0.1)  # alone: another start cannot narrow it


def test_one_start_is_untold_and_open():
    found = order.of(cells(go=[20000.0], python=[4000.0, 4100.0]))
    assert found.steps[0].sign == UNTOLD and found.steps[0].open and found.steps[0].low is None
    assert "one start of go" in found.line()


def test_starts_go_where_the_order_is_open_and_a_cell_far_from_its_neighbours_stops_at_two():
    def needs(impl: str, **edges: list[float]) -> bool:
        neighbours = cells(**edges)
        beside = (lambda: order.of(neighbours, RULE.most).open_beside(impl)) if len(neighbours) > 1 else None
        return another_start(neighbours[impl], 0, RULE, 0.1, beside) is None

    far = {"go": [20000.0, 20500.0], "rust": [41000.0, 40000.0], "python": [4000.0, 4100.0]}
    assert not needs("go", **far) and not needs("python", **far)
    close = {"scala": [15500.0, 16500.0], "kotlin": [15200.0, 14800.0], "python": [4000.0, 4100.0]}
    assert needs("scala", **close) and needs("kotlin", **close) and not needs("python", **close)
    level = {"scala": [15000.0, 16000.0], "kotlin": [15400.0, 15600.0]}  # x1.00: within the smallest change
    assert not needs("scala", **level) and not needs("kotlin", **level)
    assert needs("scala", scala=[15000.0], python=[4000.0, 4100.0])  # the least comes first
    assert not needs("scala", scala=[15000.0, 16000.0] * 3, kotlin=[15200.0, 14800.0] * 3)  # the most
    # Alone in its workload, a cell's own interval decides: two starts a bracket apart give ±19%.
    assert needs("go", go=[20000.0, 20600.0]) and not needs("go", go=[20000.0, 20000.0])


def test_cells_judge_a_task_by_the_cells_of_its_own_workload_and_budget():
    stored = measurements(scala=[15500.0, 16500.0], kotlin=[15200.0, 14800.0], python=[4000.0, 4100.0])
    elsewhere = [
        Measurement("capacity", "python", "json", POINT, 2, rep, Outcome.MEASURED, payload=search(15500.0))
        for rep in range(2)
    ]
    known = Cells(stored + elsewhere, RULE)

    json_workload = all_workloads()["json"]
    point = WorkloadPoint(json_workload, Objective(p99_ms=10))

    def task(impl: str, cpus: int = 1) -> Task:
        return Task("capacity", SimpleNamespace(name=impl), point, cpus, 2, 1.0)

    assert known.needless(task("scala")) is None and known.needless(task("kotlin")) is None
    assert "decided" in known.needless(task("python"))
    assert "±" in known.needless(task("python", cpus=2))  # alone at cpus=2, by its own precision


def test_the_table_ends_with_the_order_and_the_export_carries_it():
    made = measurements(go=[20000.0, 20500.0, 19800.0], rust=[41000.0, 40000.0], python=[4000.0, 4100.0])
    (section,) = tables.report("t", made, []).sections
    assert section.answer == [f"order: {order.of_run(made)[('json', POINT, 1)].line()}"]
    run = Run(1, "r", "capacity", "capacity", 0.0, 1.0, None, "c", False, {}, {})
    document = export.document(run, made, lambda _: {}, lambda _: 0.1, orders=order.exported(made))
    (exported,) = json.loads(export.as_json(document))["orders"]
    assert exported["order"] == ["rust", "go", "python"] and exported["steps"][0]["sign"] == SEPARATED
    alone = measurements(go=[20000.0, 20500.0])
    assert tables.report("t", alone, []).sections[0].answer == [] and order.exported(alone) == []


def test_a_second_run_repeats_the_order_unless_a_pair_turns_round_or_a_clear_lead_goes():
    first = measurements(rust=[41000.0, 40000.0], go=[20000.0, 20500.0], scala=[15000.0, 16000.0])
    same = measurements(rust=[40000.0, 40500.0], go=[21000.0, 20000.0], scala=[16500.0, 15500.0])
    (row,) = tables.orders_compared(first, same).table.rows
    assert row.cells[3].show() == "yes"
    # Go and Java turn round, each told apart: and Rust's lead over Java (x2.6) is gone.
    turned = measurements(rust=[16000.0, 16200.0], go=[12000.0, 12100.0], scala=[20000.0, 20300.0])
    (row,) = tables.orders_compared(first, turned).table.rows
    shown = row.cells[3].show()
    assert shown.startswith("no: ") and "go > scala in the first, scala > go in the second" in shown
    assert "rust/scala x2.6" in shown
    assert tables.orders_compared(first, measurements(python=[4000.0, 4100.0])) is None
