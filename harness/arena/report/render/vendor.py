"""The browser side's libraries: Chart.js and its error-bar plugin, pinned with their checksums in
harness/web/package-lock.json and installed from npm by `npm ci` (which refuses a package whose
checksum differs) the first time a report is written, then inlined into every report.html.

Why Chart.js: the seeds' figures are grouped bars, and the plugin draws our 95% intervals on them
as whiskers; the same library draws the log-axis percentile curves and the timelines, with legends
and tooltips, in one 200 KB file that needs nothing else. uPlot is smaller and faster for long
series, but has no bar charts with error bars.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from arena.errors import ArenaError
from arena.impls.catalog import Toolchain
from arena.impls.toolchain import Toolchains
from arena.paths import RESULTS, ROOT

WEB = ROOT / "harness" / "web"
MODULES = WEB / "node_modules"
# The files inlined, in the order they must run.
SCRIPTS = [
    MODULES / "chart.js" / "dist" / "chart.umd.min.js",
    MODULES / "chartjs-chart-error-bars" / "build" / "index.umd.min.js",
]
NPM = Toolchain("npm", ["npm", "--version"], "apt-get install -y nodejs npm")
INSTALL_TIMEOUT = 300


def _stamp() -> Path:
    lock = (WEB / "package-lock.json").read_bytes()
    return MODULES / f".arena-{hashlib.sha256(lock).hexdigest()[:16]}"


def ensure() -> None:
    """Installs the pinned libraries unless this lock file's are already there."""
    if _stamp().exists() and all(path.exists() for path in SCRIPTS):
        return
    available = Toolchains(say=lambda _: None).ensure_tool(NPM, "report.html's charts")
    if not available.ok:
        raise ArenaError(f"cannot install the charting library: {available.reason}")
    log = RESULTS / "logs" / "install-web.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        try:
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=WEB,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=INSTALL_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise ArenaError(f"installing the charting library took over {INSTALL_TIMEOUT} s (see {log})") from None
    if done.returncode != 0 or not all(path.exists() for path in SCRIPTS):
        raise ArenaError(f"installing the charting library with npm ci failed (see {log})")
    _stamp().touch()


def scripts() -> list[str]:
    """The libraries' code, installed if need be."""
    ensure()
    return [path.read_text(encoding="utf-8") for path in SCRIPTS]
