"""Building an implementation from its manifest, skipped when nothing changed since the last build."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.impls.catalog import Manifest
from arena.paths import RESULTS

BUILD_TIMEOUT = 1800
STAMPS = RESULTS / "build"


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    skipped: bool
    seconds: float
    log: Path
    message: str = ""


def source_digest(manifest: Manifest) -> str:
    """Hash of the build steps and every source file: the implementation's own except its build
    outputs, and those of the shared folders its manifest names as `build.inputs`."""
    ignored = {manifest.folder / out for out in manifest.build_outputs}
    digest = hashlib.sha256(repr(manifest.build_steps).encode())
    for folder in [manifest.folder, *((manifest.folder / extra).resolve() for extra in manifest.build_inputs)]:
        for path in sorted(folder.rglob("*")):
            if path.is_dir() or any(path.is_relative_to(out) for out in ignored) or "node_modules" in path.parts:
                continue
            digest.update(str(path.relative_to(folder.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@contextlib.contextmanager
def exclusive(manifest: Manifest) -> Iterator[None]:
    """Holds the implementation's build to one process at a time (a run started on a clone while
    `arena test` builds there): a second waits, then finds it up to date."""
    STAMPS.mkdir(parents=True, exist_ok=True)
    with (STAMPS / f"{manifest.build_key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def up_to_date(manifest: Manifest) -> bool:
    """Whether the last build was of these very sources and its outputs are still there."""
    stamp = STAMPS / f"{manifest.build_key}.sha256"
    outputs_present = all((manifest.folder / out).exists() for out in manifest.build_outputs)
    return outputs_present and stamp.exists() and stamp.read_text() == source_digest(manifest)


def build(manifest: Manifest, force: bool = False) -> BuildResult:
    log = RESULTS / "logs" / f"build-{manifest.build_key}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    stamp = STAMPS / f"{manifest.build_key}.sha256"
    if not force and up_to_date(manifest):
        return BuildResult(ok=True, skipped=True, seconds=0.0, log=log)
    digest = source_digest(manifest)

    started = time.monotonic()
    with log.open("w") as out:
        for step in manifest.build_steps:
            failure = _run_step(step, manifest.folder, out)
            if failure:
                return BuildResult(False, False, time.monotonic() - started, log, failure)
    STAMPS.mkdir(parents=True, exist_ok=True)
    stamp.write_text(digest)
    return BuildResult(ok=True, skipped=False, seconds=time.monotonic() - started, log=log)


def _run_step(step: list[str], folder: Path, log: TextIO) -> str:
    """Runs one build step, its output appended to the log; what went wrong, or "" when nothing did."""
    shown = " ".join(step)
    log.write(f"$ {shown}\n")
    log.flush()
    try:
        done = subprocess.run(step, cwd=folder, stdout=log, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT)
    except FileNotFoundError:
        return f"command not found: {step[0]}"
    except subprocess.TimeoutExpired:
        return f"'{shown}' timed out after {BUILD_TIMEOUT} s"
    return f"'{shown}' exited {done.returncode}" if done.returncode else ""
