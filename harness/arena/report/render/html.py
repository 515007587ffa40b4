"""A report as one self-contained HTML file: results/<run>/report.html.

Everything it needs is inside it: the tables of the report, its charts as JSON, Chart.js and its
error-bar plugin (render/vendor.py), the page's own script and style (harness/web/report.js and
arena.css). Its content-security policy allows exactly those inline scripts and that style, by
their SHA-256, and nothing else: no fetch, no image, no font from anywhere, so the file opens from
disk offline and shows the same thing on every machine. `arena serve` makes its pages the same way
(`page`), allowing only requests to itself.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json

import jinja2

from arena.errors import ArenaError
from arena.report.render import vendor
from arena.report.tables import Report

_pages = jinja2.Environment(
    loader=jinja2.FileSystemLoader(vendor.WEB),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def inline(text: str, what: str) -> str:
    """Text to put inside a <script> or <style> element, refused if it could end the element early."""
    if "</script" in text.lower() or "</style" in text.lower():
        raise ArenaError(f"{what} contains a closing tag and cannot be inlined")
    return text


def policy(scripts: list[str], styles: list[str], connect_self: bool = False) -> str:
    """The page's content-security policy: these inline scripts and styles, and requests to its own
    origin only with `connect_self` (the dashboard's pages); nothing else."""
    parts = [
        "default-src 'none'",
        f"script-src {' '.join(map(_digest, scripts))}",
        f"style-src {' '.join(map(_digest, styles))}",
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
    ]
    return "; ".join(parts + (["connect-src 'self'"] if connect_self else []))


def page(
    template: str, title: str, scripts: list[str], styles: list[str], connect_self: bool = False, **context
) -> str:
    """A page of harness/web/: `template` with its scripts and styles inlined under its policy."""
    scripts = [inline(s, "a script") for s in scripts]
    styles = [inline(s, "a style") for s in styles]
    return _pages.get_template(template).render(
        title=title, scripts=scripts, styles=styles, policy=policy(scripts, styles, connect_self), **context
    )


def data(value: object) -> str:
    """JSON for a <script type="application/json"> element: '<' escaped, so no tag can end it."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def report(r: Report) -> str:
    """The report's page; raises ArenaError when the charting library cannot be had."""
    sections = [*r.sections, *r.appendix]
    charts = [chart for section in sections for chart in section.charts]
    # Each section with its charts' places in the embedded list (a canvas names its chart by it):
    # those that answer its question, then those folded under "more charts".
    numbered, first = [], 0
    for section in sections:
        places = list(range(first, first + len(section.charts)))
        numbered.append((section, [i for i in places if not charts[i].folded], [i for i in places if charts[i].folded]))
        first += len(section.charts)
    own = [(vendor.WEB / name).read_text(encoding="utf-8") for name in ("report.js", "arena.css")]
    return page(
        "report.html",
        r.title,
        [*vendor.scripts(), own[0]],
        [own[1]],
        report=r,
        results=numbered[: len(r.sections)],
        appendix=numbered[len(r.sections) :],
        charts=charts,
        data=data([dataclasses.asdict(chart) for chart in charts]),
    )
