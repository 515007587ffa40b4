"""The runs kept in reference/: a folder per command (`run`, `capacity`, `micro`, `findings`), in it
a folder per measurement of it (`DATE-COMMIT`: the exports of its runs and a README). The one whose
runs began last is each command's reference. They are read as they are, imported into a store of
their own for as long as a reader needs them, and said to be measured on older code where the code
that measured them has changed since: the digests of that code, kept beside them (sources.json),
against those of the commit checked out here."""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from arena.errors import ArenaError
from arena.measured import importing
from arena.measured.store import Run, Store
from arena.paths import ROOT

REFERENCE = ROOT / "reference"
COMMANDS = ("capacity", "run", "micro", "findings")  # in the order a reader meets them
# What measures (not what reports or judges): the harness's measuring code, the load engine, and the
# experiments' own definitions. A change here can move every number.
MEASURING = (
    "harness/arena/rest",
    "harness/arena/micro",
    "harness/arena/capacity",
    "harness/arena/soak",
    "harness/arena/frame",
    "harness/arena/engines",
    "harness/arena/host",
    "loadgen",
    "spec/scenarios",
    "spec/capacity.toml",
    "spec/micro.toml",
    "spec/soak.toml",
)
# Within those folders, the modules that only show what was measured: a table or a chart drawn
# anew changes no number stored.
SHOWING = ("tables.py", "charts.py")
HARNESS = "harness"  # the key of the measuring code's digest
SOURCES = "sources.json"  # beside a reference: the digests of the code that measured it


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


def sources(root: Path = ROOT) -> dict[str, str]:
    """A digest of each implementation's folder (keyed `servers/go`, `micro/go`, ...) and of the
    harness's measuring code ("harness"), over the files of the commit checked out in `root` (git's
    own hash of each, so that a build that rewrote a file beside them changes nothing): what
    `stamp` keeps beside a reference."""
    try:
        listed = subprocess.run(
            ["git", "ls-tree", "-r", "-z", "HEAD", "--", "servers", "micro", *MEASURING],
            cwd=root,
            capture_output=True,
            timeout=60,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as err:
        raise ArenaError(f"cannot list the files of the commit checked out in {root}: {err}") from err
    digests: dict[str, hashlib._Hash] = {}
    for entry in sorted(line.decode() for line in listed.split(b"\0") if line):
        blob, name = entry.split("\t", 1)
        parts = name.split("/")
        if parts[0] in ("servers", "micro") and len(parts) < 3:
            continue  # a file beside the implementations, not one of them
        if parts[0] == "harness" and parts[-1] in SHOWING:
            continue
        key = "/".join(parts[:2]) if parts[0] in ("servers", "micro") else HARNESS
        digests.setdefault(key, hashlib.sha256()).update(f"{name}\0{blob.split()[-1]}\0".encode())
    return {key: digest.hexdigest() for key, digest in sorted(digests.items())}


def stamp(folder: Path, root: Path = ROOT) -> None:
    """Keeps beside a reference the digests of the code that measured it (`root`: its checkout)."""
    (folder / SOURCES).write_text(json.dumps(sources(root), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def changed_since(folder: Path, impls: list[str]) -> list[str] | None:
    """What of the code that measured a reference has changed since, by the digests kept beside it
    (`stamp`): each implementation's folders and the harness's measuring code. None where the
    reference kept none (it predates them)."""
    kept_file = folder / SOURCES
    if not kept_file.exists():
        return None
    then, now = json.loads(kept_file.read_text(encoding="utf-8")), sources()
    keys = [key for impl in impls for key in (f"servers/{impl}", f"micro/{impl}") if key in then or key in now]
    return [key for key in [*keys, HARNESS] if then.get(key) != now.get(key)]


def since(folder: Path, impls: list[str]) -> str:
    """`changed_since` as a reader is told it."""
    changed = changed_since(folder, impls)
    if changed is None:
        return "whether the code that measured it changed since is not recorded (no sources.json beside it)"
    if not changed:
        return "measured by the code and implementations checked out here"
    return f"measured on older code: changed since, {', '.join(changed)}"
