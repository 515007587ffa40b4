"""docs/results.md and the README's headline are what `./arena results` makes of reference/, and
what it makes holds each kind's answer: a capacity reference's order per workload in the headline,
the findings' verdicts counted."""

import gzip
import json

from arena.cli import main as cli
from arena.cli.measuring import kinds
from arena.jobs import results
from arena.measured import export, kept
from arena.measured.measurement import Measurement, Outcome
from arena.measured.store import Run
from arena.report.render import images
from test_export import search


def test_the_page_and_the_readme_headline_are_what_reference_makes(capsys):
    # The command compares both files with what it makes of reference/ (10 s: made once, here).
    assert cli.main(["results", "--check"]) == 0, capsys.readouterr().err
    assert results.README.read_text(encoding="utf-8").index(results.BEGIN) < 2000  # on the README's first screen


def test_a_capacity_reference_gives_each_workloads_order_in_the_headline(tmp_path):
    point = json.dumps({"p99_ms": 10})
    measurements = [
        Measurement("capacity", impl, "json", point, 1, rep, Outcome.MEASURED, payload=search(edge * (1 + rep / 100)))
        for impl, edge in (("rust", 40000.0), ("go", 20000.0), ("node", 4000.0))
        for rep in range(3)
    ]
    run = Run(1, "20261205-070000", "capacity", "capacity", {"kind": "capacity"}, {"cores": 2}, "abc1234", False, 2.0)
    document = export.document(run, measurements, lambda m: kinds()[m.kind].main_metrics(m), lambda _: 0.1)
    folder = tmp_path / "capacity" / "2026-12-05-abc1234"
    folder.mkdir(parents=True)
    (folder / "run.json.gz").write_bytes(gzip.compress(export.as_json(document).encode()))
    made = results.made(kinds(), tmp_path)
    (order,) = [line for line in made.headline if line.startswith("- **json**")]
    assert "rust > go > node" in order and "rust/go x2.00" in order
    assert any(
        "Not yet in the reference: `./arena run`, `./arena micro`, `./arena findings`" in line for line in made.headline
    )
    assert "## `./arena capacity`: run 20261205-070000" in made.page and "order: rust > go > node" in made.page
    # Its charts, drawn by the report's own charting in Chromium, and shown on the page as images.
    (tables,) = made.charts.values()
    names = images.chart_names("capacity-20261205-070000", tables)
    assert names and all(f"](results/{name})" in made.page for name in names)
    drawn = images.draw(tables, tmp_path / "charts", "capacity-20261205-070000")
    assert [path.name for path in drawn] == names and all(path.read_bytes()[:4] == b"\x89PNG" for path in drawn)


def test_a_reference_stamped_with_its_code_says_what_of_it_changed_since(tmp_path):
    kept.stamp(tmp_path)
    assert kept.since(tmp_path, ["go", "node"]) == "measured by the code and implementations checked out here"
    stamped = json.loads((tmp_path / kept.SOURCES).read_text())
    assert {"servers/go", "micro/go", "servers/node", kept.HARNESS} <= set(stamped)
    stamped["servers/go"] = "0" * 64  # go's server as it was then
    (tmp_path / kept.SOURCES).write_text(json.dumps(stamped))
    assert kept.since(tmp_path, ["go", "node"]) == "measured on older code: changed since, servers/go"
    assert kept.changed_since(tmp_path / "unstamped", ["go"]) is None
