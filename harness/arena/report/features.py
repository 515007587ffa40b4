"""The implementations side by side, as the thesis compared its three languages before measuring
them (its Tables 3-4): each manifest's `[features]`, the thesis' own answers as (seed) rows, and each
implementation's size in lines of code as cloc counts them.

cloc counts the files git tracks in the implementation's folder and the folders its build reads
(lib-ts for the TypeScript servers), so build outputs never count. A file is a test when its path
has a `test`/`tests` folder or its name says so (`_test.go`, `.test.ts`; `src/test/` is such a folder); tests inside
a source file (Rust's `#[cfg(test)]` modules) count as source. Documentation and data (Markdown,
JSON, TOML, YAML, XML, SQL) and build files (pom.xml, Makefile) are left out.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from dataclasses import dataclass

from arena.impls.catalog import FEATURES, Manifest, Toolchain
from arena.impls.toolchain import Toolchains
from arena.paths import ROOT, SPEC
from arena.report.tables import Cell, Column, Row, Section, Table

CLOC = Toolchain("cloc", ["cloc", "--version"], "apt-get install -y cloc")
SEED_FILE = SPEC / "features.toml"
NOT_CODE = {"Markdown", "JSON", "TOML", "YAML", "XML", "SQL", "Text", "INI", "Properties", "Maven", "make"}
TEST_PATH = re.compile(r"(^|/)tests?/|_test\.|\.test\.")
CLOC_TIMEOUT = 60


@dataclass(frozen=True)
class Size:
    source: int  # code lines, comments and blank lines left out
    tests: int
    languages: list[str]  # the languages counted, most lines first


def size(manifest: Manifest) -> Size:
    """Raises OSError or ValueError when cloc cannot count."""
    # With --vcs=git, cloc takes folders relative to the repository (it lists them with git ls-files).
    folders = [manifest.folder, *(manifest.folder / extra for extra in manifest.build_inputs)]
    relative = [str(folder.resolve().relative_to(ROOT)) for folder in folders]
    done = subprocess.run(
        ["cloc", "--vcs=git", "--json", "--quiet", "--by-file", *relative],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CLOC_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        raise ValueError(f"cloc failed: {done.stderr.strip()[:200]}")
    files = {path: counts for path, counts in json.loads(done.stdout or "{}").items() if path not in ("header", "SUM")}
    source = tests = 0
    by_language: dict[str, int] = {}
    for path, counts in files.items():
        if counts["language"] in NOT_CODE:
            continue
        if TEST_PATH.search(path):
            tests += counts["code"]
        else:
            source += counts["code"]
            by_language[counts["language"]] = by_language.get(counts["language"], 0) + counts["code"]
    return Size(source, tests, sorted(by_language, key=lambda language: -by_language[language]))


def _seed_rows() -> tuple[list[Row], str]:
    data = tomllib.loads(SEED_FILE.read_text(encoding="utf-8"))
    rows = [
        Row(
            [Cell(f"{entry['impl']} (seed)"), *(Cell(entry.get(key, "")) for key in FEATURES), Cell(""), Cell("")],
            seed=True,
        )
        for entry in data["published"]
    ]
    return rows, data["source"]


def section(manifests: list[Manifest], toolchains: Toolchains | None = None) -> Section:
    counted = (toolchains or Toolchains(say=lambda _: None)).ensure_tool(CLOC, "the report's lines of code")
    rows, notes = [], []
    for manifest in sorted(manifests, key=lambda m: m.name):
        answers = [Cell(manifest.features.get(key, "-")) for key in FEATURES]
        lines = [Cell("-"), Cell("-")]
        if counted.ok:
            try:
                found = size(manifest)
            except (OSError, ValueError, subprocess.TimeoutExpired) as err:
                notes.append(f"{manifest.name}: lines not counted: {err}")
            else:
                lines = [Cell(f"{found.source:,} ({', '.join(found.languages)})"), Cell(f"{found.tests:,}")]
        rows.append(Row([Cell(manifest.name), *answers, *lines]))
    seeds, source = _seed_rows()
    if not counted.ok:
        notes.append(f"lines of code not counted: {counted.reason}")
    notes += [
        f"(seed) rows: {source}, for the seed's own Go, Node.js (TypeScript) and Elixir servers",
        "source and test lines: code lines (no comments or blanks) that cloc counts in the files git tracks "
        "(arena/report/features.py says which count as tests)",
    ]
    columns = [
        Column("impl"),
        *(Column(label) for label in FEATURES.values()),
        Column("source lines", numeric=True),
        Column("test lines", numeric=True),
    ]
    heading = "implementations compared: the thesis' concurrency features, and size in lines of code"
    return Section(heading, Table(columns, rows + seeds, flags=False), notes)
