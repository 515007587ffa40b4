"""Where a run ran: the host's facts and the repository's commit, stored with every run, and shown
with the versions its measurements recorded at the end of its report."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import time
from pathlib import Path

from arena.host.cores import machine_cores
from arena.host.pace import pace_mib_s
from arena.measured.measurement import Measurement
from arena.measured.store import Run
from arena.paths import ROOT
from arena.report.tables import Cell, Column, Row, Section, Table


def host_facts() -> dict:
    model = "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), model)
    return {
        "name": platform.node(),  # the host's name: histories and comparisons keep hosts apart
        "cpu_model": model,
        "cores": len(machine_cores()),
        "kernel": platform.release(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "python": platform.python_version(),
        # Every OS thread takes a pid: these cap thread-per-process runtimes machine-wide.
        "pid_max": _kernel_setting("pid_max"),
        "threads_max": _kernel_setting("threads-max"),
        # What the machine gave one core's arithmetic as the run started (host/pace.py): a host
        # that gave it less shows here; a slower path through the kernel does not.
        "pace_mib_s": pace_mib_s(),
    }


def _kernel_setting(name: str) -> int | None:
    try:
        return int(Path("/proc/sys/kernel", name).read_text())
    except (OSError, ValueError):
        return None


def git_state() -> tuple[str, bool]:
    """(commit, whether tracked files differ from it)."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
        except OSError:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "HEAD") or "unknown"
    return commit, bool(git("status", "--porcelain", "--untracked-files=no"))


def sections(run: Run, measurements: list[Measurement]) -> list[Section]:
    """A stored run's provenance as the report shows it: where and how it ran, and with which
    versions of every runtime, framework, library and engine (as each measurement recorded them)."""
    facts = [
        ("run", run.name),
        ("commit", run.git_commit + (" (with uncommitted changes)" if run.git_dirty else "")),
        ("finished", _finished(run)),
        *((f"host {key}", str(value)) for key, value in run.host.items()),
        *((f"option {key}", json.dumps(value)) for key, value in run.plan.items() if key != "kind"),
    ]
    where = Section(
        "provenance", Table([Column("what"), Column("value")], [Row([Cell(k), Cell(v)]) for k, v in facts], flags=False)
    )
    found: dict[str, dict] = {}
    for m in measurements:
        if m.versions:
            found.setdefault(m.impl, m.versions)
    keys = list(dict.fromkeys(key for versions in found.values() for key in versions))
    rows = [
        Row([Cell(impl), *(Cell(shown(versions.get(key, "-"))) for key in keys)])
        for impl, versions in sorted(found.items())
    ]
    versions = Section("versions", Table([Column("impl"), *(Column(key) for key in keys)], rows, flags=False))
    return [where, versions] if rows else [where]


def _finished(run: Run) -> str:
    """When the run finished, or why it has not."""
    if run.finished is not None:
        return _when(run.finished)
    if run.interrupted is not None:
        return f"no: interrupted at {_when(run.interrupted)}; --resume {run.name} continues it"
    return "no: still running, or killed before it could record an interruption"


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def shown(value: object) -> str:
    """A recorded version as a cell: a list of libraries joined."""
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)
