"""A runtime told from its framework (spec/capacity.md, "The runtime told from its framework" and
"Where the engine cannot push"): runtimes ordered like for like, each on its lightest setup; a
runtime's setups in an order of their own, with each framework's cost against the setup it adds it
to; and the cells the engine could not push to their edges ordered by their CPU per answer."""

import pytest

from arena.capacity import cost, framework, order, tables
from arena.capacity.order import CLOSE, SEPARATED, UNTOLD
from arena.capacity.probe import Probe
from arena.capacity.result import CapacitySearch
from arena.capacity.search import ENGINE_BOUND, FOUND
from arena.impls import catalog, setups
from arena.measured.measurement import Measurement, Outcome
from conftest import write_manifest
from test_capacity_precision import probe

# An implementation "fake" with a framework on a cluster (its default) and a bare platform setup.
SETUPS = """
[[setup]]
name = "framework-cluster"
server = "a framework"
processes = "cluster"
class = "micro"
seeds = ["thesis"]
versus = "bare-cluster"

[[setup]]
name = "bare-cluster"
server = "the runtime's own server"
processes = "cluster"
class = "platform"
seeds = ["blog"]
changes = "no framework"
"""


@pytest.fixture(autouse=True)
def catalog_with_setups(tmp_path, monkeypatch):
    """The setups a report reads (impls/setups.py) are this folder's: fake's two, and go and rust."""
    path = write_manifest(tmp_path, "fake")
    path.write_text(path.read_text() + SETUPS)
    rows = catalog.parse_rows(path) + [catalog.parse(write_manifest(tmp_path, name)) for name in ("go", "rust")]
    monkeypatch.setattr(setups, "known", lambda: setups.Setups({m.name: m for m in rows}))


def search(edge: float, ended: str = FOUND, cost_us: float | None = None, at_edge_us: float = 20.0) -> CapacitySearch:
    """A start's search; its CPU per answer at the edge, and at 20,000/s where `cost_us` is given."""
    at_edge = probe(edge, True) | {"ok_requests": 10000, "server_cpu_s": at_edge_us * 10000 / 1e6}
    cost = probe(20000.0, True) | {"ok_requests": 60000, "server_cpu_s": cost_us * 60000 / 1e6} if cost_us else None
    return CapacitySearch(ended, edge, edge * 1.03, {"p99_ms": 10}, 1, None, [at_edge], 0.1, None, cost=cost)


def measured(starts: dict[str, list[CapacitySearch]]) -> list[Measurement]:
    return [
        Measurement("capacity", impl, "plaintext", '{"p99_ms": 10}', 1, rep, Outcome.MEASURED, payload=s)
        for impl, found in starts.items()
        for rep, s in enumerate(found)
    ]


def test_runtimes_are_ordered_on_their_lightest_setup_and_each_setup_order_beside():
    runs = measured(
        {
            "fake": [search(4000.0, at_edge_us=240.0), search(4100.0, at_edge_us=236.0)],
            "fake:bare-cluster": [search(32000.0, at_edge_us=30.0), search(33000.0, at_edge_us=29.0)],
            "go": [search(20000.0), search(20400.0)],
        }
    )
    ((_, like),) = order.of_run(runs).items()
    assert [s.impl for s in like.standings] == ["fake:bare-cluster", "go"]
    assert like.line().startswith("fake:bare-cluster > go")
    ((_, by_impl),) = order.setups_of_run(runs).items()
    # The default is named by its setup beside the implementation's other one.
    assert by_impl["fake"].line().startswith("fake:bare-cluster > fake:framework-cluster: fake:bare-cluster/fake:fr")
    ((_, (cost,)),) = framework.of_run(runs).items()
    assert (cost.setup, cost.versus) == ("fake", "fake:bare-cluster")
    assert cost.edge.ratio == pytest.approx(4050 / 32500, rel=0.02) and cost.edge.low < cost.edge.ratio
    assert cost.cpu.ratio == pytest.approx(238 / 29.5, rel=0.02) and cost.cpu_where == "at their edges"
    assert cost.line().startswith("fake:framework-cluster against fake:bare-cluster: edge x0.12 [")
    lines = tables._orders(runs)
    assert lines[0].startswith("order: fake:bare-cluster > go")
    assert lines[1].startswith("fake's setups: fake:bare-cluster > fake:framework-cluster")
    assert lines[2].startswith("framework's cost: fake:framework-cluster against fake:bare-cluster: edge x0.12")


def test_where_the_engine_pushed_the_top_to_no_edge_their_cost_orders_it():
    top = {
        "go": [search(78000.0, ENGINE_BOUND, cost_us=13.0), search(77000.0, ENGINE_BOUND, cost_us=13.3)],
        "rust": [search(77000.0, ENGINE_BOUND, cost_us=9.0), search(76000.0, ENGINE_BOUND, cost_us=9.2)],
        "fake": [search(30000.0, cost_us=40.0), search(31000.0, cost_us=41.0)],
    }
    found = order.of(top)
    assert [s.impl for s in found.standings] == ["rust", "go", "fake"]
    rust_go, go_fake = found.steps
    assert (rust_go.sign, rust_go.by_cost) == (SEPARATED, True) and rust_go.ratio == pytest.approx(
        13.15 / 9.1, rel=0.01
    )
    assert "by CPU per answer at 20,000/s" in rust_go.shown()
    assert (go_fake.sign, go_fake.by_cost) == (SEPARATED, False)  # their edges tell these apart
    # Costs within the smallest change: as close as edges would be.
    level = order.of({"go": top["go"], "rust": [search(76000.0, ENGINE_BOUND, cost_us=c) for c in (13.1, 13.2)]})
    assert level.steps[0].sign == CLOSE and level.steps[0].by_cost
    # Without a cost on a side, the step stays what the edges say: untold.
    costless = order.of({"go": top["go"], "rust": [search(76000.0, ENGINE_BOUND)] * 2})
    assert costless.steps[0].sign == UNTOLD and not costless.steps[0].by_cost


def test_a_cell_whose_starts_disagree_keeps_its_place_below_an_engine_bound_top():
    """A cell of two starts that disagree is untold from every cell (the interval of two has one
    degree of freedom), the engine-bound top's too; it stays where its edges put it, below the cells
    the top is told apart from (run 20261207-182821: elixir's json edges of 3,387 and 2,160, a
    quarter of its core stolen in the second, once stood second, above kotlin's 9,989)."""
    found = order.of(
        {
            "rust": [search(19000.0, ENGINE_BOUND, cost_us=20.0), search(20000.0, cost_us=21.0)],
            "go": [search(9000.0), search(9100.0)],
            "fake": [search(3387.0), search(2160.0)],
            "python": [search(1500.0), search(1550.0)],
        }
    )
    assert [s.impl for s in found.standings] == ["rust", "go", "fake", "python"]


def test_the_cells_of_the_top_whose_starts_found_their_edges_keep_their_edges_order():
    """Only the cells the engine pushed to no edge are ordered by their cost: those whose starts
    found their edges keep the edges' order, however cheap (run 20261207-193444: kotlin's
    json edge of 9,400 stood below deno's 6,906, a step of "x0.82", by their cost at 4,800/s)."""
    found = order.of(
        {
            "rust": [search(22312.0, ENGINE_BOUND, cost_us=50.0), search(15780.0, cost_us=52.0)],
            "go": [search(9539.0, cost_us=80.0), search(9261.0, cost_us=82.0)],
            "fake": [search(e, cost_us=70.0) for e in (8691.0, 8952.0, 8822.0)],
            "python": [search(e, cost_us=60.0) for e in (7355.0, 6872.0, 7113.0)],
        }
    )
    assert [s.impl for s in found.standings] == ["rust", "go", "fake", "python"]
    assert all(step.ratio >= 1 for step in found.steps[1:])


def test_a_start_without_a_cost_rate_or_below_it_has_no_cost():
    assert search(1000.0).cost_per_answer() is None
    assert search(30000.0, cost_us=12.0).cost_per_answer() == pytest.approx(12e-6)
    table = tables.report("t", measured({"go": [search(30000.0, cost_us=12.0)] * 2}), [])
    assert "CPU s/1k at 20,000/s" in [c.header for c in table.sections[0].table.columns]


def test_the_cost_rate_is_a_share_of_the_engines_ceiling_fixed_by_the_first_start_that_tells_it():
    # The engine 60% busy at 24,000 arrivals a second: its ceiling some 36,000; a third of it, 10,800.
    told = [
        Probe(**probe(24000.0, True) | {"engine_busy": 0.6}),
        Probe(**probe(30000.0, False) | {"engine_busy": 0.95}),
    ]
    assert cost.engine_ceiling(told)[0] == pytest.approx(36000.0)
    assert cost.rate(None, told, 0.3) == 10000.0  # 10,800 rounded down to two significant digits
    assert cost.rate(12000.0, told, 0.3) == 12000.0  # a later start takes the run's
    assert cost.rate(None, [Probe(**probe(900.0, True) | {"engine_busy": 0.05})], 0.3) is None
