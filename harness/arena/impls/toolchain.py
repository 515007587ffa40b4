"""Toolchains: check what a manifest needs, install what is missing, and tell why when we cannot.

An implementation whose toolchain cannot be had is *unavailable*, with the reason; the others go on.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from arena.impls.catalog import Manifest, Toolchain
from arena.paths import RESULTS

CHECK_TIMEOUT = 60
INSTALL_TIMEOUT = 1800
APT_LOCK = Path("/tmp/arena-apt.lock")  # one apt-get at a time, machine-wide, as dpkg allows


@dataclass(frozen=True)
class Availability:
    ok: bool
    reason: str = ""


def _present(tool: Toolchain) -> bool:
    try:
        done = subprocess.run(tool.check, capture_output=True, timeout=CHECK_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


class Toolchains:
    """Remembers, within one harness command, which tools are there and which failed to install."""

    def __init__(self, say=print) -> None:
        self._known: dict[str, Availability] = {}
        self._apt_updated = False
        self._say = say

    def check(self, manifest: Manifest) -> Availability:
        """Availability without installing anything (for `arena list`)."""
        for tool in manifest.toolchains:
            if tool.name in self._known:
                state = self._known[tool.name]
            else:
                state = Availability(True) if _present(tool) else Availability(False, f"{tool.name} missing")
            if not state.ok:
                return state
        return Availability(True)

    def ensure(self, manifest: Manifest) -> Availability:
        """Availability after installing what is missing."""
        for tool in manifest.toolchains:
            state = self.ensure_tool(tool, manifest.name)
            if not state.ok:
                return state
        return Availability(True)

    def ensure_tool(self, tool: Toolchain, needed_by: str) -> Availability:
        if tool.name not in self._known:
            self._known[tool.name] = self._provide(tool, needed_by)
        return self._known[tool.name]

    def _provide(self, tool: Toolchain, impl: str) -> Availability:
        if _present(tool):
            return Availability(True)
        if not tool.install:
            return Availability(False, f"{tool.name} is missing and the manifest gives no install command")
        log = RESULTS / "logs" / f"install-{tool.name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        command = tool.install
        if command.startswith("apt-get install") and not self._apt_updated:
            if os.geteuid() != 0:
                return Availability(False, f"{tool.name} is missing; installing it needs root: {command}")
            command = f"apt-get update -qq && DEBIAN_FRONTEND=noninteractive {command}"
            self._apt_updated = True
        self._say(f"  installing {tool.name} (needed by {impl}): {tool.install}  [log: {log}]")
        try:
            with log.open("a") as out:
                done = subprocess.run(
                    # apt-get run by two of Arena's processes at once (a run beside a test, on two
                    # clones) would find dpkg's lock taken and fail: the second waits for the first.
                    ["flock", str(APT_LOCK), "sh", "-c", command]
                    if command.startswith("apt-get")
                    else ["sh", "-c", command],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    timeout=INSTALL_TIMEOUT,
                    check=False,
                )
        except subprocess.TimeoutExpired:
            return Availability(False, f"installing {tool.name} timed out after {INSTALL_TIMEOUT} s (see {log})")
        if done.returncode != 0 or not _present(tool):
            return Availability(False, f"{tool.name} could not be installed: '{tool.install}' failed (see {log})")
        return Availability(True)


def runtime_version(manifest: Manifest) -> str:
    """First line the manifest's version command prints, or why there is none."""
    try:
        done = subprocess.run(
            manifest.version,
            cwd=manifest.folder,
            capture_output=True,
            text=True,
            timeout=CHECK_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        return "not built yet"  # the version command is the build's own runtime (node_modules/.bin/bun)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"unknown ({err})"
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else "unknown"
