"""Other processes busy on this machine when a run begins to measure: a server shares its cores with
them, and every number it gives is theirs too. A Java server left behind by a hand experiment here
spent 29 minutes at 100% of the core the next runs pinned their servers to, and nothing said so."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

import psutil

BUSY_SHARE = 0.05  # of one core: less is a daemon's or the kernel's housekeeping


@dataclass(frozen=True)
class Busy:
    pid: int
    name: str
    share: float  # of one core, over the sample

    def line(self) -> str:
        return f"{self.name} (pid {self.pid}) {self.share:.0%} of a core"


def busy_others(own: set[int], seconds: float = 0.5) -> list[Busy]:
    """The processes not in `own` that used at least BUSY_SHARE of a core over `seconds`, busiest
    first."""
    before: dict[int, tuple[psutil.Process, float]] = {}
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if process.pid not in own:
                before[process.pid] = (process, sum(process.cpu_times()[:2]))
    time.sleep(seconds)
    found = []
    for pid, (process, cpu_s) in before.items():
        with contextlib.suppress(psutil.Error):
            share = (sum(process.cpu_times()[:2]) - cpu_s) / seconds
            if share >= BUSY_SHARE:
                found.append(Busy(pid, process.name(), share))
    return sorted(found, key=lambda busy: -busy.share)
