"""A report's charts as PNG images, drawn by report.html's own charting in headless Chromium: for a
page that cannot run scripts (docs/results.md on a code host), the same pictures, intervals and
all, as the report a run writes."""

from __future__ import annotations

import tempfile
from pathlib import Path

from arena.report.render import html
from arena.report.tables import Report

WIDTH = 1280  # the reader's window the charts are laid out for, as the report's screenshots are


def chart_names(stem: str, r: Report) -> list[str]:
    """The file each chart of the report's sections is drawn to, in their order: STEM-N.png."""
    count = sum(len(section.charts) for section in r.sections)
    return [f"{stem}-{n}.png" for n in range(1, count + 1)]


def draw(r: Report, folder: Path, stem: str) -> list[Path]:
    """Each chart of the report's sections drawn to `folder` (chart_names); the report's own page,
    every fold opened, each canvas's pixels once Chart.js has drawn it (it animates nothing)."""
    from arena.report.render.browser import chromium  # imported here: Playwright is for this alone

    names = chart_names(stem, r)
    if not names:
        return []
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        page_file = Path(scratch) / "report.html"
        page_file.write_text(html.report(Report(r.title, sections=r.sections)), encoding="utf-8")
        with chromium() as browser:
            page = browser.new_page(viewport={"width": WIDTH, "height": 900})
            page.goto(page_file.as_uri())
            page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            page.wait_for_timeout(500)  # a chart in a fold just opened is laid out again
            drawn = []
            for place, name in enumerate(names):
                canvas = page.locator(f'canvas[data-chart="{place}"]')
                canvas.scroll_into_view_if_needed()
                canvas.screenshot(path=str(folder / name))
                drawn.append(folder / name)
    return drawn
