"""docs/results.md, made from the runs kept in reference/ (`./arena results`): Arena's answers readable
before anyone measures. Each command's reference (measured/kept.py) is imported into a store of its
own; the page gives its machine, a headline (each capacity workload's order, the findings' verdicts
counted, which the README's first screen shows too), each run's tables as its summary.md gives
them, and the findings' verdicts over the findings runs — each said to be measured on older code
where the code that measured it has changed since. Nothing in it is written by hand, and a test
fails when the page or the README's headline differs from what this makes of reference/."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from arena.capacity import order
from arena.findings import runs as findings_runs
from arena.findings import section as findings_section
from arena.kind import Kind
from arena.measured import kept
from arena.measured.store import Run, Store
from arena.paths import ROOT
from arena.report.render import images, markdown
from arena.report.tables import Report

PAGE = ROOT / "docs" / "results.md"
CHARTS = ROOT / "docs" / "results"  # the page's charts as images (report/render/images.py)
README = ROOT / "README.md"
# The README's headline lies between these: `./arena results` writes it, a test holds it current.
BEGIN = "<!-- headline: ./arena results writes it from reference/ -->"
END = "<!-- end of headline -->"


@dataclass(frozen=True)
class Reference:
    """One command's reference: its folder, and the runs its exports hold once imported."""

    command: str
    folder: Path
    runs: list[Run]

    @property
    def when(self) -> str:
        return f"{self.folder.name[:10]}, commit {', '.join(sorted({r.git_commit[:7] for r in self.runs}))}"


@dataclass(frozen=True)
class Made:
    page: str  # docs/results.md
    headline: list[str]  # the lines the README's first screen shows
    charts: dict[str, Report]  # by the stem of their images in CHARTS: each run's tables, whose charts the page shows


def made(kinds: dict[str, Kind], reference: Path = kept.REFERENCE) -> Made:
    """The page and its headline, from the newest reference of each command."""
    folders = kept.newest(reference)
    with kept.imported(folders) as (store, imported):
        references = [Reference(command, folders[command], runs) for command, runs in imported.items()]
        headline, charts = _headline(store, references), {}
        return Made(_page(store, references, kinds, reference, headline, charts), headline, charts)


def draw(made: Made) -> list[Path]:
    """The page's charts as images in CHARTS, drawn by report.html's charting (report/render/images.py);
    those of charts no longer on the page are removed."""
    drawn = [path for stem, tables in made.charts.items() for path in images.draw(tables, CHARTS, stem)]
    for stale in set(CHARTS.glob("*.png")) - set(drawn):
        stale.unlink()
    return drawn


def readme(text: str, headline: list[str]) -> str:
    """The README with its headline block (between its BEGIN and END markers) made anew."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + "\n".join(headline) + "\n" + text[end:]


def _headline(store: Store, references: list[Reference]) -> list[str]:
    """Each capacity workload's order and the findings' verdicts counted, each with when and on what
    it was measured; and what the reference does not hold yet."""
    lines = []
    for ref in references:
        if ref.command == "capacity":
            measurements = [m for run in ref.runs for m in store.measurements(run.id)]
            for (workload, point, cpus), found in order.of_run(measurements).items():
                if len(found.standings) > 1:
                    objective = " ".join(f"{k}={v}" for k, v in json.loads(point).items())
                    lines.append(f"- **{workload}** ({objective}, cpus={cpus}): {found.line()}")
            lines.append(f"- (capacity: {ref.when})")
        if ref.command == "findings":
            counted = findings_section.counts(findings_runs.judged(store, ref.runs))
            lines.append(f"- **The studies' findings**: {counted} ({ref.when})")
    held = {ref.command for ref in references}
    if missing := [f"`./arena {c}`" for c in kept.COMMANDS if c not in held]:
        lines.append(f"- Not yet in the reference: {', '.join(missing)}")
    return lines


def _page(
    store: Store,
    references: list[Reference],
    kinds: dict[str, Kind],
    reference: Path,
    headline: list[str],
    charts: dict[str, Report],
) -> str:
    """The page; `charts` is given each run's tables, whose charts it shows as CHARTS' images."""
    kept_in = reference.relative_to(ROOT) if reference.is_relative_to(ROOT) else reference
    out = [
        "# Arena's reference results",
        "",
        f"Made by `./arena results` from the runs kept in `{kept_in}/` (do not edit by hand: "
        "a test fails when this page differs from what the command makes of them). Each command's newest "
        "reference, with the machine, commit and command that measured it in its folder's README. "
        "Its charts are images the same command draws into `docs/results/`, made again from the "
        "reference rather than kept in the repository.",
        "",
        "| command | runs | commit | measured | machine |",
        "|---|---:|---|---|---|",
    ]
    for ref in references:
        host = min(ref.runs, key=lambda r: r.started).host
        machine = f"{host.get('cores', '?')} cores, {host.get('cpu_model', '?')}, {host.get('kernel', '?')}"
        commits = ", ".join(sorted({r.git_commit[:7] for r in ref.runs}))
        out.append(f"| `./arena {ref.command}` | {len(ref.runs)} | {commits} | {ref.folder.name[:10]} | {machine} |")
    out += ["", "## Headline", "", *headline, ""]
    for ref in references:
        if ref.command == "findings":
            out += _findings(store, ref)
            continue
        for run in ref.runs:
            measurements = store.measurements(run.id)
            tables = kinds[run.kind].report(run, run.name, measurements, store.notes(run.id))
            impls = sorted({m.impl for m in measurements})
            out += [f"## `./arena {ref.command}`: run {run.name}", "", _older(ref, impls), ""]
            stem = f"{ref.command}-{run.name}"
            charts[stem] = tables
            names = iter(images.chart_names(stem, tables))
            for section in tables.sections:
                out += markdown.section(section, level=3)
                shown = CHARTS.relative_to(PAGE.parent)
                out += [f"![{chart.title}]({shown}/{next(names)})" for chart in section.charts]
                out += [""] if section.charts else []
    return "\n".join(out).rstrip() + "\n"


def _findings(store: Store, ref: Reference) -> list[str]:
    """The verdict on every finding over the findings runs, grouped by verdict."""
    judged = findings_section.grouped(findings_runs.judged(store, ref.runs))
    shown = findings_section.section(judged, ref.runs)
    impls = sorted({m.impl for run in ref.runs for m in store.measurements(run.id)})
    older = _older(ref, impls)
    return [
        f"## `./arena findings`: {findings_section.counts(judged)}",
        "",
        older,
        "",
        *markdown.section(shown, level=3),
    ]


def _older(ref: Reference, impls: list[str]) -> str:
    """Whether the code that measured a reference has changed since (measured/kept.py)."""
    return f"Commit {', '.join(sorted({r.git_commit[:7] for r in ref.runs}))}: {kept.since(ref.folder, impls)}."
