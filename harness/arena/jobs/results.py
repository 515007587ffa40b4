"""docs/results.md, made from the runs kept in reference/ (`./arena results`): Arena's answers readable
before anyone measures. reference/ holds a folder per command (`run`, `capacity`, `micro`,
`findings`), in it a folder per measurement of it (`DATE-COMMIT`, each with the exports of its runs
and a README); the one whose runs began last is each command's reference. The page is made by importing them into a
store of its own and rendering each run's tables as its summary.md does, then the findings'
verdicts over the findings runs; nothing in it is written by hand, and a test fails when the page
differs from what this makes of reference/."""

from __future__ import annotations

import gzip
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.capacity import order
from arena.findings import runs as findings_runs
from arena.findings import section as findings_section
from arena.kind import Kind
from arena.measured import importing
from arena.measured.store import Run, Store
from arena.paths import ROOT
from arena.report.render import markdown

REFERENCE = ROOT / "reference"
PAGE = ROOT / "docs" / "results.md"
README = ROOT / "README.md"
# The README's headline lies between these: `./arena results` writes it, a test holds it current.
BEGIN = "<!-- headline: ./arena results writes it from reference/ -->"
END = "<!-- end of headline -->"
# The commands whose runs reference/ keeps, in the order the page shows them.
COMMANDS = ("capacity", "run", "micro", "findings")


@dataclass(frozen=True)
class Kept:
    """One command's reference: its folder, and the runs its exports hold once imported."""

    command: str
    folder: Path
    runs: list[Run]


def newest(reference: Path = REFERENCE) -> dict[str, Path]:
    """The newest folder of each command reference/ holds: the one whose runs began last."""
    found = {}
    for command in COMMANDS:
        sets = [p for p in (reference / command).glob("*") if p.is_dir() and any(p.glob("*.json.gz"))]
        if sets:
            found[command] = max(sets, key=_began)
    return found


def _began(folder: Path) -> float:
    """When the first run of a folder's exports began."""
    return min(float(json.loads(gzip.decompress(p.read_bytes()))["run"]["started"]) for p in folder.glob("*.json.gz"))


@dataclass(frozen=True)
class Made:
    page: str  # docs/results.md
    headline: list[str]  # the lines the README's first screen shows


def made(kinds: dict[str, Kind], reference: Path = REFERENCE) -> Made:
    """The page and its headline, from the newest reference of each command."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "arena.sqlite")
        try:
            kept = [
                Kept(command, found, [importing.into(store, path)[0] for path in sorted(found.glob("*.json.gz"))])
                for command, found in newest(reference).items()
            ]
            headline = _headline(store, kept)
            return Made(_page(store, kept, kinds, reference, headline), headline)
        finally:
            store.close()


def readme(text: str, headline: list[str]) -> str:
    """The README with its headline block (between its BEGIN and END markers) made anew."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + "\n".join(headline) + "\n" + text[end:]


def _headline(store: Store, kept: list[Kept]) -> list[str]:
    """Each capacity workload's order and the findings' verdicts counted, each with when and on what
    it was measured; and what the reference does not hold yet."""
    lines = []
    for k in kept:
        when = f"{k.folder.name[:10]}, commit {', '.join(sorted({r.git_commit[:7] for r in k.runs}))}"
        if k.command == "capacity":
            measurements = [m for run in k.runs for m in store.measurements(run.id)]
            for (workload, point, cpus), found in order.of_run(measurements).items():
                if len(found.standings) > 1:
                    objective = " ".join(f"{k}={v}" for k, v in json.loads(point).items())
                    lines.append(f"- **{workload}** ({objective}, cpus={cpus}): {found.line()}")
            lines.append(f"- (capacity: {when})")
        if k.command == "findings":
            judged = findings_runs.judged(store, k.runs)
            lines.append(f"- **The studies' findings**: {findings_section.counts(judged)} ({when})")
    missing = [f"`./arena {c}`" for c in COMMANDS if c not in {k.command for k in kept}]
    if missing:
        lines.append(f"- Not yet in the reference: {', '.join(missing)}")
    return lines


def _page(store: Store, kept: list[Kept], kinds: dict[str, Kind], reference: Path, headline: list[str]) -> str:
    kept_in = reference.relative_to(ROOT) if reference.is_relative_to(ROOT) else reference
    out = [
        "# Arena's reference results",
        "",
        f"Made by `./arena results` from the runs kept in `{kept_in}/` (do not edit by hand: "
        "a test fails when this page differs from what the command makes of them). Each command's newest "
        "reference, with the machine, commit and command that measured it in its folder's README.",
        "",
        "| command | runs | commit | measured | machine |",
        "|---|---:|---|---|---|",
    ]
    for k in kept:
        first = min(k.runs, key=lambda r: r.started)
        host = first.host
        machine = f"{host.get('cores', '?')} cores, {host.get('cpu_model', '?')}, {host.get('kernel', '?')}"
        day = k.folder.name[:10]
        commits = ", ".join(sorted({r.git_commit[:7] for r in k.runs}))
        out.append(f"| `./arena {k.command}` | {len(k.runs)} | {commits} | {day} | {machine} |")
    out += ["", "## Headline", "", *headline, ""]
    for k in kept:
        if k.command == "findings":
            out += _findings(store, k)
            continue
        for run in k.runs:
            made = kinds[run.kind].report(run, run.name, store.measurements(run.id), store.notes(run.id))
            out += [f"## `./arena {k.command}`: run {run.name}", ""]
            for section in made.sections:
                out += markdown.section(section, level=3)
    return "\n".join(out).rstrip() + "\n"


def _findings(store: Store, k: Kept) -> list[str]:
    """The verdict on every finding over the findings runs, grouped by verdict."""
    judged = findings_section.grouped(findings_runs.judged(store, k.runs))
    made = findings_section.section(judged, k.runs)
    return [f"## `./arena findings`: {findings_section.counts(judged)}", "", *markdown.section(made, level=3)]
