"""The runs kept in reference/: a folder per command (`run`, `capacity`, `micro`, `findings`), in it
a folder per measurement of it (`DATE-COMMIT`: the exports of its runs and a README). The one whose
runs began last is each command's reference. They are read as they are, imported into a store of
their own for as long as a reader needs them, and said to be measured on older code where the code
that measured them has changed since (git, from the commit each run recorded)."""

from __future__ import annotations

import contextlib
import gzip
import json
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from arena.measured import importing
from arena.measured.store import Run, Store
from arena.paths import ROOT

REFERENCE = ROOT / "reference"
COMMANDS = ("capacity", "run", "micro", "findings")  # in the order a reader meets them
# The harness's code that measures (not that reports): a change here can move every number.
MEASURING = ("harness/arena/rest", "harness/arena/micro", "harness/arena/capacity", "harness/arena/frame", "loadgen")


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


@contextlib.contextmanager
def imported(folders: dict[str, Path]) -> Iterator[tuple[Store, dict[str, list[Run]]]]:
    """A store of their own holding the folders' runs, by command, for as long as the block lasts."""
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(Path(scratch) / "arena.sqlite")
        try:
            runs = {
                command: [importing.into(store, path)[0] for path in sorted(folder.glob("*.json.gz"))]
                for command, folder in folders.items()
            }
            yield store, runs
        finally:
            store.close()


def changed_since(commit: str, impls: list[str]) -> list[str]:
    """What of the code that measured a run has changed since its commit: each implementation's
    folder (servers/ and micro/) and the harness's measuring code, as git sees them from here; the
    commit itself when git cannot tell (a copy without history)."""
    paths = {impl: [f"servers/{impl}", f"micro/{impl}"] for impl in impls} | {"the harness's measuring code": MEASURING}
    changed = []
    for what, where in paths.items():
        try:
            done = subprocess.run(
                ["git", "diff", "--quiet", commit, "HEAD", "--", *where],
                cwd=ROOT,
                capture_output=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return [f"unknown (no git to compare {commit[:7]} with)"]
        if done.returncode > 1:
            return [f"unknown ({commit[:7]} is not in this clone's history)"]
        if done.returncode == 1:
            changed.append(what)
    return changed
