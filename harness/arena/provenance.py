"""Where a run ran: the host's facts and the repository's commit, stored with every run."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
from pathlib import Path

from arena.catalog import ROOT
from arena.cores import machine_cores


def host_facts() -> dict:
    model = "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        model = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), model)
    return {
        "cpu_model": model,
        "cores": len(machine_cores()),
        "kernel": platform.release(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "python": platform.python_version(),
        # Every OS thread takes a pid: these cap thread-per-process runtimes machine-wide.
        "pid_max": _kernel_setting("pid_max"),
        "threads_max": _kernel_setting("threads-max"),
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
