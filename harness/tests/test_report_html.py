"""report.html: real measurements of the fake server drawn in a real headless Chromium with the
network off — every chart drawn, no console error, no request but the file itself — and the
numbers behind the charts are the tables' numbers."""

import json
from dataclasses import replace

import pytest

from arena import lifecycle
from arena.cli.measuring import kinds
from arena.findings.section import HEADING
from arena.measured.store import Store
from arena.paths import ROOT
from arena.report.charts import BAR, LINE, PERCENTILE, Chart, Series, Value
from arena.report.published import Published
from arena.report.render import html
from arena.report.render.browser import chromium
from arena.report.tables import Report, Section
from arena.rest import charts as rest_charts
from arena.rest import tables
from conftest import needs_engine
from test_rest_measure import fixed_point

SCREENSHOTS = ROOT / "results" / "screenshots"  # kept for people to look at (the tests' own results are not)


def report_of(measurements) -> Report:
    published = Published("Fig. 1: req/s", "rps", {"requests": 300}, [{"impl": "fake", "cpus": 1, "value": 1234.5}])
    seeded = replace(fixed_point(300).scenario, published=[published])
    section = tables.section(seeded, measurements)
    return Report("fake run", sections=[section], legend=["legend"])


@needs_engine
def test_charts_hold_the_tables_numbers_and_the_histograms_percentiles(fake_measurements):
    section = report_of(fake_measurements).sections[0]
    first = section.charts[0]
    # Runtimes named on the axis, each with its own bar; the seed's beside ours, paler.
    assert first.kind == BAR and first.categories == ["fake", "fake (seed)"] and first.x_label == "runtime"
    ours, seed = first.series
    assert (ours.label, seed.label, seed.seed) == ("fake", "fake (seed)", True)
    assert seed.values == [None, seed.values[1]] and seed.values[1].y == 1234.5
    assert not first.folded and all(c.folded for c in section.charts if c.kind == BAR and c is not first)
    cell = section.table.rows[0].cells[3]  # the first metric, req/s
    assert ours.values[0].y == pytest.approx(cell.summary.median)
    assert (ours.values[0].low, ours.values[0].high) == pytest.approx((cell.summary.ci_low, cell.summary.ci_high))

    # One repetition's distribution gives the engine's own percentiles (HdrHistogram, 3 digits).
    xs, values = rest_charts.distribution([fake_measurements[0].payload.histograms["*"]])
    p50 = values[xs.index(2)].y
    assert p50 == pytest.approx(fake_measurements[0].payload.metrics["p50_ms"], rel=0.01)
    assert xs[-1] == fake_measurements[0].payload.metrics["requests"]
    assert values[-1].y == pytest.approx(fake_measurements[0].payload.metrics["max_ms"], rel=0.01)
    kinds = {(c.kind, c.x_scale) for c in section.charts}
    assert (LINE, PERCENTILE) in kinds and any(c.title.startswith("p99 ms over time") for c in section.charts)


@needs_engine
def charts_drawn(page) -> int:
    """How many charts the page's script drew, once it has said (harness/web/report.js)."""
    page.wait_for_function("document.body.dataset.chartsDrawn !== undefined")
    return int(page.evaluate("document.body.dataset.chartsDrawn"))


def test_the_report_draws_every_chart_offline_in_chromium(fake_measurements, tmp_path):
    page_file = tmp_path / "report.html"
    made = report_of(fake_measurements)
    page_file.write_text(html.report(made), encoding="utf-8")
    expected = sum(len(s.charts) for s in made.sections)

    with chromium() as browser:
        context = browser.new_context(offline=True, viewport={"width": 1300, "height": 900})
        page = context.new_page()
        errors, requests = [], []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        drawn = charts_drawn(page)
        folded = page.evaluate("document.querySelectorAll('details:not([open]) canvas[data-chart]').length")
        # One click opens what is folded, and its charts draw then: open them all.
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_timeout(500)
        # A drawn chart has coloured pixels: count the canvases that have some.
        painted = page.evaluate(
            """() => [...document.querySelectorAll('canvas[data-chart]')].filter((c) => {
                 const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                 for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true;
                 return false; }).length"""
        )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "report.png"), full_page=True)
        context.close()

    assert errors == []
    assert requests == [page_file.as_uri()]
    assert drawn == expected == painted > 0 and folded > 0
    policy = json.dumps(html.policy(["x"], ["y"]))
    assert "default-src 'none'" in policy and "connect-src" not in policy


@needs_engine
def test_a_runs_report_shows_its_own_results_on_the_first_screen(fake_measurements, tmp_path):
    """A run that tests none of the seed studies' findings (a fake server's): its page opens on its
    own table, the findings it cannot test one line above it and listed, folded, after it."""
    store = Store()
    try:
        run = store.start_run("first-screen", "quick", {"kind": "rest"}, {"cores": 2}, "abc", False)
        for m in fake_measurements:
            store.add(run.id, m)
        made = lifecycle.build_report(kinds()["rest"], store, store.finish_run(run.id))
    finally:
        store.close()
    (line,) = [p for p in made.preamble if "this run does not test" in p]
    assert "`./arena findings --plan`" in line and made.sections[0].heading != HEADING
    page_file = tmp_path / "report.html"
    page_file.write_text(html.report(made), encoding="utf-8")
    with chromium() as browser:
        context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(page_file.as_uri())
        top = page.evaluate("document.querySelector('#result-1 table').getBoundingClientRect().top")
        unfolded = page.evaluate("document.querySelectorAll('details.folded[open]').length")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "report-first-screen.png"))
        context.close()
    assert 0 < top < 900 - 100, top  # the table's head and some rows on the first screen
    assert unfolded == 0  # the untested findings wait behind their fold


def test_a_long_legend_shows_every_series_and_leaves_the_plot_its_room(tmp_path):
    """Chart.js gives a legend at most half its canvas and leaves out the rows beyond: a chart of
    many long-named series (the micro benches' 28) grows until the last row shows, in a fold
    opened after the page was drawn too."""
    labels = [f"runtime-{n} idiomatic cpus=1 rounds=10000" for n in range(28)]
    series = [
        Series(label, [Value(float(n + 1)), Value(float(n + 2))], xs=[5000, 50000]) for n, label in enumerate(labels)
    ]
    chart = Chart("µs per message", LINE, "size", "µs", series)
    sections = [Section("open", charts=[chart]), Section("folded", charts=[replace(chart, folded=True)])]
    page_file = tmp_path / "report.html"
    page_file.write_text(html.report(Report("long legends", sections=sections)), encoding="utf-8")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_file.as_uri())
        page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        page.wait_for_timeout(500)
        layouts = page.evaluate(
            """() => [...document.querySelectorAll('canvas[data-chart]')].map((canvas) => {
                 const { legend, chartArea } = Chart.getChart(canvas);
                 const last = legend.legendHitBoxes[legend.legendHitBoxes.length - 1];
                 return { rows: last.row + 1, bottom: last.top + last.height, legend: legend.bottom,
                          plot: chartArea.bottom - chartArea.top }; })"""
        )
    assert len(layouts) == 2
    for layout in layouts:
        assert layout["rows"] > 5 and layout["bottom"] <= layout["legend"], layout
        assert layout["plot"] >= 200, layout  # the plot is not squeezed to give the legend room
